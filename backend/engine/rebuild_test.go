package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/search"
)

// gatedEmbedder blocks passage embedding until open is closed, to hold a
// rebuild half way.
type gatedEmbedder struct {
	*workCounter
	open chan struct{}
}

func (g gatedEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.workCounter.EmbedPassages(ctx, texts)
}

func (gatedEmbedder) Close() error { return nil }

func TestChunkingChangeRebuildsWhileOldIndexServes(t *testing.T) {
	ctx := context.Background()
	home, lib := t.TempDir(), t.TempDir()
	write(t, filepath.Join(lib, "guide.md"), guide("query"))
	write(t, filepath.Join(lib, "zeppelin.txt"), "Zeppelins are rigid airships named after Count Ferdinand von Zeppelin.\n")
	en, _ := newLibraryEngine(t, home)
	if _, err := en.AddToCollection(ctx, "lib", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	oldHash, oldContent := en.SettingsHash(), en.IndexHash()
	oldCounts := checkConsistent(t, en.index())
	en.Close()

	// Reopen with another chunk size: the index hash changes.
	gate := gatedEmbedder{workCounter: &workCounter{Embedder: testEmbedder(t)}, open: make(chan struct{})}
	cfg := config.Config{Home: home, Settings: config.Defaults()}
	cfg.Settings.ChunkTokens, cfg.Settings.OverlapTokens = 48, 4
	en2, err := New(cfg, WithEmbedder(gate))
	if err != nil {
		t.Fatal(err)
	}
	defer en2.Close()
	if err := en2.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if en2.SettingsHash() == oldHash {
		t.Fatal("changing the chunk size did not change the settings hash")
	}
	if en2.IndexHash() != oldContent {
		t.Fatal("the old index serving during the rebuild changed its content hash")
	}
	active, done := en2.RebuildState()
	if !active || done == nil {
		t.Fatal("no rebuild started after a chunking change")
	}
	// Half way through the rebuild the old index still answers.
	res, err := en2.Search(ctx, "zeppelin airships", searchLexical())
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search during rebuild: %d hits, %v", len(res.Hits), err)
	}
	if c := checkConsistent(t, en2.index()); c != oldCounts {
		t.Fatalf("old index changed during the rebuild: %+v, was %+v", c, oldCounts)
	}
	close(gate.open)
	<-done
	if active, _ := en2.RebuildState(); active {
		t.Fatal("rebuild did not finish")
	}
	newCounts := checkConsistent(t, en2.index())
	if newCounts.Documents != oldCounts.Documents || newCounts.Chunks >= oldCounts.Chunks {
		t.Fatalf("rebuilt index %+v, old %+v (bigger chunks should mean fewer)", newCounts, oldCounts)
	}
	if h, _, _ := en2.index().Meta(ctx, "settings_hash"); h != en2.SettingsHash() {
		t.Fatalf("live settings hash %s, want %s", h, en2.SettingsHash())
	}
	if en2.IndexHash() == oldContent {
		t.Fatal("the rebuilt index has the old index's content hash")
	}
	if cols, _ := en2.Collections(ctx); len(cols) != 1 || cols[0].Documents != 2 {
		t.Fatalf("collections after rebuild: %+v", cols)
	}
	if _, err := os.Stat(filepath.Join(home, "footnote.db.rebuild")); !os.IsNotExist(err) {
		t.Fatalf("rebuild file left behind: %v", err)
	}
	res, err = en2.Search(ctx, "zeppelin airships", searchLexical())
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search after rebuild: %d hits, %v", len(res.Hits), err)
	}
}

func TestModelChangeServesLexicallyUntilRebuilt(t *testing.T) {
	ctx := context.Background()
	home, lib := t.TempDir(), t.TempDir()
	write(t, filepath.Join(lib, "zeppelin.txt"), "Zeppelins are rigid airships named after Count Ferdinand von Zeppelin.\n")
	en, _ := newLibraryEngine(t, home)
	if _, err := en.AddToCollection(ctx, "lib", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	en.Close()

	// A model with another vector length: the old vectors cannot be searched.
	other := gatedEmbedder{workCounter: &workCounter{Embedder: embed.NewFake(16)}, open: make(chan struct{})}
	en2, err := New(config.Config{Home: home, Settings: config.Defaults()}, WithEmbedder(other))
	if err != nil {
		t.Fatal(err)
	}
	defer en2.Close()
	if err := en2.Ready(ctx); err != nil {
		t.Fatalf("opening an index built with another model should start a rebuild, got %v", err)
	}
	_, done := en2.RebuildState()
	res, err := en2.Search(ctx, "zeppelin airships", search.Options{Mode: search.ModeHybrid})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("hybrid search during a model rebuild should fall back to lexical: %d hits, %v", len(res.Hits), err)
	}
	close(other.open)
	<-done
	if en2.index().Dim() != 16 {
		t.Fatalf("rebuilt index has dimension %d, want 16", en2.index().Dim())
	}
	res, err = en2.Search(ctx, "zeppelin airships", search.Options{Mode: search.ModeVector})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("vector search after rebuild: %d hits, %v", len(res.Hits), err)
	}
	checkConsistent(t, en2.index())
}
