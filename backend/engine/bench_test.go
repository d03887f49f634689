package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
)

// sampleEngine indexes the shipped sample library with the model from
// MODEL_SRC (or the generated tiny model) and a fake Ollama without delays.
func sampleEngine(b *testing.B) *Engine {
	b.Helper()
	emb, err := embed.Load(context.Background(), embedtest.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	fake := ollamafake.New()
	b.Cleanup(fake.Close)
	cfg := config.Config{Home: b.TempDir(), Settings: config.Defaults()}
	cfg.Settings.OllamaHost, cfg.Settings.LLMModel = fake.URL(), ollamafake.DefaultModel
	en, err := New(cfg, WithEmbedder(emb))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { en.Close() })
	return en
}

func sampleLibrary(b *testing.B) string {
	lib, err := filepath.Abs("../../sample/library")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(lib); err != nil {
		b.Fatal(err)
	}
	return lib
}

// BenchmarkIngestSampleLibrary measures a cold ingest of the sample library
// into a fresh index (model already loaded).
func BenchmarkIngestSampleLibrary(b *testing.B) {
	lib := sampleLibrary(b)
	emb, err := embed.Load(context.Background(), embedtest.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	chunks := 0
	for b.Loop() {
		b.StopTimer()
		cfg := config.Config{Home: b.TempDir(), Settings: config.Defaults()}
		en, err := New(cfg, WithEmbedder(emb))
		if err != nil {
			b.Fatal(err)
		}
		if err := en.Ready(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := en.Ingest(context.Background(), []string{lib}, nil)
		if err != nil {
			b.Fatal(err)
		}
		chunks = sum.ChunksEmbedded
	}
	b.ReportMetric(float64(chunks), "chunks")
}

// BenchmarkSearchSampleLibrary measures one hybrid query, query embedding included.
func BenchmarkSearchSampleLibrary(b *testing.B) {
	en := sampleEngine(b)
	if _, err := en.Ingest(context.Background(), []string{sampleLibrary(b)}, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := en.Search(context.Background(), "How do I install Footnote on Linux?", search.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAskSampleLibrary measures a whole answer against a fake Ollama
// that streams without delay: retrieval, prompt, streaming, validation, storage.
func BenchmarkAskSampleLibrary(b *testing.B) {
	en := sampleEngine(b)
	if _, err := en.Ingest(context.Background(), []string{sampleLibrary(b)}, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ans, err := en.Ask(context.Background(), rag.Request{ID: "bench", Question: "How do I install Footnote on Linux?"}, nil)
		if err != nil || !ans.Grounded {
			b.Fatalf("ask: %v grounded=%v", err, ans.Grounded)
		}
	}
}
