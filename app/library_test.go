package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func TestAddFolderEmitsProgressAndListsCollection(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, rec, _ := newTestApp(t, fake)
	lib := t.TempDir()
	for _, n := range []string{"one.md", "two.md", "three.txt"} {
		if err := os.WriteFile(filepath.Join(lib, n), []byte("# "+n+"\n\nSome text about "+n+".\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := a.AddFolder("notes", lib)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 3 {
		t.Fatalf("summary: %+v", sum)
	}
	var final engine.Progress
	rec.mu.Lock()
	for _, e := range rec.events {
		if p, ok := e.payload.(engine.Progress); ok && e.name == EventIngestProgress && p.Collection == "notes" {
			final = p
		}
	}
	rec.mu.Unlock()
	if !final.Done || final.FilesDone != 3 || final.FilesTotal != 3 || final.FilesPerSec <= 0 {
		t.Fatalf("last ingest:progress for the collection: %+v", final)
	}
	cols, err := a.Collections()
	if err != nil || len(cols) != 1 || cols[0].Name != "notes" || cols[0].Documents != 3 {
		t.Fatalf("collections: %+v, %v", cols, err)
	}
	if again, err := a.Rescan("notes"); err != nil || again.FilesUnchanged != 3 || again.ChunksEmbedded != 0 {
		t.Fatalf("rescan: %+v, %v", again, err)
	}
	if ws := a.WatchState(); ws.Watching || ws.Pending != 0 {
		t.Fatalf("watch state without a running watch: %+v", ws)
	}
	if err := a.RemoveCollection("notes"); err != nil {
		t.Fatal(err)
	}
	if cols, _ := a.Collections(); len(cols) != 0 {
		t.Fatalf("collection still listed after removal: %+v", cols)
	}
}
