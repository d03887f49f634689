package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

// faultEngine is newTestEngine with settings adjusted and the library
// already indexed.
func faultEngine(t *testing.T, host string, adjust func(*config.Settings)) *Engine {
	t.Helper()
	en := newEngineWith(t, host, adjust, WithEmbedder(loadTestEmbedder(t)))
	sum, err := en.Ingest(context.Background(), []string{writeLibrary(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// writeLibrary holds two good files; a fault case means nothing if the
	// library did not index (a question would be refused for no evidence).
	if sum.FilesIndexed != 2 {
		t.Fatalf("library not indexed: %+v", sum)
	}
	return en
}

// serve runs handler on a loopback port until the test ends.
func serve(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
	})
	return "http://" + ln.Addr().String()
}

// chatOnly answers /api/chat with fn and 404s everything else (so the
// context-window lookup fails and defaults apply, as with old servers).
func chatOnly(fn func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		fn(w, r)
	}
}

func ndjsonToken(w http.ResponseWriter, tok string) {
	b, _ := json.Marshal(map[string]any{"model": ollamafake.DefaultModel, "message": map[string]string{"role": "assistant", "content": tok}, "done": false})
	w.Write(append(b, '\n'))
	w.(http.Flusher).Flush()
}

const question = "How do I install on Linux?"

