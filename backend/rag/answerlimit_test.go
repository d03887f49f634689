package rag

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/llm/openai"
	"github.com/footnote-app/footnote/backend/search"
)

// bodyRecorder serves handler on 127.0.0.1 and keeps every request body it
// received, so tests assert on the wire rather than on what a fake decoded.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (b *bodyRecorder) serve(t *testing.T, handler http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		b.mu.Lock()
		b.bodies = append(b.bodies, body)
		b.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		handler.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// chatBody returns the decoded body of the last chat request.
func (b *bodyRecorder) chatBody(t *testing.T) map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.bodies) - 1; i >= 0; i-- {
		var m map[string]any
		if json.Unmarshal(b.bodies[i], &m) == nil && m["messages"] != nil {
			return m
		}
	}
	t.Fatal("the server received no chat request")
	return nil
}

// providerPipeline builds a pipeline generating through the real client of
// provider ("ollama" or "openai") against the server at url.
func providerPipeline(t *testing.T, provider, url string) (*Pipeline, *memStore) {
	t.Helper()
	st := &memStore{}
	var client llm.LLM
	describe := func(err error) string { return err.Error() }
	switch provider {
	case "ollama":
		host, err := llm.ParseHost(url)
		if err != nil {
			t.Fatal(err)
		}
		c := llm.NewClient(host, nil).WithFirstTokenTimeout(5 * time.Second)
		client, describe = c, func(err error) string { return llm.Describe(err, c.Host(), ollamafake.DefaultModel) }
	case "openai":
		c, err := openai.New(url, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		client, describe = c, func(err error) string { return openai.Describe(err, c.Host(), ollamafake.DefaultModel) }
	}
	p := newPipeline([]search.Hit{hit("a", 0.9, 5), hit("b", 0.8, 5)}, client, st)
	p.Model, p.Provider, p.Seed, p.Describe = ollamafake.DefaultModel, provider, 42, describe
	return p, st
}

// sentLimit is the answer limit a request body carries: options.num_predict
// for Ollama's API, max_tokens for the OpenAI-compatible one.
func sentLimit(provider string, body map[string]any) any {
	if provider == "openai" {
		return body["max_tokens"]
	}
	opts, _ := body["options"].(map[string]any)
	return opts["num_predict"]
}

// checkCutShort asserts the answer and its stored form are marked
// incomplete with the length note, and that Ask did not report a failure.
func checkCutShort(t *testing.T, ans Answer, err error, st *memStore, limit int) {
	t.Helper()
	if err != nil {
		t.Fatalf("a length-limited answer is not a failure, got %v", err)
	}
	if len(st.answers) != 1 {
		t.Fatalf("stored %d answers", len(st.answers))
	}
	stored, ferr := FromRecord(st.answers[0])
	if ferr != nil {
		t.Fatal(ferr)
	}
	for name, a := range map[string]Answer{"returned": ans, "stored": stored} {
		if !a.Incomplete || a.Grounded || a.RefusalReason == nil || *a.RefusalReason != RefusalLengthLimit {
			t.Errorf("%s answer not marked incomplete: incomplete=%v grounded=%v reason=%v", name, a.Incomplete, a.Grounded, a.RefusalReason)
		}
		// One sentence, naming the limit once.
		want := "The answer was cut off at the answer-length limit of " + itoa(limit) + " tokens, so it is incomplete; " +
			"ask a narrower question, or raise max_answer_tokens in Settings."
		if a.Error != want {
			t.Errorf("%s answer note %q, want %q", name, a.Error, want)
		}
	}
	if stored.Answer != ans.Answer || ans.Answer == "" {
		t.Errorf("stored text %q differs from returned %q", stored.Answer, ans.Answer)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestAnswerLimitStopsAServerThatIgnoresIt: a real streaming server that
// ignores num_predict / max_tokens and would stream for ever. The request
// carries the limit, the answer stops at exactly that many tokens, the
// server sees the connection cancelled, and the answer is stored as
// incomplete with the note — for both providers.
func TestAnswerLimitStopsAServerThatIgnoresIt(t *testing.T) {
	const limit = 40
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			fake := ollamafake.New(ollamafake.WithEndlessReply())
			t.Cleanup(fake.Close)
			var rec bodyRecorder
			p, st := providerPipeline(t, provider, rec.serve(t, fake))
			p.MaxAnswerTokens = limit
			sink := &recordingSink{}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ans, err := p.Ask(ctx, Request{ID: "r", Question: "How to install?"}, sink)
			if ctx.Err() != nil {
				t.Fatal("the endless answer was not stopped")
			}
			checkCutShort(t, ans, err, st, limit)
			if got := sentLimit(provider, rec.chatBody(t)); got != float64(limit) {
				t.Errorf("answer limit sent to the server = %v, want %d", got, limit)
			}
			if len(sink.tokens) != limit || strings.Join(sink.tokens, "") != ans.Answer {
				t.Errorf("streamed %d tokens (%d bytes) for a limit of %d; answer %d bytes", len(sink.tokens), len(strings.Join(sink.tokens, "")), limit, len(ans.Answer))
			}
			if !strings.HasSuffix(ans.Answer, ollamafake.EndlessToken) {
				t.Errorf("answer does not end in the server's endless part: %q", ans.Answer)
			}
			wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer wcancel()
			if err := fake.WaitCancelled(wctx, 1); err != nil {
				t.Fatalf("the server did not see the request cancelled: %v", err)
			}
		})
	}
}

