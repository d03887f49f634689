package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/search"
)

// TestIngestKeepsTextIndexCompact indexes files one run at a time with
// FTS5's automatic merging off, so every run adds a segment, and checks that
// the runs fold them together once there are too many.
func TestIngestKeepsTextIndexCompact(t *testing.T) {
	ctx := context.Background()
	en, _ := newTestEngine(t, "127.0.0.1:9")
	dir := t.TempDir()
	write := func(i int) string {
		path := filepath.Join(dir, fmt.Sprintf("note%02d.md", i))
		body := fmt.Sprintf("# Note %d\n\nThe harbour ledger lists cargo batch %d.\n", i, i)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if _, err := en.Ingest(ctx, []string{write(0)}, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", en.store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0)`); err != nil {
		t.Fatal(err)
	}
	peak, dropped := 0, false
	for i := 1; i <= 12; i++ {
		if _, err := en.Ingest(ctx, []string{write(i)}, nil); err != nil {
			t.Fatal(err)
		}
		segs, err := en.store.TextSegments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := segs["chunks_fts"]
		if n < peak {
			dropped = true
		}
		peak = max(peak, n)
		if n > 8 {
			t.Fatalf("after run %d the text index has %d segments, want them folded above 8", i, n)
		}
	}
	if !dropped {
		t.Fatalf("segments never folded (peak %d over 12 runs)", peak)
	}
	res, err := en.Search(ctx, "harbour ledger cargo", search.Options{Mode: search.ModeLexical})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search after compaction: %d hits, %v", len(res.Hits), err)
	}
}
