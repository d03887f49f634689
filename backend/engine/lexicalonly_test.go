package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
)

// lexicalOnlyEngine opens an engine whose embedding model folder does not
// exist yet, answering through a fake Ollama.
func lexicalOnlyEngine(t *testing.T, home, modelDir, ollama string) *Engine {
	t.Helper()
	cfg := config.Config{Home: home, Settings: config.Defaults()}
	cfg.Settings.EmbedModelDir = modelDir
	cfg.Settings.OllamaHost = ollama
	cfg.Settings.LLMModel = ollamafake.DefaultModel
	en, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { en.Close() })
	return en
}

func indexedAt(t *testing.T, en *Engine) map[string]time.Time {
	t.Helper()
	docs, err := en.index().Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, d := range docs {
		out[d.DocID] = d.IndexedAt
	}
	return out
}

func waitForFill(t *testing.T, en *Engine) {
	t.Helper()
	_, _, _, finished := en.VectorFill()
	if finished == nil {
		t.Fatal("no vector fill started")
	}
	select {
	case <-finished:
	case <-time.After(2 * time.Minute):
		t.Fatal("vector fill did not end in 2 minutes")
	}
}

// TestLexicalOnlyUntilAModelArrives: with no embedding model the engine
// still indexes, searches and answers, by words; doctor warns without
// failing. When the model is downloaded (Reload), the stored chunks get
// vectors from the index's own text — no document is read again — and
// hybrid search switches on.
func TestLexicalOnlyUntilAModelArrives(t *testing.T) {
	ctx := context.Background()
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	modelDir := filepath.Join(t.TempDir(), "model")
	en := lexicalOnlyEngine(t, t.TempDir(), modelDir, fake.URL())
	if err := en.Ready(ctx); err != nil {
		t.Fatalf("the engine should open without a model: %v", err)
	}
	if missing := en.ModelMissing(); missing == nil || !strings.Contains(missing.Error(), modelDir) {
		t.Fatalf("ModelMissing() = %v, want the missing folder named", missing)
	}

	sum, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 2 || sum.ChunksEmbedded != 0 {
		t.Fatalf("lexical-only ingest: %+v", sum)
	}
	res, err := en.Search(ctx, "install Linux AppImage", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != search.ModeLexical || len(res.Hits) == 0 || res.Hits[0].SectionID != "install/installing/linux" {
		t.Fatalf("lexical-only search: mode %s, hits %+v", res.Mode, res.Hits)
	}
	ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: "How do I install on Linux?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Grounded || len(ans.Citations) == 0 {
		t.Fatalf("lexical-only answer: %+v", ans)
	}
	var warned bool
	for _, c := range en.Doctor(ctx) {
		if c.Name == "embedding model" {
			warned = c.OK && c.Warn && strings.Contains(c.Fix, "footnote model download")
		}
	}
	if !warned {
		t.Errorf("doctor does not warn about the missing model: %+v", en.Doctor(ctx))
	}
	pending, err := en.index().CountPendingVectors(ctx)
	if err != nil || pending == 0 {
		t.Fatalf("pending vectors %d, %v", pending, err)
	}
	before := indexedAt(t, en)

	if err := embedtest.WriteTinyModel(modelDir); err != nil {
		t.Fatal(err)
	}
	if err := en.Reload(ctx); err != nil {
		t.Fatalf("reload after the download: %v", err)
	}
	waitForFill(t, en)
	if n, err := en.index().CountPendingVectors(ctx); err != nil || n != 0 {
		t.Fatalf("%d chunks still without a vector (%v)", n, err)
	}
	if en.ModelMissing() != nil || !strings.Contains(en.EmbedModel(), "model@") {
		t.Fatalf("model not attached: missing %v, embed model %q", en.ModelMissing(), en.EmbedModel())
	}
	after := indexedAt(t, en)
	for id, at := range before {
		if !after[id].Equal(at) {
			t.Errorf("document %s was indexed again (%v, then %v); only vectors should be added", id, at, after[id])
		}
	}
	if active, _ := en.RebuildState(); active {
		t.Error("a rebuild started; the chunks should have been kept")
	}
	res, err = en.Search(ctx, "install Linux AppImage", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != search.ModeHybrid || len(res.Retrievers) != 2 {
		t.Fatalf("after the fill: mode %s, retrievers %v", res.Mode, res.Retrievers)
	}
	var byVector bool
	for _, h := range res.Hits {
		for _, c := range h.Explain {
			byVector = byVector || c.Retriever == search.Vector
		}
	}
	if !byVector {
		t.Error("no hit was found by the vector retriever after the fill")
	}
}

// TestVectorFillResumesAtStart: an index built without a model, opened
// later with one, gets its vectors at start, with no rebuild.
func TestVectorFillResumesAtStart(t *testing.T) {
	ctx := context.Background()
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	home, modelDir := t.TempDir(), filepath.Join(t.TempDir(), "model")
	en := lexicalOnlyEngine(t, home, modelDir, fake.URL())
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	before := indexedAt(t, en)
	if err := en.Close(); err != nil {
		t.Fatal(err)
	}
	if err := embedtest.WriteTinyModel(modelDir); err != nil {
		t.Fatal(err)
	}
	en = lexicalOnlyEngine(t, home, modelDir, fake.URL())
	if err := en.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if en.ModelMissing() != nil {
		t.Fatalf("model not loaded: %v", en.ModelMissing())
	}
	waitForFill(t, en)
	if n, _ := en.index().CountPendingVectors(ctx); n != 0 {
		t.Fatalf("%d chunks without a vector after the fill", n)
	}
	if active, _ := en.RebuildState(); active {
		t.Error("a rebuild started on an index that only lacked vectors")
	}
	after := indexedAt(t, en)
	if len(after) != len(before) {
		t.Fatalf("%d documents before, %d after", len(before), len(after))
	}
	for id, at := range before {
		if !after[id].Equal(at) {
			t.Errorf("document %s was indexed again", id)
		}
	}
}
