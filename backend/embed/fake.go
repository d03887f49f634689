package embed

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fake is a deterministic Embedder for tests of other packages. It hashes
// each lowercase word into one of Dim signed buckets (feature hashing) and
// L2-normalises the counts, so texts sharing words are similar and
// unrelated texts are near-orthogonal. Safe for concurrent use.
type Fake struct {
	info ModelInfo
}

var _ Embedder = (*Fake)(nil)

// FakeMaxTokens is the input limit the fake reports and enforces.
const FakeMaxTokens = 512

// NewFake returns a fake embedder producing dim-long vectors.
func NewFake(dim int) *Fake {
	if dim < 1 {
		dim = 1
	}
	return &Fake{info: ModelInfo{ID: "fake@hash", Pooling: "hash+l2", Dim: dim, MaxTokens: FakeMaxTokens}}
}

// Info describes the fake model.
func (f *Fake) Info() ModelInfo { return f.info }

// CountTokens is the number of words plus two, like [CLS] and [SEP].
func (f *Fake) CountTokens(text string) int { return len(words(text)) + 2 }

// Truncate keeps the first MaxTokens-2 words, mirroring Hugot.Truncate.
func (f *Fake) Truncate(text string) (string, bool) {
	keep := f.info.MaxTokens - 2
	n := 0
	for i, r := range text {
		if isWordRune(r) && (i == 0 || !isWordRune(lastRune(text[:i]))) {
			if n == keep {
				return strings.TrimRightFunc(text[:i], unicode.IsSpace), true
			}
			n++
		}
	}
	return text, false
}

// EmbedQuery embeds one text.
func (f *Fake) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f.embed(text), nil
}

// EmbedPassages embeds each text.
func (f *Fake) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = f.embed(t)
	}
	return out, nil
}

// Close does nothing.
func (f *Fake) Close() error { return nil }

func (f *Fake) embed(text string) []float32 {
	ws := words(text)
	if len(ws) == 0 {
		ws = []string{""} // still a unit vector, shared by all empty texts
	}
	if len(ws) > f.info.MaxTokens-2 {
		ws = ws[:f.info.MaxTokens-2]
	}
	sum := make([]float64, f.info.Dim)
	for _, w := range ws {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		sum[x%uint64(f.info.Dim)] += sign
	}
	var norm float64
	for _, v := range sum {
		norm += v * v
	}
	norm = math.Sqrt(norm)
	out := make([]float32, len(sum))
	for i, v := range sum {
		if norm > 0 {
			out[i] = float32(v / norm)
		}
	}
	if norm == 0 {
		// Hashed signs cancelled out exactly; fall back to a fixed axis.
		out[0] = 1
	}
	return out
}

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWordRune(r) })
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
