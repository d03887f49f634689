package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// fragmentTextIndex turns off FTS5's automatic merging, so every write
// transaction leaves its own segment, as a long incremental ingest would.
func fragmentTextIndex(t *testing.T, s *Store) {
	t.Helper()
	for _, table := range textTables {
		if _, err := s.w.Exec(`INSERT INTO ` + table + `(` + table + `, rank) VALUES('automerge', 0)`); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompactTextIndexFoldsSegmentsAndKeepsResults(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{Dim: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fragmentTextIndex(t, s)
	put := func(i int) {
		d := makeDoc(fmt.Sprintf("/notes/n%02d.md", i), fmt.Sprintf("harbour ledger entry %d with 학교에서 notes", i))
		if err := s.PutDocument(ctx, d, axisVectors(len(d.Chunks), 6), "m"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range maxTextSegments - 1 {
		put(i)
	}
	if did, err := s.CompactTextIndex(ctx); err != nil || did {
		t.Fatalf("below the threshold: compacted=%v err=%v, want no rewrite", did, err)
	}
	for i := maxTextSegments - 1; i < maxTextSegments+4; i++ {
		put(i)
	}
	before, err := s.TextSegments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before["chunks_fts"] <= maxTextSegments {
		t.Fatalf("setup: %d segments, want more than %d", before["chunks_fts"], maxTextSegments)
	}
	queries := []string{"harbour ledger", "entry 7", "학교"}
	want := map[string][]string{}
	for _, q := range queries {
		ms, err := s.SearchLexical(ctx, q, 20)
		if err != nil {
			t.Fatal(err)
		}
		want[q] = ids(ms)
		if len(want[q]) == 0 {
			t.Fatalf("setup: %q finds nothing", q)
		}
	}
	did, err := s.CompactTextIndex(ctx)
	if err != nil || !did {
		t.Fatalf("compacted=%v err=%v, want a rewrite", did, err)
	}
	after, err := s.TextSegments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range textTables {
		if after[table] > 1 {
			t.Errorf("%s has %d segments after compaction (%d before), want at most 1", table, after[table], before[table])
		}
	}
	for _, q := range queries {
		ms, err := s.SearchLexical(ctx, q, 20)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(ms); !slices.Equal(got, want[q]) {
			t.Errorf("%q: %v after compaction, %v before", q, got, want[q])
		}
	}
	for _, table := range textTables {
		if _, err := s.w.Exec(`INSERT INTO ` + table + `(` + table + `) VALUES('integrity-check')`); err != nil {
			t.Fatalf("%s integrity-check after compaction: %v", table, err)
		}
	}
}
