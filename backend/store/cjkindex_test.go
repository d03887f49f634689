package store

import (
	"context"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/lexical"
)

// TestAnalyzerWiringAtOpen: the index a Store opens is the one the lexical
// analyzer describes: both FTS5 tables use the tokenizer lexical.Analyzer
// names, every connection (reader and writer) computes bigrams with
// lexical.CJKGrams, and the index records the analyzer it was written with.
func TestAnalyzerWiringAtOpen(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	// The word index stems English (porter); the bigram index needs no
	// stemming.
	tokenizers := map[string]string{
		"chunks_fts": "tokenize = 'porter unicode61 remove_diacritics 2'",
		"chunks_cjk": "tokenize = 'unicode61 remove_diacritics 2'",
	}
	if !strings.HasPrefix(lexical.Analyzer, "fts5:porter(unicode61(remove_diacritics=2));") {
		t.Fatalf("lexical.Analyzer %q no longer names the tokenizer the tables use (%s)", lexical.Analyzer, tokenizers["chunks_fts"])
	}
	for table, tokenize := range tokenizers {
		var ddl string
		if err := s.r.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = ?`, table).Scan(&ddl); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if !strings.Contains(ddl, tokenize) {
			t.Errorf("%s is not created with %s:\n%s", table, tokenize, ddl)
		}
	}
	const text = "東京大学に x 本 학교에서"
	for _, conn := range []struct {
		name string
		q    func() (string, error)
	}{
		{"reader", func() (g string, err error) {
			err = s.r.QueryRowContext(ctx, `SELECT footnote_cjk_grams(?)`, text).Scan(&g)
			return
		}},
		{"writer", func() (g string, err error) {
			err = s.w.QueryRowContext(ctx, `SELECT footnote_cjk_grams(?)`, text).Scan(&g)
			return
		}},
	} {
		got, err := conn.q()
		if err != nil || got != lexical.CJKGrams(text) {
			t.Errorf("%s connection: footnote_cjk_grams = %q, %v; lexical.CJKGrams gives %q", conn.name, got, err, lexical.CJKGrams(text))
		}
	}
	if got, ok, err := s.Meta(ctx, metaAnalyzer); err != nil || !ok || got != lexical.Analyzer {
		t.Errorf("index records analyzer %q (%v, %v), want %q", got, ok, err, lexical.Analyzer)
	}
}
