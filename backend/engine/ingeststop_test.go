package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/ingest"
)

// markedCounter closes reached the first time it counts the tokens of a
// text holding marker: the file holding it is being chunked.
type markedCounter struct {
	embed.Embedder
	marker  string
	once    sync.Once
	reached chan struct{}
}

func (m *markedCounter) CountTokens(text string) int {
	if strings.Contains(text, m.marker) {
		m.once.Do(func() { close(m.reached) })
	}
	return m.Embedder.CountTokens(text)
}

// TestCloseStopsIngestPromptly: closing the engine (what the app does when
// it quits) while a large file is being chunked returns at once; what was
// indexed is kept and the large file stays queued for the next start.
func TestCloseStopsIngestPromptly(t *testing.T) {
	home, lib := t.TempDir(), t.TempDir()
	write(t, filepath.Join(lib, "a.md"), guide("alpha"))
	var big strings.Builder
	for big.Len() < 4<<20 {
		fmt.Fprintf(&big, "The zeppelin log %d notes wind, height and the crew on watch.\n\n", big.Len())
	}
	write(t, filepath.Join(lib, "big.md"), big.String())
	counter := &markedCounter{Embedder: testEmbedder(t), marker: "zeppelin", reached: make(chan struct{})}
	en, _ := newLibraryEngine(t, home, WithEmbedder(closeless{counter}))
	done := make(chan error, 1)
	go func() {
		_, err := en.Ingest(context.Background(), []string{lib}, nil)
		done <- err
	}()
	select {
	case <-counter.reached:
	case err := <-done:
		t.Fatalf("ingest ended (%v) before chunking the large file", err)
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := en.Close(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if err := <-done; err == nil {
		t.Error("ingest stopped by Close reported success")
	}
	t.Logf("Close returned %v after it was called", took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("Close took %v during chunking, want at most 2s", took)
	}

	again, _ := newLibraryEngine(t, home)
	items, err := again.index().QueueNext(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Path != filepath.Join(lib, "big.md") {
		t.Errorf("queue after Close = %+v, want big.md alone", items)
	}
	if _, found, _ := again.index().StoredDocument(context.Background(), corpus.DocID(filepath.Join(lib, "a.md"))); !found {
		t.Error("a.md, indexed before Close, was lost")
	}
}

// TestSlowFileIsSetAside: a file one of whose reading steps overran its
// time budget is set aside at once: the next runs skip it without reading
// it (no file stalls ingest twice), the library lists it with the reason,
// and Retry reads it again.
func TestSlowFileIsSetAside(t *testing.T) {
	home, lib := t.TempDir(), t.TempDir()
	slow := filepath.Join(lib, "slow.md")
	write(t, filepath.Join(lib, "a.md"), guide("alpha"))
	write(t, slow, guide("omega"))
	var reads atomic.Int32
	stall := true
	real := loadFile
	loadFile = func(ctx context.Context, f ingest.File, data []byte, counter ingest.TokenCounter, opts ingest.Options, now time.Time) (corpus.Document, []string, error) {
		if f.Path == slow {
			reads.Add(1)
			if stall {
				return corpus.Document{}, nil, fmt.Errorf("load %s: splitting took longer than 1m0s, so it was stopped: %w", f.Path, ingest.ErrTooSlow)
			}
		}
		return real(ctx, f, data, counter, opts, now)
	}
	t.Cleanup(func() { loadFile = real })
	en, _ := newLibraryEngine(t, home)
	if _, err := en.AddToCollection(context.Background(), "lib", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := en.Rescan(context.Background(), "lib", nil); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("the slow file was read %d times in two runs, want once", n)
	}
	list, err := en.SetAsideFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Path != slow || !strings.Contains(list[0].Reason, "took longer than") || !strings.Contains(list[0].Reason, "set it aside") {
		t.Fatalf("set-aside list = %+v", list)
	}
	files, err := en.CollectionFiles(context.Background(), "lib")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == slow && (f.Status != FileFailed || !f.SetAside || strings.Contains(f.Reason, "load "+slow)) {
			t.Errorf("library row of the slow file = %+v", f)
		}
	}

	stall = false
	sum, err := en.Retry(context.Background(), slow, nil)
	if err != nil || sum.FilesIndexed != 1 {
		t.Fatalf("retry: %+v, %v", sum, err)
	}
	if list, _ := en.SetAsideFiles(context.Background()); len(list) != 0 {
		t.Errorf("still set aside after a successful retry: %+v", list)
	}
	if _, err := en.Retry(context.Background(), slow, nil); !errors.Is(err, ErrNotSetAside) {
		t.Errorf("retrying a file not set aside: %v", err)
	}
	if _, found, _ := en.index().StoredDocument(context.Background(), corpus.DocID(slow)); !found {
		t.Error("the retried file is not indexed")
	}
	for _, f := range mustFiles(t, en, "lib") {
		if f.Path == slow && (f.Status != FileIndexed || f.SetAside) {
			t.Errorf("library row after the retry = %+v", f)
		}
	}
}

func mustFiles(t *testing.T, en *Engine, col string) []FileStatus {
	t.Helper()
	files, err := en.CollectionFiles(context.Background(), col)
	if err != nil {
		t.Fatal(err)
	}
	return files
}
