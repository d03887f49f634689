package ingest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/corpus"
)

// wordCounter mimics a tokenizer that adds two special tokens.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) int { return len(strings.Fields(s)) + 2 }

// runeCounter makes every character a token, so long words must be cut.
type runeCounter struct{}

func (runeCounter) CountTokens(s string) int { return utf8.RuneCountInString(s) + 2 }

// lineCounter charges for line breaks, which per-word estimates miss, so
// the chunker has to shrink its first guesses.
type lineCounter struct{}

func (lineCounter) CountTokens(s string) int {
	return len(strings.Fields(s)) + strings.Count(s, "\n") + 2
}

var testNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func mustSplit(t testing.TB, path, format, text string, counter TokenCounter, opts Options) ([]corpus.Section, []corpus.Chunk) {
	t.Helper()
	secs, chunks, err := Split(corpus.DocID(path), path, format, text, counter, opts, testNow)
	if err != nil {
		t.Fatalf("Split(%q): %v", path, err)
	}
	checkInvariants(t, text, secs, chunks, counter, opts.WithDefaults())
	return secs, chunks
}

// checkInvariants asserts the properties every split must have.
func checkInvariants(t testing.TB, text string, secs []corpus.Section, chunks []corpus.Chunk, counter TokenCounter, opts Options) {
	t.Helper()
	runes := []rune(text)
	secByID := map[string]corpus.Section{}
	prevEnd := 0
	for _, s := range secs {
		if _, dup := secByID[s.SectionID]; dup {
			t.Fatalf("duplicate section id %q", s.SectionID)
		}
		secByID[s.SectionID] = s
		if s.Start < prevEnd || s.End < s.Start || s.End > len(runes) {
			t.Fatalf("section %q span [%d,%d) invalid (prev end %d, len %d)", s.SectionID, s.Start, s.End, prevEnd, len(runes))
		}
		prevEnd = s.End
	}
	limit := min(opts.ChunkTokens, opts.MaxTokens)
	seenIDs := map[string]bool{}
	for i, c := range chunks {
		o := c.Offsets
		if o.Unit != corpus.UnitChar || o.Start >= o.End || o.Start < 0 || o.End > len(runes) {
			t.Fatalf("chunk %d: bad offsets %+v (text has %d chars)", i, o, len(runes))
		}
		if got := string(runes[o.Start:o.End]); got != c.Text {
			t.Fatalf("chunk %d: text[%d:%d] = %q, chunk text %q", i, o.Start, o.End, got, c.Text)
		}
		if strings.TrimFunc(c.Text, isSpace) != c.Text || c.Text == "" {
			t.Fatalf("chunk %d: not trimmed or empty: %q", i, c.Text)
		}
		// Tokens count what is embedded: the context, then the text.
		if embedded := counter.CountTokens(corpus.IndexText(c.Context, c.Text)); c.Tokens != embedded || c.Tokens > limit || c.Tokens > opts.MaxTokens {
			t.Fatalf("chunk %d: tokens %d (counted %d with its context %q), limit %d", i, c.Tokens, embedded, c.Context, limit)
		}
		s, ok := secByID[c.SectionID]
		if !ok {
			t.Fatalf("chunk %d: unknown section %q", i, c.SectionID)
		}
		if o.Start < s.Start || o.End > s.End {
			t.Fatalf("chunk %d [%d,%d) outside section %q [%d,%d)", i, o.Start, o.End, s.SectionID, s.Start, s.End)
		}
		if c.Window.Pre != min(maxWindow, o.Start-s.Start) || c.Window.Post != min(maxWindow, s.End-o.End) {
			t.Fatalf("chunk %d: window %+v wrong", i, c.Window)
		}
		if c.Ordinal != i || c.Source != corpus.SourceCorpus || !c.CreatedAt.Equal(testNow) || c.DocID == "" {
			t.Fatalf("chunk %d: bad metadata %+v", i, c)
		}
		if seenIDs[c.SnippetID] || !strings.HasPrefix(c.SnippetID, "snip_") {
			t.Fatalf("chunk %d: snippet id %q duplicate or malformed", i, c.SnippetID)
		}
		seenIDs[c.SnippetID] = true
		if i > 0 && chunks[i-1].SectionID == c.SectionID && c.Offsets.Start <= chunks[i-1].Offsets.Start {
			t.Fatalf("chunk %d does not advance past chunk %d", i, i-1)
		}
	}
}

