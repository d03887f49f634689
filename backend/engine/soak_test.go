package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

// TestIngestWhileAsking re-indexes a changing folder while questions are
// asked back to back, then closes the engine mid-generation: no question
// may see SQLITE_BUSY ("database is locked"), nothing deadlocks, and no
// goroutine outlives the engine. FOOTNOTE_SOAK_SECONDS lengthens the run
// (default 3 s; the minute is FOOTNOTE_SOAK_SECONDS=60).
func TestIngestWhileAsking(t *testing.T) {
	secs := 3
	if v, err := strconv.Atoi(os.Getenv("FOOTNOTE_SOAK_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	before := runtime.NumGoroutine()
	fake := ollamafake.New()
	defer fake.Close()
	en := faultEngine(t, fake.URL(), nil)
	lib := t.TempDir()
	// The run ends by deadline between operations, not by cancelling them:
	// cancelling an embedding mid-batch is a separate case (see report).
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs)*time.Second)
	defer cancel()
	work := context.Background()

	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	var asked, ingests int
	note := func(s string) { mu.Lock(); problems = append(problems, s); mu.Unlock() }
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			body := fmt.Sprintf("# Linux %d\n\nTo install on Linux, download the AppImage (revision %d).\n", i, i)
			if err := os.WriteFile(filepath.Join(lib, fmt.Sprintf("f%d.md", i%5)), []byte(body), 0o644); err != nil {
				note(err.Error())
				return
			}
			if _, err := en.Ingest(work, []string{lib}, nil); err != nil {
				note("ingest: " + err.Error())
			}
			mu.Lock()
			ingests++
			mu.Unlock()
		}
	})
	for w := 0; w < 2; w++ {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				_, err := en.Ask(work, rag.Request{ID: fmt.Sprintf("w%d-%d", w, i), Question: "How do I install on Linux?"}, nil)
				if err != nil {
					note("ask: " + err.Error())
				}
				mu.Lock()
				asked++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, p := range problems {
		if strings.Contains(strings.ToLower(p), "locked") || strings.Contains(p, "BUSY") {
			t.Errorf("SQLITE_BUSY reached the caller: %s", p)
		} else {
			t.Errorf("error under load: %s", p)
		}
	}
	if asked == 0 || ingests == 0 {
		t.Fatalf("no work done: %d questions, %d ingests", asked, ingests)
	}

	// Close while a slow answer streams: Close must return and the
	// question must end.
	slow := ollamafake.New(ollamafake.WithTokenDelay(50 * time.Millisecond))
	defer slow.Close()
	en2 := faultEngine(t, slow.URL(), nil)
	done := make(chan error, 1)
	started := make(chan struct{})
	var once sync.Once
	go func() {
		_, err := en2.Ask(context.Background(), rag.Request{ID: "closing", Question: "How do I install on Linux?"},
			sinkFunc(func() { once.Do(func() { close(started) }) }))
		done <- err
	}()
	<-started
	closed := make(chan error, 1)
	go func() { closed <- en2.Close() }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close deadlocked during generation")
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("question never ended after Close")
	}
	en.Close()
	fake.Close()
	slow.Close()
	// Settle: background goroutines (HTTP keep-alives, pools) wind down.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("soak %ds: %d questions, %d ingests, 0 busy errors", secs, asked, ingests)
}

type sinkFunc func()

func (f sinkFunc) Evidence(string, []rag.Citation) {}
func (f sinkFunc) Token(string, string)            { f() }
