package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rerank"
)

// The saved top_k bounds the candidates of the next search at once, also
// when a reranker wraps the searcher (the app once adjusted only a bare
// searcher, so with reranking on the change silently did nothing).
func TestSavedTopKAppliesWithReranker(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	emb, err := embed.Load(context.Background(), embedtest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{Home: t.TempDir(), Settings: config.Defaults()}
	cfg.Settings.OllamaHost, cfg.Settings.LLMModel = fake.URL(), ollamafake.DefaultModel
	en, err := engine.New(cfg, engine.WithEmbedder(emb), engine.WithReranker(rerank.Fake{}))
	if err != nil {
		t.Fatal(err)
	}
	a := New(en, newRecorder(), nil)
	t.Cleanup(func() { Shutdown(a) })
	lib := t.TempDir()
	for i := range 8 {
		body := fmt.Sprintf("# Install %d\n\nTo install variant %d on Linux, download the package and run it.\n", i, i)
		if err := os.WriteFile(filepath.Join(lib, fmt.Sprintf("install%d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	before, err := a.Search("install on Linux")
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 4 {
		t.Fatalf("precondition: %d hits with the default top_k, want several", len(before))
	}
	s := a.Settings()
	s.TopK = 1
	if _, err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	after, err := a.Search("install on Linux")
	if err != nil {
		t.Fatal(err)
	}
	// One lexical and one vector candidate fuse to at most two hits.
	if len(after) > 2 {
		t.Errorf("saved top_k=1 not applied to search with a reranker: %d hits", len(after))
	}
}