// TestOllamaFaultsEndToEnd injects each Ollama failure under a real engine:
// every one yields one clear sentence, a stored answer (partial text kept
// and marked incomplete when tokens had arrived), and an engine that still
// searches and answers afterwards.
func TestOllamaFaultsEndToEnd(t *testing.T) {
	closedPort := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}
	refusing := func(t *testing.T) string {
		// Accepts connections and closes them at once, sending nothing.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		return "http://" + ln.Addr().String()
	}
	fake := func(t *testing.T, opts ...ollamafake.Option) string {
		f := ollamafake.New(opts...)
		t.Cleanup(f.Close)
		return f.URL()
	}
	cases := []struct {
		name    string
		host    func(t *testing.T) string
		adjust  func(*config.Settings)
		cancel  time.Duration // >0: the user stops after this long
		says    string        // fragment of the user-facing message
		partial bool          // tokens arrived before the fault
		// passages: no model can answer, so the matching passages are the answer
		passages bool
	}{
		{name: "not running", host: func(*testing.T) string { return closedPort() }, says: "not reachable", passages: true},
		{name: "refusing", host: refusing, says: "Ollama"},
		{name: "slow first token", host: func(t *testing.T) string { return fake(t, ollamafake.WithFirstTokenStall(time.Minute)) },
			adjust: func(s *config.Settings) { s.FirstTokenTimeoutS = 1 }, says: "did not start answering in time"},
		{name: "stalls mid-stream, idle timeout", host: func(t *testing.T) string { return fake(t, ollamafake.WithStallAfter(3, time.Minute)) },
			adjust: func(s *config.Settings) { s.StreamIdleTimeoutS = 1 }, says: "stopped sending the answer partway", partial: true},
		{name: "disconnects mid-stream", host: func(t *testing.T) string { return fake(t, ollamafake.WithTruncateAfter(3)) }, says: "connection was cut", partial: true},
		{name: "malformed NDJSON", host: func(t *testing.T) string { return fake(t, ollamafake.WithMalformedLineAfter(3)) }, says: "could not read", partial: true},
		{name: "error inside stream", host: func(t *testing.T) string { return fake(t, ollamafake.WithErrorAfter(2, "runner crashed")) }, says: "runner crashed", partial: true},
		{name: "404 body", host: func(t *testing.T) string {
			return serve(t, chatOnly(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"error":"model \"x\" not found, try pulling it first"}`))
			}))
		}, says: "not installed", passages: true},
		{name: "400 body", host: func(t *testing.T) string {
			return serve(t, chatOnly(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error":"invalid options"}`))
			}))
		}, says: "invalid options"},
		{name: "500 html body", host: func(t *testing.T) string {
			return serve(t, chatOnly(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte("<html><body><script>alert(1)</script>Internal Server Error</body></html>"))
			}))
		}, says: "Internal Server Error"},
		{name: "503 empty body", host: func(t *testing.T) string {
			return serve(t, chatOnly(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
		}, says: "503"},
		{name: "stalls mid-stream, user stops", cancel: 300 * time.Millisecond, host: func(t *testing.T) string {
			return serve(t, chatOnly(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				ndjsonToken(w, "To install ")
				ndjsonToken(w, "on Linux")
				<-r.Context().Done()
			}))
		}, partial: true},
		{name: "huge NDJSON line", host: func(t *testing.T) string {
			return serve(t, chatOnly(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				ndjsonToken(w, "Partial ")
				ndjsonToken(w, strings.Repeat("A", 3<<20))
			}))
		}, says: "Ollama", partial: true},
		{name: "huge streamed answer", host: func(t *testing.T) string {
			return serve(t, chatOnly(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				chunk := strings.Repeat("word ", 2000)
				for i := 0; i < 200 && r.Context().Err() == nil; i++ { // about 2 MB
					ndjsonToken(w, chunk)
				}
				w.Write([]byte(`{"model":"x","message":{"role":"assistant","content":""},"done":true,"done_reason":"length"}` + "\n"))
			}))
		}},
	}
	faults := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			en := faultEngine(t, tc.host(t), tc.adjust)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			askCtx := ctx
			if tc.cancel > 0 {
				// Stop is a cancel (as the app's Stop button), not a deadline.
				var stop context.CancelFunc
				askCtx, stop = context.WithCancel(ctx)
				defer time.AfterFunc(tc.cancel, stop).Stop()
			}
			sink := &tokens{}
			start := time.Now()
			ans, err := en.Ask(askCtx, rag.Request{ID: "q1", Question: question}, sink)
			if time.Since(start) > 20*time.Second {
				t.Errorf("fault took %v to surface", time.Since(start))
			}
			faults++
			switch {
			case tc.cancel > 0:
				if !ans.Stopped {
					t.Errorf("stalled answer not marked stopped: %+v (err %v)", ans, err)
				}
			case tc.passages:
				// No model can answer: the passages that match are the
				// answer, and its note says what to do.
				if err != nil || ans.RefusalReason == nil || *ans.RefusalReason != rag.RefusalNoModel || ans.Grounded ||
					len(ans.Citations) == 0 || !strings.Contains(ans.Error, tc.says) {
					t.Errorf("want the passages answer saying %q, got err %v reason %v note %q", tc.says, err, ans.RefusalReason, ans.Error)
				}
			case tc.says == "":
				if err != nil {
					t.Errorf("unexpected error: %v", err)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), tc.says) {
					t.Errorf("error %v should say %q", err, tc.says)
				}
				if err != nil && (strings.Contains(err.Error(), "<script") || strings.Count(err.Error(), "\n") > 0) {
					t.Errorf("error is not one clean sentence: %q", err)
				}
				if ans.RefusalReason == nil || *ans.RefusalReason != rag.RefusalLLMError || ans.Grounded {
					t.Errorf("failed answer recorded as %+v", ans.RefusalReason)
				}
			}
			rec, found, lerr := en.index().AnswerByID(context.Background(), ans.ID)
			if lerr != nil || !found {
				t.Fatalf("answer %q not stored: %v", ans.ID, lerr)
			}
			stored, ferr := rag.FromRecord(rec)
			if ferr != nil {
				t.Fatal(ferr)
			}
			got := strings.Join(sink.got, "")
			if tc.partial {
				if got == "" || stored.Answer != got {
					t.Errorf("partial text lost: streamed %d bytes, stored %d", len(got), len(stored.Answer))
				}
				if !stored.Incomplete {
					t.Errorf("stored answer with partial text not marked incomplete")
				}
			}
			if !tc.partial && tc.says != "" && stored.Incomplete {
				t.Errorf("answer without tokens marked incomplete")
			}
			// Still responsive: search answers at once.
			sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer scancel()
			if res, err := en.Search(sctx, "install Linux", searchOpts()); err != nil || len(res.Hits) == 0 {
				t.Errorf("engine unresponsive after the fault: %v", err)
			}
		})
	}
	t.Logf("ollama faults injected: %d", faults)
}

// TestAskAfterOllamaReturns proves recovery: a failed question does not
// poison later ones once Ollama is back.
func TestAskAfterOllamaReturns(t *testing.T) {
	var mu sync.Mutex
	down := true
	f := ollamafake.New()
	defer f.Close()
	host := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := down
		mu.Unlock()
		if d {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		f.ServeHTTP(w, r)
	})
	en := faultEngine(t, host, nil)
	ctx := context.Background()
	if _, err := en.Ask(ctx, rag.Request{ID: "a", Question: question}, nil); err == nil {
		t.Fatal("want an error while Ollama is down")
	}
	mu.Lock()
	down = false
	mu.Unlock()
	ans, err := en.Ask(ctx, rag.Request{ID: "b", Question: question}, nil)
	if err != nil || !ans.Grounded {
		t.Fatalf("after Ollama came back: %v %+v", err, ans.RefusalReason)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatal(fmt.Sprint(err))
	}
}
