package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

// workCounter counts embedding and tokenizer work: chunking counts tokens,
// so an unchanged file that is not parsed leaves tokenCalls alone.
type workCounter struct {
	embed.Embedder
	passages   atomic.Int64
	tokenCalls atomic.Int64
}

func (c *workCounter) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	c.passages.Add(int64(len(texts)))
	return c.Embedder.EmbedPassages(ctx, texts)
}

func (c *workCounter) CountTokens(text string) int {
	c.tokenCalls.Add(1)
	return c.Embedder.CountTokens(text)
}

var sharedEmbedder embed.Embedder

func testEmbedder(t testing.TB) embed.Embedder {
	t.Helper()
	if sharedEmbedder == nil {
		emb, err := embed.Load(context.Background(), embedtest.Dir(t))
		if err != nil {
			t.Fatal(err)
		}
		sharedEmbedder = emb
	}
	return sharedEmbedder
}

func newLibraryEngine(t testing.TB, home string, opts ...Option) (*Engine, *workCounter) {
	t.Helper()
	counter := &workCounter{Embedder: testEmbedder(t)}
	cfg := config.Config{Home: home, Settings: config.Defaults()}
	cfg.Settings.ChunkTokens = 32 // several chunks per section with the tiny model
	cfg.Settings.OverlapTokens = 4
	en, err := New(cfg, append([]Option{WithEmbedder(closeless{counter})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { en.Close() })
	if err := en.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	return en, counter
}

// closeless keeps the shared model open when an engine closes.
type closeless struct{ embed.Embedder }

func (closeless) Close() error { return nil }

func write(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func section(title string, words ...string) string {
	var b strings.Builder
	b.WriteString("## " + title + "\n\n")
	for i := 0; i < 40; i++ {
		b.WriteString(words[i%len(words)] + " ")
	}
	b.WriteString("\n\n")
	return b.String()
}

func guide(middle string) string {
	return "# Guide\n\n" + section("Install", "install", "linux", "download", "package") +
		section("Usage", middle, "search", "question", "answer") +
		section("Backup", "backup", "copy", "folder", "restore")
}

// checkConsistent asserts that chunks, the full-text index and the vector
// index hold the same rows and that every chunk's text is its document's
// text at its offsets (no document half at one revision).
func checkConsistent(t testing.TB, st *store.Store) store.IndexCounts {
	t.Helper()
	ctx := context.Background()
	c, err := st.CountIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Chunks != c.FTS || c.Chunks != c.Vectors {
		t.Fatalf("chunk indexes disagree: %+v", c)
	}
	docs, err := st.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, d := range docs {
		total += d.Chunks
	}
	if total != c.Chunks || len(docs) != c.Documents {
		t.Fatalf("documents list %d docs / %d chunks, index counts %+v", len(docs), total, c)
	}
	return c
}

func TestCollectionRescanEditDeleteRename(t *testing.T) {
	ctx := context.Background()
	en, counter := newLibraryEngine(t, t.TempDir())
	lib := t.TempDir()
	write(t, filepath.Join(lib, "guide.md"), guide("query"))
	write(t, filepath.Join(lib, "sub", "notes.txt"), "Footnote keeps its index in one SQLite file.\n")
	write(t, filepath.Join(lib, "sub", "other.md"), "# Other\n\nAnother document about gardening and tomatoes.\n")
	write(t, filepath.Join(lib, "photo.png"), "\x89PNG\x00")

	var last Progress
	sum, err := en.AddToCollection(ctx, "work", []string{lib}, func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 3 || sum.FilesSkipped != 1 || sum.FilesFailed != 0 {
		t.Fatalf("first scan: %+v", sum)
	}
	if !last.Done || last.FilesDone != 3 || last.FilesTotal != 3 || last.Collection != "work" || last.FilesPerSec <= 0 {
		t.Fatalf("final progress: %+v", last)
	}
	first := checkConsistent(t, en.index())
	if int(counter.passages.Load()) != first.Chunks || sum.ChunksEmbedded != first.Chunks {
		t.Fatalf("embedded %d passages for %d chunks (summary %d)", counter.passages.Load(), first.Chunks, sum.ChunksEmbedded)
	}
	cols, err := en.Collections(ctx)
	if err != nil || len(cols) != 1 || cols[0].Name != "work" || cols[0].Documents != 3 || cols[0].Paths[0] != lib {
		t.Fatalf("collections: %+v, %v", cols, err)
	}
	docs, _ := en.index().Documents(ctx)
	for _, d := range docs {
		if d.Collection != "work" {
			t.Errorf("%s is in collection %q, want work", d.Path, d.Collection)
		}
	}

	// No change: zero embeddings and zero parsing.
	counter.passages.Store(0)
	counter.tokenCalls.Store(0)
	sum, err = en.Rescan(ctx, "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesUnchanged != 3 || sum.FilesIndexed != 0 || counter.passages.Load() != 0 || counter.tokenCalls.Load() != 0 {
		t.Fatalf("rescan without changes did work: %+v, %d passages, %d token counts", sum, counter.passages.Load(), counter.tokenCalls.Load())
	}

	// Edit one section: only that section's chunks are embedded again.
	guideChunks := chunksOf(t, en, filepath.Join(lib, "guide.md"))
	write(t, filepath.Join(lib, "guide.md"), guide("retrieval"))
	sum, err = en.Rescan(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 1 || sum.FilesUnchanged != 2 {
		t.Fatalf("rescan after edit: %+v", sum)
	}
	if sum.ChunksEmbedded == 0 || sum.ChunksReused == 0 || int(counter.passages.Load()) != sum.ChunksEmbedded ||
		sum.ChunksEmbedded >= guideChunks {
		t.Fatalf("edit of one section re-embedded %d of %d chunks (reused %d)", sum.ChunksEmbedded, guideChunks, sum.ChunksReused)
	}
	checkConsistent(t, en.index())

	// Delete: the document leaves chunks, FTS5 and vec0.
	before := checkConsistent(t, en.index())
	otherChunks := chunksOf(t, en, filepath.Join(lib, "sub", "other.md"))
	os.Remove(filepath.Join(lib, "sub", "other.md"))
	sum, err = en.Rescan(ctx, "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	after := checkConsistent(t, en.index())
	if sum.FilesDeleted != 1 || after.Documents != before.Documents-1 || after.Chunks != before.Chunks-otherChunks {
		t.Fatalf("delete: %+v, before %+v, after %+v", sum, before, after)
	}
	res, err := en.Search(ctx, "gardening tomatoes", searchLexical())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if strings.Contains(h.Text, "tomatoes") {
			t.Fatalf("deleted document still found: %+v", h)
		}
	}

	// Rename: a delete plus an add whose vectors all come from the old path.
	counter.passages.Store(0)
	if err := os.Rename(filepath.Join(lib, "guide.md"), filepath.Join(lib, "sub", "manual.md")); err != nil {
		t.Fatal(err)
	}
	sum, err = en.Rescan(ctx, "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 1 || sum.FilesDeleted != 1 || sum.ChunksEmbedded != 0 || counter.passages.Load() != 0 || sum.ChunksReused == 0 {
		t.Fatalf("rename re-embedded: %+v (%d passages)", sum, counter.passages.Load())
	}
	if n := chunksOf(t, en, filepath.Join(lib, "guide.md")); n != 0 {
		t.Fatalf("old path still has %d chunks", n)
	}
	checkConsistent(t, en.index())

	// A rescan of an unknown collection says what to do.
	if _, err := en.Rescan(ctx, "nope", nil); err == nil || !strings.Contains(err.Error(), "no collection named") {
		t.Fatalf("unknown collection: %v", err)
	}
	// Removing the collection removes its documents.
	if err := en.RemoveCollection(ctx, "work"); err != nil {
		t.Fatal(err)
	}
	if c := checkConsistent(t, en.index()); c.Documents != 0 || c.Chunks != 0 {
		t.Fatalf("after removing the collection: %+v", c)
	}
}

func chunksOf(t testing.TB, en *Engine, path string) int {
	t.Helper()
	docs, err := en.index().Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Path == path {
			return d.Chunks
		}
	}
	return 0
}

func TestQueueSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	home, lib := t.TempDir(), t.TempDir()
	for i := range 5 {
		write(t, filepath.Join(lib, "f"+string(rune('a'+i))+".md"), guide("item"+string(rune('a'+i))))
	}
	en, _ := newLibraryEngine(t, home)
	// Queue the work but stop before any of it runs, as if the app closed.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	sum := newSummary()
	if err := en.enqueueScan(ctx, en.index(), "", []string{lib}, false, &sum); err != nil {
		t.Fatal(err)
	}
	if _, err := en.ResumeQueue(cancelled, nil); err == nil {
		t.Fatal("a cancelled run should report cancellation")
	}
	en.Close()

	en2, _ := newLibraryEngine(t, home)
	if n, _ := en2.index().QueueLen(ctx); n != 5 {
		t.Fatalf("queue after restart holds %d items, want 5", n)
	}
	got, err := en2.ResumeQueue(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.FilesIndexed != 5 {
		t.Fatalf("resumed run: %+v", got)
	}
	if n, _ := en2.index().QueueLen(ctx); n != 0 {
		t.Fatalf("queue not empty after resume: %d", n)
	}
	checkConsistent(t, en2.index())
}

func TestWatchPicksUpChanges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	en, _ := newLibraryEngine(t, t.TempDir(), WithWatchDebounce(50*time.Millisecond))
	lib := t.TempDir()
	write(t, filepath.Join(lib, "a.md"), guide("alpha"))
	if _, err := en.AddToCollection(ctx, "live", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	batches := make(chan Progress, 100)
	watchDone := make(chan error, 1)
	go func() {
		watchDone <- en.Watch(ctx, func(p Progress) {
			if p.Done {
				batches <- p
			}
		})
	}()
	<-batches // the start-up rescan
	if ws := en.WatchState(ctx); !ws.Watching || len(ws.Roots) != 1 {
		t.Fatalf("watch state: %+v", ws)
	}

	// waitFor waits for finished batches until cond holds or time runs out.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !cond() {
			select {
			case <-batches:
			case <-deadline:
				t.Fatalf("watch did not pick up: %s", what)
			}
		}
	}
	hasDoc := func(path string) func() bool { return func() bool { return chunksOf(t, en, path) > 0 } }

	write(t, filepath.Join(lib, "b.md"), guide("beta"))
	waitFor("new file", hasDoc(filepath.Join(lib, "b.md")))

	write(t, filepath.Join(lib, "deep", "er", "c.txt"), "A new subfolder with a text file about zeppelins.\n")
	waitFor("file in new subfolder", hasDoc(filepath.Join(lib, "deep", "er", "c.txt")))
	write(t, filepath.Join(lib, "deep", "er", "d.txt"), "Created after the subfolder was watched: dirigibles.\n")
	waitFor("later file in new subfolder", hasDoc(filepath.Join(lib, "deep", "er", "d.txt")))

	os.Remove(filepath.Join(lib, "a.md"))
	waitFor("delete", func() bool { return !hasDoc(filepath.Join(lib, "a.md"))() })

	os.Rename(filepath.Join(lib, "b.md"), filepath.Join(lib, "deep", "b2.md"))
	waitFor("rename", func() bool {
		return hasDoc(filepath.Join(lib, "deep", "b2.md"))() && !hasDoc(filepath.Join(lib, "b.md"))()
	})

	info, _ := en.index().Documents(ctx)
	before := info
	write(t, filepath.Join(lib, "deep", "b2.md"), guide("gamma"))
	waitFor("modify", func() bool {
		d, _ := en.index().Documents(ctx)
		for i, x := range d {
			if x.Path == filepath.Join(lib, "deep", "b2.md") {
				for _, y := range before {
					if y.DocID == x.DocID && y.Rev != d[i].Rev {
						return true
					}
				}
			}
		}
		return false
	})
	checkConsistent(t, en.index())
	cancel()
	if err := <-watchDone; err != nil {
		t.Fatal(err)
	}
}

func searchLexical() search.Options { return search.Options{Mode: search.ModeLexical, Limit: 20} }
