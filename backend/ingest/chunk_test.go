package ingest

import (
	"context"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// costCounter is a tokenizer stand-in for base64-like text (about two
// characters a token) that records how much text it was asked to count.
type costCounter struct {
	calls, total, longest int
}

func (c *costCounter) CountTokens(s string) int {
	c.calls++
	c.total += len(s)
	c.longest = max(c.longest, len(s))
	return (len(s)+1)/2 + 2
}

// base64Line is n bytes of one unbroken base64 run.
func base64Line(n int) string {
	rng := rand.New(rand.NewPCG(3, 5))
	raw := make([]byte, n*3/4+3)
	for i := range raw {
		raw[i] = byte(rng.IntN(256))
	}
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

// TestChunkLongUnbrokenLine checks that a 1 MB line without a space costs
// tokenizer work linear in its length, in calls on short texts only: real
// pre-tokenizers are quadratic in the length of an unbroken run.
func TestChunkLongUnbrokenLine(t *testing.T) {
	text := "Header line.\n\n" + base64Line(1<<20) + "\n\nTrailing words."
	counter := &costCounter{}
	opts := Options{ChunkTokens: 256, MaxTokens: 256}
	_, chunks := mustSplit(t, "/data/blob.txt", "txt", text, counter, opts)
	if len(chunks) < (1<<20)/512 {
		t.Fatalf("%d chunks for a 1 MB line of ~2-character tokens at 256 tokens a chunk", len(chunks))
	}
	for i, c := range chunks[1 : len(chunks)-1] {
		// Cut pieces land close to the limit, not at a fraction of it.
		if c.Tokens < 256*3/4 {
			t.Errorf("chunk %d of the long line holds only %d tokens", i+1, c.Tokens)
		}
	}
	if counter.longest > 256*maxBytesPerToken {
		t.Errorf("the tokenizer was given a %d-byte text; long words must be counted in bounded windows", counter.longest)
	}
	if counter.total > 40*len(text) {
		t.Errorf("the tokenizer read %d bytes for a %d-byte text (%d calls): not linear", counter.total, len(text), counter.calls)
	}
}

// TestChunkLongLineRealTokenizer cuts an unbroken line with the test
// model's WordPiece tokenizer: every chunk within the model limit, offsets
// exact (checked by mustSplit), text fully covered.
func TestChunkLongLineRealTokenizer(t *testing.T) {
	h, err := embed.Load(context.Background(), embedtest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	line := base64Line(32 << 10)
	text := "Intro paragraph.\n\n" + line
	opts := Options{ChunkTokens: 128, MaxTokens: h.Info().MaxTokens, OverlapTokens: -1}
	_, chunks := mustSplit(t, "/data/blob.md", "md", text, h, opts)
	// Without overlap, the chunks in order are the text minus the
	// paragraph break.
	var joined strings.Builder
	for _, c := range chunks {
		joined.WriteString(strings.ReplaceAll(c.Text, "\n", ""))
	}
	if want := strings.ReplaceAll(text, "\n", ""); joined.String() != want {
		t.Fatalf("chunks without overlap do not cover the text exactly (%d of %d bytes)", joined.Len(), len(want))
	}
}

// unknownWordCounter counts like WordPiece: a word over 100 bytes is one
// unknown token, so by tokens alone any run without spaces fits a chunk.
// It records the longest text it was given.
type unknownWordCounter struct{ longest int }

func (c *unknownWordCounter) CountTokens(s string) int {
	c.longest = max(c.longest, len(s))
	n := 2
	for _, w := range strings.Fields(s) {
		if len(w) > 100 {
			n++
		} else {
			n += (len(w) + 3) / 4
		}
	}
	return n
}

// TestChunksBoundedInBytes: a run the tokenizer counts as one token (a hex
// dump), and a table whose header is one huge cell, still give chunks of
// at most maxBytesPerToken bytes a token of the limit, and the tokenizer
// is never given a longer text: its pre-tokenizer is quadratic in length.
func TestChunksBoundedInBytes(t *testing.T) {
	hex := strings.Repeat("0f3a9c71", 64<<10) // 512 KB
	cell := strings.Repeat("7e", 100<<10)     // 200 KB
	text := "Intro paragraph.\n\n" + hex + "\n\n| " + cell + " | b |\n| --- | --- |\n| x | y |\n| z | w |\n\nEnd."
	counter := &unknownWordCounter{}
	opts := Options{ChunkTokens: 200, MaxTokens: 256}
	_, chunks := mustSplit(t, "/data/dump.md", "md", text, counter, opts)
	maxBytes := 200 * maxBytesPerToken
	for i, c := range chunks {
		if len(c.Text) > maxBytes || len(c.Context) > maxBytes {
			t.Fatalf("chunk %d holds %d bytes of text and %d of context; at most %d", i, len(c.Text), len(c.Context), maxBytes)
		}
	}
	if want := (len(hex) + len(cell)) / maxBytes; len(chunks) < want {
		t.Errorf("%d chunks, want at least %d", len(chunks), want)
	}
	if counter.longest > maxBytes+len(chunks[0].Context)+8 {
		t.Errorf("the tokenizer was given a %d-byte text", counter.longest)
	}
}
