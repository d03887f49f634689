package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnglishStemmingFindsInflectedForms: the word index stems English, so a
// question's "installing" finds text that says "installs", and Korean stems
// still match their inflected forms through the same index.
func TestEnglishStemmingFindsInflectedForms(t *testing.T) {
	s := openTest(t, testDim)
	doc := makeDoc("/notes/en.md",
		"The installer installs drivers for every printer.",
		"Batteries last longer when charged slowly.",
		"학교에서 친구를 만났다")
	put(t, s, doc)
	cases := map[string]string{
		"installing drivers": doc.Chunks[0].SnippetID,
		"installed":          doc.Chunks[0].SnippetID,
		"battery charging":   doc.Chunks[1].SnippetID,
		"학교":                 doc.Chunks[2].SnippetID,
	}
	wantFirst(t, s, cases)
}

// TestPorterMigrationReindexesStoredChunks builds an index whose word index
// still uses plain unicode61 (as schema versions 6 and 7 wrote it), reopens it and
// checks the migration rebuilt the word index from the stored chunk text:
// stemmed search finds the old chunks, and the triggers keep working.
func TestPorterMigrationReindexesStoredChunks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "footnote.db")
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	doc := makeDoc("/notes/old.md", "The installer installs drivers for every printer.")
	put(t, s, doc)
	s.Close()
	rollBackTo(t, path, 7) // before migratePorterFTS

	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	var ddl string
	if err := raw.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if want := "tokenize = 'unicode61 remove_diacritics 2'"; !strings.Contains(ddl, want) {
		t.Fatalf("rollback left %q, want the version 7 tokenizer", ddl)
	}

	s, err = Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatalf("open after rollback: %v", err)
	}
	defer s.Close()
	got, err := s.SearchLexical(ctx, "installing", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].SnippetID != doc.Chunks[0].SnippetID {
		t.Fatalf("stemmed search after migration: %v, want %s", snippetIDs(got), doc.Chunks[0].SnippetID)
	}
	if a, ok, err := s.Meta(ctx, "analyzer"); err != nil || !ok || a != Analyzer {
		t.Fatalf("analyzer meta = %q %v %v, want %q", a, ok, err, Analyzer)
	}
	// The recreated triggers index new chunks.
	next := makeDoc("/notes/new.md", "Printers jammed twice.")
	put(t, s, next)
	if got, err := s.SearchLexical(ctx, "jamming", 10); err != nil || len(got) != 1 || got[0].SnippetID != next.Chunks[0].SnippetID {
		t.Fatalf("stemmed search for a chunk added after migration: %v %v", snippetIDs(got), err)
	}
}

// TestNumbersMatchHoweverTheyAreWritten: a question writing a number, an
// ordinal or a month one way finds the text writing it another
// (facts.Spellings), and the bm25 ranking function gets one document
// frequency per phrase of the grouped terms.
func TestNumbersMatchHoweverTheyAreWritten(t *testing.T) {
	s := openTest(t, testDim)
	// Each pair shares every word but the value, and the right text is
	// the longer (bm25 prefers the shorter on a tie), so only the value's
	// other spelling can rank it first.
	doc := makeDoc("/notes/facts.md",
		"The 15-year-old pupil won the chess final.",
		"The fourteen-year-old pupil won the chess final again.",
		"The library reopens on the 4th of October.",
		"The library reopens on the 3rd of September after the works.")
	put(t, s, doc)
	cases := map[string]string{
		"which 14 year old pupil won the chess final": doc.Chunks[1].SnippetID,
		"does the library reopen on the third sept":   doc.Chunks[3].SnippetID,
	}
	wantFirst(t, s, cases)
}

// wantFirst checks that lexical search ranks, for each query of cases, the
// snippet it maps to first.
func wantFirst(t *testing.T, s *Store, cases map[string]string) {
	t.Helper()
	for q, want := range cases {
		got, err := s.SearchLexical(context.Background(), q, 10)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if len(got) == 0 || got[0].SnippetID != want {
			t.Errorf("%q: got %v, want %s first", q, snippetIDs(got), want)
		}
	}
}
