package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

type event struct {
	name    string
	payload any
}

// recorder is the test Emitter: it never touches Wails' runtime.
type recorder struct {
	mu     sync.Mutex
	events []event
	signal chan struct{}
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 1000)} }

func (r *recorder) Emit(name string, payload any) {
	r.mu.Lock()
	r.events = append(r.events, event{name, payload})
	r.mu.Unlock()
	r.signal <- struct{}{}
}

func (r *recorder) waitFor(t *testing.T, name, requestID string) event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		for _, e := range r.events {
			if e.name == name && requestOf(e.payload) == requestID {
				r.mu.Unlock()
				return e
			}
		}
		r.mu.Unlock()
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatalf("no %s event for %s", name, requestID)
		}
	}
}

func requestOf(p any) string {
	switch v := p.(type) {
	case tokenEvent:
		return v.RequestID
	case startEvent:
		return v.RequestID
	case doneEvent:
		return v.RequestID
	case errorEvent:
		return v.RequestID
	}
	return ""
}

func (r *recorder) count(name, requestID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.name == name && requestOf(e.payload) == requestID {
			n++
		}
	}
	return n
}

func newTestApp(t *testing.T, fake *ollamafake.Server) (*App, *recorder, string) {
	t.Helper()
	emb, err := embed.Load(context.Background(), embedtest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{Home: t.TempDir(), Settings: config.Defaults()}
	cfg.Settings.OllamaHost, cfg.Settings.LLMModel = fake.URL(), ollamafake.DefaultModel
	en, err := engine.New(cfg, engine.WithEmbedder(emb))
	if err != nil {
		t.Fatal(err)
	}
	lib := t.TempDir()
	body := "# Guide\n\n## Linux\n\nTo install on Linux, download the AppImage and run it. It needs WebKitGTK.\n"
	if err := os.WriteFile(filepath.Join(lib, "guide.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	a := New(en, rec, nil)
	t.Cleanup(func() { Shutdown(a) })
	return a, rec, lib
}

func TestAskStreamsTaggedEvents(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(2 * time.Millisecond))
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	sum, err := a.Ingest([]string{lib})
	if err != nil || sum.FilesIndexed != 1 {
		t.Fatalf("ingest: %v %+v", err, sum)
	}
	if rec.count(EventIngestProgress, "") == 0 {
		t.Error("no ingest progress events")
	}
	st := a.Status()
	if !st.Ready || st.Documents != 1 || st.Chunks == 0 || st.OllamaError != "" {
		t.Errorf("status: %+v", st)
	}
	docs, err := a.Documents()
	if err != nil || len(docs) != 1 || docs[0].Title != "Guide" {
		t.Errorf("documents: %v %+v", err, docs)
	}

	id, err := a.Ask("How do I install on Linux?")
	if err != nil || !strings.HasPrefix(id, "req-") {
		t.Fatalf("ask: %q %v", id, err)
	}
	rec.waitFor(t, EventAnswerStart, id)
	done := rec.waitFor(t, EventAnswerDone, id).payload.(doneEvent)
	if !done.Answer.Grounded || len(done.Answer.Citations) == 0 {
		t.Fatalf("answer not grounded: %+v", done.Answer)
	}
	if n := rec.count(EventAnswerToken, id); n < 3 {
		t.Errorf("want tokens streamed as events, got %d", n)
	}
}

func TestStopCancelsGeneration(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(200 * time.Millisecond))
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	id, _ := a.Ask("How do I install on Linux?")
	rec.waitFor(t, EventAnswerToken, id)
	a.Stop(id)
	done := rec.waitFor(t, EventAnswerDone, id).payload.(doneEvent)
	if !done.Answer.Stopped {
		t.Fatalf("want a stopped answer, got %+v", done.Answer)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := fake.WaitCancelled(ctx, 1); err != nil {
		t.Fatalf("the request was not cancelled at the server: %v", err)
	}
}

func TestAskWithOllamaDownSaysWhatToDo(t *testing.T) {
	fake := ollamafake.New()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	fake.Close()
	// The question still gets the passages that match, with the note
	// saying what to start.
	id, _ := a.Ask("How do I install on Linux?")
	done := rec.waitFor(t, EventAnswerDone, id).payload.(doneEvent)
	ans := done.Answer
	if ans.RefusalReason == nil || *ans.RefusalReason != "no_answer_model" || ans.Grounded || len(ans.Citations) == 0 {
		t.Fatalf("want the passages answer, got reason %v grounded %v citations %d", ans.RefusalReason, ans.Grounded, len(ans.Citations))
	}
	if !strings.Contains(ans.Error, "No answer model is running") || !strings.Contains(ans.Error, "not reachable") || !strings.Contains(ans.Error, "ollama serve") {
		t.Fatalf("want the notice and the unreachable sentence with its fix, got %q", ans.Error)
	}
	if st := a.Status(); !strings.Contains(st.OllamaError, "not reachable") {
		t.Errorf("status should say Ollama is not reachable, got %q", st.OllamaError)
	}
}
