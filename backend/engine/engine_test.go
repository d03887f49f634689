package engine

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
)

// countingEmbedder counts passages embedded, to prove unchanged files cost
// no embedding work.
type countingEmbedder struct {
	embed.Embedder
	mu       sync.Mutex
	passages int
	queries  int
}

func (c *countingEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	c.mu.Lock()
	c.queries++
	c.mu.Unlock()
	return c.Embedder.EmbedQuery(ctx, text)
}

func (c *countingEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.passages += len(texts)
	c.mu.Unlock()
	return c.Embedder.EmbedPassages(ctx, texts)
}

func writeLibrary(t *testing.T) string {
	t.Helper()
	return writeFiles(t, map[string]string{
		"install.md": "# Installing\n\nGeneral notes.\n\n## Linux\n\nTo install on Linux, download the AppImage and make it executable.\n\n## Windows\n\nOn Windows, run the installer program.\n",
		"notes.txt":  "Footnote keeps the index in one SQLite file named footnote.db.\n",
		"image.png":  "\x89PNG\r\n\x1a\n\x00\x00",
		"bad.md":     "caf\xc3( is not UTF-8\n", // a cut UTF-8 sequence: no charset reads it
	})
}

// writeFiles writes name → body into a new temporary folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newTestEngine(t *testing.T, ollamaHost string) (*Engine, *countingEmbedder) {
	t.Helper()
	counting := &countingEmbedder{Embedder: loadTestEmbedder(t)}
	return newEngineWith(t, ollamaHost, nil, WithEmbedder(counting)), counting
}

func loadTestEmbedder(t *testing.T) embed.Embedder {
	t.Helper()
	emb, err := embed.Load(context.Background(), embedtest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

// newEngineWith opens an engine on a new data folder answering through the
// fake Ollama at ollamaHost, with configure (if any) applied to the
// default settings; it is closed when the test ends.
func newEngineWith(t *testing.T, ollamaHost string, configure func(*config.Settings), opts ...Option) *Engine {
	t.Helper()
	cfg := config.Config{Home: t.TempDir(), Settings: config.Defaults()}
	cfg.Settings.OllamaHost = ollamaHost
	cfg.Settings.LLMModel = ollamafake.DefaultModel
	if configure != nil {
		configure(&cfg.Settings)
	}
	en, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { en.Close() })
	return en
}

type tokens struct {
	mu  sync.Mutex
	got []string
}

func (s *tokens) Evidence(string, []rag.Citation) {}
func (s *tokens) Token(_ string, tok string)      { s.mu.Lock(); s.got = append(s.got, tok); s.mu.Unlock() }

func TestIngestSearchAskEndToEnd(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, counter := newTestEngine(t, fake.URL())
	ctx := context.Background()
	lib := writeLibrary(t)

	var progress []Progress
	sum, err := en.Ingest(ctx, []string{lib}, func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 2 || sum.FilesFailed != 1 || sum.FilesSkipped != 1 || sum.FilesSeen != 4 {
		t.Fatalf("summary: %+v", sum)
	}
	if len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Path, "bad.md") || !strings.Contains(sum.Errors[0].Error, "UTF-8") {
		t.Errorf("bad file not reported with its name and cause: %+v", sum.Errors)
	}
	if last := progress[len(progress)-1]; !last.Done || last.FilesDone != 3 || last.FilesTotal != 3 {
		t.Errorf("final progress: %+v", last)
	}
	embedded := counter.passages
	if embedded != sum.ChunksEmbedded || embedded == 0 {
		t.Fatalf("embedded %d passages, summary says %d", embedded, sum.ChunksEmbedded)
	}

	again, err := en.Ingest(ctx, []string{lib}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.FilesUnchanged != 2 || again.FilesIndexed != 0 || counter.passages != embedded {
		t.Fatalf("re-ingest of unchanged files embedded %d more passages: %+v", counter.passages-embedded, again)
	}

	res, err := en.Search(ctx, "install Linux AppImage", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].SectionID != "install/installing/linux" {
		t.Fatalf("top hit should be the Linux section, got %+v", res.Hits)
	}
	top := res.Hits[0]
	if top.ScoreNorm <= 0 || top.ScoreNorm > 1 || len(top.Explain) == 0 {
		t.Errorf("score/explain: %v %+v", top.ScoreNorm, top.Explain)
	}
	_, text, err := en.index().Document(ctx, top.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if got := string([]rune(text)[top.Offsets.Start:top.Offsets.End]); got != top.Text {
		t.Fatalf("offsets do not reproduce the chunk: %q vs %q", got, top.Text)
	}

	sink := &tokens{}
	ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: "How do I install on Linux?"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Grounded || len(ans.Citations) == 0 {
		t.Fatalf("want a grounded answer with citations, got %+v", ans)
	}
	if len(sink.got) < 3 || strings.Join(sink.got, "") != ans.Answer {
		t.Errorf("tokens not streamed: %d tokens for %q", len(sink.got), ans.Answer)
	}
	c := ans.Citations[0]
	if !strings.HasPrefix(c.SourceURL, "file://") || c.EmbedModel == "" || c.Rev == "" || c.Offsets.Unit != "char" {
		t.Errorf("citation payload incomplete: %+v", c)
	}
	stored, err := en.index().Answers(ctx, 10)
	if err != nil || len(stored) != 1 || !stored[0].Grounded {
		t.Fatalf("answer not stored: %v %+v", err, stored)
	}
}

func TestCheckLLMSaysWhatToDo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	en, _ := newTestEngine(t, closed)
	err = en.CheckLLM(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not reachable") || !strings.Contains(err.Error(), "ollama serve") {
		t.Fatalf("want an unreachable sentence with the fix, got %v", err)
	}

	fake := ollamafake.New()
	defer fake.Close()
	en2, _ := newTestEngine(t, fake.URL())
	en2.cfg.Settings.LLMModel = "no-such-model"
	err = en2.CheckLLM(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ollama pull no-such-model") {
		t.Fatalf("want a missing-model sentence with the fix, got %v", err)
	}
}

func TestSettingsHashChangesWithInputs(t *testing.T) {
	a := SettingsHash("m1/mean+l2", "fts5", "chunk=200", 1)
	if a != SettingsHash("m1/mean+l2", "fts5", "chunk=200", 1) {
		t.Fatal("index hash must be deterministic")
	}
	for _, b := range []string{
		SettingsHash("m2/mean+l2", "fts5", "chunk=200", 1),
		SettingsHash("m1/mean+l2", "trigram", "chunk=200", 1),
		SettingsHash("m1/mean+l2", "fts5", "chunk=300", 1),
		SettingsHash("m1/mean+l2", "fts5", "chunk=200", 2),
	} {
		if a == b {
			t.Fatal("index hash must change with model, analyzer, chunking and schema")
		}
	}
}

// ingestedEngine is a test engine over writeLibrary's files, answering
// through a fake Ollama (closed when the test ends); it returns the library
// folder too.
func ingestedEngine(t *testing.T, opts ...ollamafake.Option) (*Engine, *ollamafake.Server, string) {
	t.Helper()
	fake := ollamafake.New(opts...)
	t.Cleanup(fake.Close)
	en, _ := newTestEngine(t, fake.URL())
	lib := writeLibrary(t)
	if _, err := en.Ingest(context.Background(), []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	return en, fake, lib
}