func TestMarkdownSections(t *testing.T) {
	type sec struct {
		id, title string
		level     int
		prefix    string // start of the section's text
	}
	tests := []struct {
		name  string
		text  string
		title string
		want  []sec
	}{
		{
			name:  "nested headings with preamble",
			text:  "intro text\n\n# Install\nsteps\n## Linux\napt\n## macOS\nbrew\n# Use\nrun it\n",
			title: "Install",
			want: []sec{
				{"guide", "guide", 0, "intro text"},
				{"guide/install", "Install", 1, "# Install"},
				{"guide/install/linux", "Linux", 2, "## Linux"},
				{"guide/install/macos", "macOS", 2, "## macOS"},
				{"guide/use", "Use", 1, "# Use"},
			},
		},
		{
			name:  "code fence hides hashes",
			text:  "# Build\n```sh\n# not a heading\nmake\n```\n~~~\n## nor this\n~~~\n## Test\ngo test\n",
			title: "Build",
			want: []sec{
				{"guide/build", "Build", 1, "# Build\n```sh\n# not a heading"},
				{"guide/build/test", "Test", 2, "## Test"},
			},
		},
		{
			name:  "setext headings",
			text:  "Overview\n========\nhello\n\nDetails here\n------------\nmore\n",
			title: "Overview",
			want: []sec{
				{"guide/overview", "Overview", 1, "Overview\n===="},
				{"guide/overview/details-here", "Details here", 2, "Details here\n---"},
			},
		},
		{
			name:  "duplicate headings",
			text:  "## FAQ\na\n## FAQ\nb\n## FAQ\nc\n## FAQ 2\nd\n",
			title: "guide",
			want: []sec{
				{"guide/faq", "FAQ", 2, "## FAQ\na"},
				{"guide/faq-2", "FAQ", 2, "## FAQ\nb"},
				{"guide/faq-3", "FAQ", 2, "## FAQ\nc"},
				{"guide/faq-2-2", "FAQ 2", 2, "## FAQ 2"},
			},
		},
		{
			name:  "korean headings and inline markup",
			text:  "# 설치 방법\n내용\n## `go` **빌드**!\n텍스트\n",
			title: "설치 방법",
			want: []sec{
				{"guide/설치-방법", "설치 방법", 1, "# 설치 방법"},
				{"guide/설치-방법/go-빌드", "go 빌드!", 2, "## `go`"},
			},
		},
		{
			name:  "level jumps pop to the right parent",
			text:  "### Deep\nx\n# Top\ny\n### Deeper\nz\n## Mid\nw\n",
			title: "Top",
			want: []sec{
				{"guide/deep", "Deep", 3, "### Deep"},
				{"guide/top", "Top", 1, "# Top"},
				{"guide/top/deeper", "Deeper", 3, "### Deeper"},
				{"guide/top/mid", "Mid", 2, "## Mid"},
			},
		},
		{
			name:  "no headings",
			text:  "just text\n",
			title: "guide",
			want:  []sec{{"guide", "guide", 0, "just text"}},
		},
		{
			name:  "crlf and bom",
			text:  "\uFEFF# Title\r\nbody\r\n## Next\r\nmore\r\n",
			title: "Title",
			want: []sec{
				{"guide/title", "Title", 1, "\uFEFF# Title\r\n"},
				{"guide/title/next", "Next", 2, "## Next\r\n"},
			},
		},
		{
			name:  "headings in quotes and lists are not sections",
			text:  "# Real\n> # quoted\n- # listed\n",
			title: "Real",
			want:  []sec{{"guide/real", "Real", 1, "# Real\n> # quoted"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := split(context.Background(), "d", "/notes/guide.md", "md", tt.text, wordCounter{}, Options{}.WithDefaults(), testNow)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, tt.text, res.sections, res.chunks, wordCounter{}, Options{}.WithDefaults())
			if res.title != tt.title {
				t.Errorf("title = %q, want %q", res.title, tt.title)
			}
			var got []sec
			runes := []rune(tt.text)
			for i, s := range res.sections {
				w := sec{}
				if i < len(tt.want) {
					w = tt.want[i]
				}
				prefix := string(runes[s.Start:min(s.End, s.Start+utf8.RuneCountInString(w.prefix))])
				got = append(got, sec{s.SectionID, s.Title, s.Level, prefix})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sections:\n got %+v\nwant %+v", got, tt.want)
			}
			// Sections tile the text from the first one to the end.
			for i := 1; i < len(res.sections); i++ {
				if res.sections[i].Start != res.sections[i-1].End {
					t.Errorf("gap between sections %d and %d", i-1, i)
				}
			}
			if last := res.sections[len(res.sections)-1]; last.End != len(runes) {
				t.Errorf("last section ends at %d, text has %d chars", last.End, len(runes))
			}
		})
	}
}

