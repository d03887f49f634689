package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// startedSink records tokens and signals the first one.
type startedSink struct {
	tokens
	once    sync.Once
	started chan struct{}
}

func (s *startedSink) Token(id, tok string) {
	s.tokens.Token(id, tok)
	s.once.Do(func() { close(s.started) })
}

// TestCloseDuringGeneration closes the engine while a question is waiting
// for its first token and while it streams: Close returns promptly without
// error, the question ends as stopped and is stored exactly once — with the
// text that had arrived, marked incomplete, or without text when none had —
// later calls fail with one sentence instead of touching a closed index, no
// file in the data folder stays open, and no goroutine is left behind.
func TestCloseDuringGeneration(t *testing.T) {
	long := ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: ollamafake.Words(strings.Repeat("To install on Linux download the AppImage [#1]. ", 40))}
	})
	cases := []struct {
		name   string
		opts   []ollamafake.Option
		tokens int // close after this many tokens (0: before the first)
	}{
		{name: "waiting for the first token", opts: []ollamafake.Option{long, ollamafake.WithFirstTokenStall(time.Minute)}},
		{name: "after one token", opts: []ollamafake.Option{long, ollamafake.WithTokenDelay(20 * time.Millisecond)}, tokens: 1},
		{name: "mid-stream", opts: []ollamafake.Option{long, ollamafake.WithTokenDelay(5 * time.Millisecond)}, tokens: 25},
	}
	before := runtime.NumGoroutine()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := ollamafake.New(tc.opts...)
			defer fake.Close()
			en := faultEngine(t, fake.URL(), nil)
			home := en.Config().Home
			sink := &startedSink{started: make(chan struct{})}
			type result struct {
				ans rag.Answer
				err error
			}
			done := make(chan result, 1)
			go func() {
				ans, err := en.Ask(context.Background(), rag.Request{ID: "closing", Question: question}, sink)
				done <- result{ans, err}
			}()
			if tc.tokens == 0 {
				waitFor(t, "the request to reach the model", func() bool { return len(fake.Requests()) > 0 })
			} else {
				waitFor(t, "tokens to stream", func() bool {
					sink.mu.Lock()
					defer sink.mu.Unlock()
					return len(sink.got) >= tc.tokens
				})
			}

			closed := make(chan error, 1)
			go func() { closed <- en.Close() }()
			select {
			case err := <-closed:
				if err != nil {
					t.Errorf("Close during generation: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Close deadlocked during generation")
			}
			// Close waits for the question, so its result is already there.
			var r result
			select {
			case r = <-done:
			default:
				t.Fatal("Close returned before the question in flight ended")
			}
			if r.err != nil || !r.ans.Stopped || r.ans.Grounded {
				t.Errorf("question cut by Close: err %v, stopped %v, grounded %v", r.err, r.ans.Stopped, r.ans.Grounded)
			}
			streamed := strings.Join(sink.got, "")
			if r.ans.Answer != streamed || r.ans.Incomplete != (streamed != "") {
				t.Errorf("answer %q (incomplete %v), streamed %q", r.ans.Answer, r.ans.Incomplete, streamed)
			}

			// After Close: one clear sentence, never a closed-database error.
			if _, err := en.Ask(context.Background(), rag.Request{ID: "late", Question: question}, nil); !errors.Is(err, store.ErrClosed) {
				t.Errorf("Ask after Close: %v", err)
			} else if strings.Contains(err.Error(), "sql:") || strings.Contains(err.Error(), "\n") {
				t.Errorf("Ask after Close is not one sentence: %q", err)
			}
			if _, err := en.Search(context.Background(), "install", searchOpts()); !errors.Is(err, store.ErrClosed) {
				t.Errorf("Search after Close: %v", err)
			}
			if _, err := en.Ingest(context.Background(), []string{writeLibrary(t)}, nil); !errors.Is(err, store.ErrClosed) {
				t.Errorf("Ingest after Close: %v", err)
			}
			if err := en.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if open := openFilesUnder(t, home); len(open) > 0 {
				t.Errorf("files in the data folder still open after Close: %v", open)
			}

			// The stored answer is the one the caller got, stored once.
			st, err := store.Open(filepath.Join(home, "footnote.db"), store.Options{Dim: testEmbedder(t).Info().Dim})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			checkConsistent(t, st)
			recs, err := st.Answers(context.Background(), 0)
			if err != nil || len(recs) != 1 {
				t.Fatalf("stored answers: %d (%v), want exactly 1", len(recs), err)
			}
			stored, err := rag.FromRecord(recs[0])
			if err != nil {
				t.Fatal(err)
			}
			if stored.ID != r.ans.ID || stored.Answer != r.ans.Answer || !stored.Stopped || stored.Incomplete != r.ans.Incomplete {
				t.Errorf("stored %q stopped=%v incomplete=%v; returned %q incomplete=%v",
					stored.Answer, stored.Stopped, stored.Incomplete, r.ans.Answer, r.ans.Incomplete)
			}
			traces, err := st.Traces(context.Background(), "closing")
			if err != nil || len(traces) == 0 {
				t.Errorf("audit rows of the stopped question: %d, %v", len(traces), err)
			}
			log, err := os.ReadFile(filepath.Join(home, provenance.AuditFileName))
			if err != nil || !strings.Contains(string(log), "qid=closing") {
				t.Errorf("audit log lacks the stopped question: %v", err)
			}
		})
	}
	// Let HTTP keep-alive and pool goroutines wind down.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// openFilesUnder lists this process's open files inside dir (Linux, via
// /proc/self/fd; elsewhere nothing can be listed and none are reported).
func openFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		return nil
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && (strings.HasPrefix(target, dir+"/") || strings.HasPrefix(target, real+"/")) {
			open = append(open, target)
		}
	}
	return open
}
