package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestContextAndFoldedFormsAreSearchable: a chunk is found by a word of its
// title or heading context that its text never uses, and by the plain
// spelling of a ligature or full-width form in its text; what is read back
// is the stored text, untouched, with its context beside it.
func TestContextAndFoldedFormsAreSearchable(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	doc := makeDoc("/notes/report.md",
		"Run the installer and reboot.",
		"The estate of Mansﬁeld Park was sold.",
		"Part ＡＢＣ-12 is out of stock.")
	doc.Chunks[0].Context = "Field Guide › Troubleshooting"
	put(t, s, doc)
	cases := map[string]string{
		"troubleshooting":      doc.Chunks[0].SnippetID, // only in the context
		"Mansfield":            doc.Chunks[1].SnippetID, // ﬁ ligature in the text
		"ABC-12":               doc.Chunks[2].SnippetID, // full-width in the text
		"Mansﬁeld estate sold": doc.Chunks[1].SnippetID, // a pasted ligature in the query
	}
	for q, want := range cases {
		got, err := s.SearchLexical(ctx, q, 10)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if len(got) == 0 || got[0].SnippetID != want {
			t.Errorf("%q: got %v, want %s first", q, snippetIDs(got), want)
		}
	}
	recs, err := s.Chunks(ctx, []string{doc.Chunks[0].SnippetID, doc.Chunks[1].SnippetID})
	if err != nil {
		t.Fatal(err)
	}
	if r := recs[doc.Chunks[0].SnippetID]; r.Text != "Run the installer and reboot." || r.Context != "Field Guide › Troubleshooting" {
		t.Errorf("chunk read back as %q with context %q", r.Text, r.Context)
	}
	if r := recs[doc.Chunks[1].SnippetID]; r.Text != "The estate of Mansﬁeld Park was sold." {
		t.Errorf("stored text changed: %q", r.Text)
	}
	// Deleting goes through the same folding, so the index stays consistent.
	if err := s.DeleteDocument(ctx, doc.DocID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SearchLexical(ctx, "troubleshooting", 10); len(got) != 0 {
		t.Errorf("deleted chunk still found: %v", snippetIDs(got))
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("word index inconsistent after delete: %v", err)
	}
}

// TestChunkContextMigrationRefillsTheWordIndex: an index written by schema
// version 12 (plain chunk text in the word index) is migrated in place: the
// stored chunks are re-indexed folded, and new chunks get their context.
func TestChunkContextMigrationRefillsTheWordIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "footnote.db")
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	old := makeDoc("/notes/old.md", "The estate of Mansﬁeld Park was sold.")
	put(t, s, old)
	s.Close()
	rollBackTo(t, path, 12)

	s, err = Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.SearchLexical(ctx, "Mansfield", 10); err != nil || len(got) != 1 {
		t.Fatalf("old chunk after migration: %v, %v", snippetIDs(got), err)
	}
	doc := makeDoc("/notes/new.md", "Reboot twice.")
	doc.Chunks[0].Context = "Guide › Recovery"
	put(t, s, doc)
	if got, err := s.SearchLexical(ctx, "recovery", 10); err != nil || len(got) != 1 || got[0].SnippetID != doc.Chunks[0].SnippetID {
		t.Fatalf("new chunk by its context: %v, %v", snippetIDs(got), err)
	}
	var analyzer string
	if err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'analyzer'`).Scan(&analyzer); err != nil || analyzer != Analyzer {
		t.Fatalf("analyzer after migration = %q (%v), want %q", analyzer, err, Analyzer)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("word index inconsistent after migration: %v", err)
	}
}