func TestSlugify(t *testing.T) {
	tests := map[string]string{
		"Hello, World!":         "hello-world",
		"  --Already-Slug--  ":  "already-slug",
		"설치 방법":                 "설치-방법",
		"C++ & Go_1.22":         "c-go-1-22",
		"Ünïcödé Straße":        "ünïcödé-straße",
		"!!!":                   "",
		"नमस्ते दुनिया":         "नमस्ते-दुनिया",
		strings.Repeat("a", 90): strings.Repeat("a", maxSlugRunes),
	}
	for in, want := range tests {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func words(n int, sentenceEvery int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "w%d", i)
		if sentenceEvery > 0 && i%sentenceEvery == sentenceEvery-1 {
			b.WriteByte('.')
		}
	}
	return b.String()
}

func TestChunkInvariantsVariedInputs(t *testing.T) {
	long := words(700, 9)
	tests := []struct {
		name    string
		format  string
		text    string
		counter TokenCounter
		opts    Options
	}{
		{"plain ascii", "txt", long, wordCounter{}, Options{}},
		{"markdown paragraphs", "md", "# A\n\n" + long + "\n\n" + long + "\n## B\n" + long, wordCounter{}, Options{ChunkTokens: 60, OverlapTokens: 10}},
		{"multibyte and emoji", "md", "# 한국어 제목\n" + strings.Repeat("안녕하세요 세계 😀👍🏽 naïve café. ", 120), wordCounter{}, Options{ChunkTokens: 40}},
		{"crlf and tabs", "md", "# T\r\n" + strings.ReplaceAll(strings.Repeat("alpha\tbeta gamma.\r\n", 200), "gamma", "γάμμα"), wordCounter{}, Options{ChunkTokens: 50}},
		{"cjk without spaces", "txt", strings.Repeat("これは日本語の文です。句読点で区切ります！", 80), runeCounter{}, Options{ChunkTokens: 64, OverlapTokens: 8}},
		{"long word is cut", "txt", "start " + strings.Repeat("x", 1000) + " end", runeCounter{}, Options{ChunkTokens: 50, OverlapTokens: 5}},
		{"long emoji word is cut", "txt", strings.Repeat("😀", 300), runeCounter{}, Options{ChunkTokens: 30}},
		{"estimates too low force shrinking", "md", strings.Repeat("a b\n", 500), lineCounter{}, Options{ChunkTokens: 40, OverlapTokens: 10}},
		{"max tokens below chunk tokens", "txt", long, wordCounter{}, Options{ChunkTokens: 200, MaxTokens: 25}},
		{"no overlap", "txt", long, wordCounter{}, Options{OverlapTokens: -1, ChunkTokens: 30}},
		{"whitespace only", "md", " \n\t\r\n  ", wordCounter{}, Options{}},
		{"empty", "txt", "", wordCounter{}, Options{}},
		{"bom only", "txt", "\uFEFF", wordCounter{}, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, chunks := mustSplit(t, "/d/doc."+tt.format, tt.format, tt.text, tt.counter, tt.opts)
			if strings.TrimFunc(tt.text, isSpace) == "" {
				if len(chunks) != 0 {
					t.Fatalf("whitespace-only text gave %d chunks", len(chunks))
				}
				return
			}
			if len(chunks) == 0 {
				t.Fatal("no chunks")
			}
		})
	}
}

