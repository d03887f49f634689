package embed

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

func TestHugotUnigramTokenizerAndPrefixes(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tiny-multilingual")
	if err := embedtest.WriteTinyUnigramModel(dir); err != nil {
		t.Fatal(err)
	}
	h := loadModel(t, dir)
	q, p := h.Prefixes()
	if q != embedtest.UnigramQueryPrefix || p != embedtest.UnigramPassagePrefix {
		t.Fatalf("Prefixes() = %q, %q; want the prompts from config_sentence_transformers.json", q, p)
	}
	// Whole words in three scripts are single pieces: <s> passage : word… </s>.
	for text, want := range map[string]int{
		"":                2 + 2,
		"한국어 문서 검색":       2 + 2 + 3,
		"résumé café":     2 + 2 + 2,
		"Invoice payment": 2 + 2 + 2,
	} {
		if got := h.CountTokens(text); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d (prefix and special tokens included)", text, got, want)
		}
	}
	if n := len(h.tok.Encode("한국어 문서 검색")); n != 5 {
		t.Errorf("Korean text encodes to %d tokens, want 5: pieces should match whole words", n)
	}

	// Prefixes make a query and a passage of the same text differ, and a
	// Korean query is closest to the Korean passage.
	docs := []string{"한국어 문서 검색 설치 방법", "invoice payment due within thirty days", "réunion budget friday meeting"}
	vecs, err := h.EmbedPassages(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	qv, err := h.EmbedQuery(ctx, "한국어 문서 검색")
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(qv, vecs[0]); c <= cosine(qv, vecs[1])+0.1 || c <= cosine(qv, vecs[2])+0.1 {
		t.Errorf("Korean query: sims %.3f %.3f %.3f, want the first clearly highest",
			c, cosine(qv, vecs[1]), cosine(qv, vecs[2]))
	}
	same, err := h.EmbedQuery(ctx, docs[0])
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(same, vecs[0]); d < 1e-4 {
		t.Errorf("query and passage embeddings of one text agree to %g; the prefixes were not applied", d)
	}

	// Truncation counts the passage prefix and is recorded.
	long := longText(3 * h.Info().MaxTokens)
	prefix, cut := h.Truncate(long)
	if !cut || !strings.HasPrefix(long, prefix) {
		t.Fatalf("Truncate(long) cut=%v", cut)
	}
	// This tokenizer's spans are word-relative, so the cut falls on the
	// last whole word that fits.
	if n, max := h.CountTokens(prefix), h.Info().MaxTokens; n > max || n < max-5 {
		t.Errorf("truncated passage has %d tokens, want at most %d and close to it", n, max)
	}
	before := h.Stats()
	if _, err := h.EmbedPassages(ctx, []string{long, "short", long}); err != nil {
		t.Fatal(err)
	}
	if got := h.Stats().Truncated - before.Truncated; got != 2 {
		t.Errorf("Stats().Truncated grew by %d, want 2", got)
	}
}

func TestReadPrefixes(t *testing.T) {
	write := func(dir, name, data string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	own := filepath.Join(root, "multilingual-e5-small")
	write(own, PrefixFile, `{"query_prefix": "q> ", "passage_prefix": ""}`)
	st := filepath.Join(root, "st")
	write(st, "config_sentence_transformers.json", `{"prompts": {"query": "Q: ", "document": "D: "}}`)
	cases := []struct {
		dir        string
		cfg        modelConfig
		query, doc string
	}{
		{own, modelConfig{}, "q> ", ""},
		{st, modelConfig{}, "Q: ", "D: "},
		{filepath.Join(root, "multilingual-e5-small"), modelConfig{}, "q> ", ""},
		{filepath.Join(root, "e5-base-v2"), modelConfig{}, "query: ", "passage: "},
		{filepath.Join(root, "model"), modelConfig{NameOrPath: "intfloat/multilingual-e5-small"}, "query: ", "passage: "},
		{filepath.Join(root, "all-MiniLM-L6-v2"), modelConfig{}, "", ""},
		{filepath.Join(root, "paraphrase-multilingual-MiniLM-L12-v2"), modelConfig{}, "", ""},
	}
	for _, c := range cases {
		q, p := readPrefixes(c.dir, c.cfg)
		if q != c.query || p != c.doc {
			t.Errorf("readPrefixes(%s, %+v) = %q, %q; want %q, %q", filepath.Base(c.dir), c.cfg, q, p, c.query, c.doc)
		}
	}
}