// TestServerLengthStopIsIncomplete: a server that honours the limit ends
// with done_reason / finish_reason "length"; that answer is incomplete too.
func TestServerLengthStopIsIncomplete(t *testing.T) {
	const limit = 20
	long := ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: ollamafake.Words(strings.Repeat("Install it from the releases page [#1]. ", 20))}
	})
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			fake := ollamafake.New(long)
			t.Cleanup(fake.Close)
			var rec bodyRecorder
			p, st := providerPipeline(t, provider, rec.serve(t, fake))
			p.MaxAnswerTokens = limit
			sink := &recordingSink{}
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "How to install?"}, sink)
			checkCutShort(t, ans, err, st, limit)
			if len(sink.tokens) != limit || ans.Usage.DoneReason != "length" {
				t.Errorf("got %d tokens ending %q, want %d ending \"length\"", len(sink.tokens), ans.Usage.DoneReason, limit)
			}
			if got := sentLimit(provider, rec.chatBody(t)); got != float64(limit) {
				t.Errorf("answer limit sent to the server = %v, want %d", got, limit)
			}
			if fake.Cancelled() != 0 {
				t.Errorf("a reply that ended by itself was cancelled")
			}
		})
	}
}

// TestAnswerLimitBoundsBytes: a server that packs huge text into each
// streamed object is held to maxBytesPerToken bytes a token, cut at a
// character boundary, and stopped.
func TestAnswerLimitBoundsBytes(t *testing.T) {
	const limit = 40
	cancelled := make(chan struct{})
	var rec bodyRecorder
	url := rec.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		line, _ := json.Marshal(llm.ChatResponse{Model: "m", Message: llm.Message{Role: "assistant", Content: strings.Repeat("€", 3000)}})
		for i := 0; i < 10000; i++ { // about 90 MB unless the client hangs up
			if _, err := w.Write(append(line, '\n')); err != nil {
				break
			}
			w.(http.Flusher).Flush()
			if r.Context().Err() != nil {
				break
			}
		}
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(5 * time.Second):
		}
	}))
	p, st := providerPipeline(t, "ollama", url)
	p.MaxAnswerTokens = limit
	ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
	checkCutShort(t, ans, err, st, limit)
	if len(ans.Answer) > limit*maxBytesPerToken || len(ans.Answer) < limit*maxBytesPerToken-3 || !utf8.ValidString(ans.Answer) {
		t.Errorf("answer is %d bytes (valid UTF-8: %v), want just under %d", len(ans.Answer), utf8.ValidString(ans.Answer), limit*maxBytesPerToken)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not see the request cancelled")
	}
}

// TestAnswerLimitAdmit pins the counting: exactly maxChunks chunks pass,
// the next is refused, and a chunk crossing the byte bound is cut.
func TestAnswerLimitAdmit(t *testing.T) {
	l := answerLimit{maxChunks: 2, maxBytes: 10}
	if keep, over := l.admit("abc"); keep != "abc" || over {
		t.Fatalf("first chunk: %q %v", keep, over)
	}
	if keep, over := l.admit("defghijkl"); keep != "defghij" || !over {
		t.Fatalf("chunk crossing the byte bound: %q %v", keep, over)
	}
	l = answerLimit{maxChunks: 2, maxBytes: 100}
	l.admit("a")
	l.admit("b")
	if keep, over := l.admit("c"); keep != "" || !over {
		t.Fatalf("chunk past the limit: %q %v", keep, over)
	}
	if keep, over := (&answerLimit{}).admit("anything"); keep != "anything" || over {
		t.Fatalf("no limit: %q %v", keep, over)
	}
}