func TestChunksOverlapAndPreferSentences(t *testing.T) {
	text := words(1000, 10)
	_, chunks := mustSplit(t, "/d/a.txt", "txt", text, wordCounter{}, Options{ChunkTokens: 100, OverlapTokens: 20})
	if len(chunks) < 10 {
		t.Fatalf("got %d chunks, want at least 10", len(chunks))
	}
	for i := 1; i < len(chunks); i++ {
		prev, cur := chunks[i-1], chunks[i]
		if cur.Offsets.Start >= prev.Offsets.End {
			t.Fatalf("chunk %d does not overlap chunk %d", i, i-1)
		}
		overlap := []rune(text)[cur.Offsets.Start:prev.Offsets.End]
		if n := len(strings.Fields(string(overlap))); n > 20 {
			t.Errorf("chunk %d overlaps by %d words, want at most 20", i, n)
		}
		if !strings.HasSuffix(prev.Text, ".") {
			t.Errorf("chunk %d ends mid-sentence: ...%q", i-1, prev.Text[len(prev.Text)-10:])
		}
		if cur.Window.Pre == 0 {
			t.Errorf("chunk %d has no preceding window", i)
		}
	}
}

func TestDeterministicAndEditStable(t *testing.T) {
	sectionA := "# Alpha\n" + words(300, 7) + "\n"
	sectionB := "# Beta\n" + words(300, 11) + "\n"
	sectionC := "# Gamma\n" + words(300, 5) + "\n"
	text := sectionA + sectionB + sectionC
	s1, c1 := mustSplit(t, "/d/doc.md", "md", text, wordCounter{}, Options{ChunkTokens: 50})
	s2, c2 := mustSplit(t, "/d/doc.md", "md", text, wordCounter{}, Options{ChunkTokens: 50})
	if !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(c1, c2) {
		t.Fatal("splitting the same text twice gave different results")
	}

	edited := sectionA + "# Beta\nsomething new entirely. " + words(250, 4) + "\n" + sectionC
	_, c3 := mustSplit(t, "/d/doc.md", "md", edited, wordCounter{}, Options{ChunkTokens: 50})
	ids := func(chunks []corpus.Chunk, section string) []string {
		var out []string
		for _, c := range chunks {
			if c.SectionID == section {
				out = append(out, c.SnippetID)
			}
		}
		return out
	}
	for _, sec := range []string{"doc/alpha", "doc/gamma"} {
		if a, b := ids(c1, sec), ids(c3, sec); len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("section %s snippet ids changed after editing another section", sec)
		}
	}
	if reflect.DeepEqual(ids(c1, "doc/beta"), ids(c3, "doc/beta")) {
		t.Error("edited section kept identical snippet ids")
	}
}

func TestRepeatedTextGetsDistinctIDs(t *testing.T) {
	text := strings.Repeat("same words here.\n\n", 50)
	_, chunks := mustSplit(t, "/d/r.txt", "txt", text, wordCounter{}, Options{ChunkTokens: 5, OverlapTokens: -1})
	if len(chunks) != 50 {
		t.Fatalf("got %d chunks, want 50", len(chunks))
	}
}

func TestSplitErrors(t *testing.T) {
	if _, _, err := Split("d", "/x/a.md", "md", "ok \xff bad", wordCounter{}, Options{}, testNow); err == nil || !strings.Contains(err.Error(), "byte 3") {
		t.Errorf("invalid UTF-8: err = %v", err)
	}
	if _, _, err := Split("d", "/x/a.pdf", "pdf", "text", wordCounter{}, Options{}, testNow); err == nil {
		t.Error("unsupported format: no error")
	}
	if _, _, err := Split("d", "/x/a.txt", "txt", "text", wordCounter{}, Options{ChunkTokens: 2}, testNow); err == nil {
		t.Error("chunk size smaller than special tokens: no error")
	}
}

func TestOptions(t *testing.T) {
	o := Options{}.WithDefaults()
	if o.ChunkTokens != 200 || o.OverlapTokens != 30 || o.MaxTokens != 200 || o.MaxFileBytes != 50<<20 {
		t.Errorf("defaults = %+v", o)
	}
	if o.WithDefaults() != o {
		t.Error("WithDefaults is not idempotent")
	}
	c := Options{ChunkTokens: 512, MaxTokens: 128, OverlapTokens: 100}.WithDefaults()
	if c.ChunkTokens != 128 || c.OverlapTokens != 64 || c.WithDefaults() != c {
		t.Errorf("clamped = %+v", c)
	}
	if got := (Options{}).Fingerprint(); got != "chunk=200,overlap=30,v4" {
		t.Errorf("Fingerprint = %q", got)
	}
	if (Options{OverlapTokens: -1}).Fingerprint() != "chunk=200,overlap=0,v4" {
		t.Error("negative overlap should fingerprint as 0")
	}
}

func TestLargeMarkdownIsFast(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 5<<20; i++ {
		fmt.Fprintf(&b, "## Part %d\n\n%s\n\n```go\n# not a heading %d\n```\n\n%s\n\n", i, words(300, 12), i, words(200, 0))
	}
	text := b.String()
	start := time.Now()
	secs, chunks, err := Split("d", "/d/big.md", "md", text, wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("5 MiB markdown: %d sections, %d chunks in %v", len(secs), len(chunks), elapsed)
	// Generous bound so the race detector and slow CI machines pass; the
	// plain run takes well under a second.
	if elapsed > 60*time.Second {
		t.Errorf("splitting 5 MiB took %v", elapsed)
	}
	checkInvariants(t, text, secs, chunks, wordCounter{}, Options{}.WithDefaults())
}

func BenchmarkSplit5MB(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 5<<20; i++ {
		fmt.Fprintf(&sb, "## Part %d\n\n%s\n\n", i, words(400, 12))
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, _, err := Split("d", "/d/big.md", "md", text, wordCounter{}, Options{}, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHeadingOnlySectionJoinsText: a heading with no text of its own (the
// sample library's "# Troubleshooting" right before its first subsection)
// is not a chunk alone; it opens the chunk of the text that follows. A
// heading-only section at the very end has nothing to join and stays.
func TestHeadingOnlySectionJoinsText(t *testing.T) {
	text := "# Troubleshooting\n\n## Ollama is not reachable\n\nStart it with ollama serve.\n\nModels\n------\n\n### Missing\n\nPull it.\n\n## Empty at the end\n"
	secs, chunks := mustSplit(t, "/notes/troubleshooting.md", "md", text, wordCounter{}, Options{ChunkTokens: 200})
	var got []string
	for _, c := range chunks {
		got = append(got, c.SectionID+": "+c.Text)
	}
	want := []string{
		"troubleshooting/troubleshooting/ollama-is-not-reachable: # Troubleshooting\n\n## Ollama is not reachable\n\nStart it with ollama serve.",
		"troubleshooting/troubleshooting/models/missing: Models\n------\n\n### Missing\n\nPull it.",
		"troubleshooting/troubleshooting/empty-at-the-end: ## Empty at the end",
	}
	if strings.Join(got, "\n|\n") != strings.Join(want, "\n|\n") {
		t.Fatalf("chunks:\n%s\nwant:\n%s", strings.Join(got, "\n|\n"), strings.Join(want, "\n|\n"))
	}
	// The folded sections stay in the outline, empty, at their headings;
	// their text belongs to the section that follows.
	if secs[0].SectionID != "troubleshooting/troubleshooting" || secs[0].Start != 0 || secs[0].End != 0 ||
		secs[1].SectionID != "troubleshooting/troubleshooting/ollama-is-not-reachable" || secs[1].Start != 0 {
		t.Fatalf("sections: %+v", secs[:2])
	}
}
