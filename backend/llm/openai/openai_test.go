package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func newClient(t *testing.T, base string) *Client {
	t.Helper()
	c, err := New(base, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chatText(ctx context.Context, c *Client, req *llm.ChatRequest) (string, llm.ChatResponse, error) {
	var b strings.Builder
	var final llm.ChatResponse
	err := c.Chat(ctx, req, func(r llm.ChatResponse) error {
		b.WriteString(r.Message.Content)
		if r.Done {
			final = r
		}
		return nil
	})
	return b.String(), final, err
}

func request(model string, stream bool) *llm.ChatRequest {
	return &llm.ChatRequest{
		Model:    model,
		Messages: []llm.Message{{Role: "user", Content: "Evidence:\n\n[#1] Guide › install\nRun the installer.\n\nQuestion: how?"}},
		Stream:   &stream,
		Options:  map[string]any{"temperature": 0, "seed": 42, "num_ctx": 4096},
	}
}

func TestNewBaseURLForms(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:1234/v1":  "http://127.0.0.1:1234/v1",
		"http://127.0.0.1:1234/v1/": "http://127.0.0.1:1234/v1",
		"http://127.0.0.1:8080":     "http://127.0.0.1:8080/v1",
		"127.0.0.1:8000":            "http://127.0.0.1:8000/v1",
		"https://box.lan/llm":       "https://box.lan/llm/v1",
	} {
		c, err := New(in, "", nil)
		if err != nil || c.Host() != want {
			t.Errorf("New(%q) = %v, %v; want %s", in, c, err, want)
		}
	}
	for _, bad := range []string{"ftp://x/v1", "http://"} {
		if _, err := New(bad, "", nil); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
}

// TestChatAgainstFake covers the success and failure paths against the
// fake server's /v1/chat/completions, which follows the recorded framing.
func TestChatAgainstFake(t *testing.T) {
	const want = "Run the installer. [#1]"
	cases := []struct {
		name   string
		opts   []ollamafake.Option
		model  string
		stream bool
		text   string
		reason string
		err    error
	}{
		{"stream", nil, ollamafake.DefaultModel, true, want, "stop", nil},
		{"no stream", nil, ollamafake.DefaultModel, false, want, "stop", nil},
		{"unknown model", nil, "no-such-model", true, "", "", llm.ErrModelNotFound},
		{"truncated", []ollamafake.Option{ollamafake.WithTruncateAfter(2)}, ollamafake.DefaultModel, true, "Run the", "", llm.ErrTruncatedStream},
		{"malformed", []ollamafake.Option{ollamafake.WithMalformedLineAfter(1)}, ollamafake.DefaultModel, true, "Run", "", llm.ErrMalformedStream},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := ollamafake.New(tc.opts...)
			defer fake.Close()
			c := newClient(t, fake.URL())
			text, final, err := chatText(context.Background(), c, request(tc.model, tc.stream))
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("want %v, got %v", tc.err, err)
				}
				if text != tc.text {
					t.Errorf("partial text %q, want %q", text, tc.text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if text != tc.text || !final.Done || final.DoneReason != tc.reason {
				t.Errorf("text %q done=%v reason %q", text, final.Done, final.DoneReason)
			}
			if tc.stream && (final.EvalCount != len(ollamafake.Words(want)) || final.PromptEvalCount == 0) {
				t.Errorf("usage not read from the stream: %+v", final.Metrics)
			}
			got := fake.Requests()[0].Options
			if fmt.Sprint(got["temperature"], got["seed"]) != "0 42" {
				t.Errorf("temperature/seed not sent: %v", got)
			}
		})
	}
}

func TestChatErrorEventInStream(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithErrorAfter(1, "runner crashed"))
	defer fake.Close()
	_, _, err := chatText(context.Background(), newClient(t, fake.URL()), request(ollamafake.DefaultModel, true))
	var se *llm.StatusError
	if !errors.As(err, &se) || se.ErrorMessage != "runner crashed" {
		t.Fatalf("want status error from the stream, got %v", err)
	}
	if msg := Describe(err, "h", "m"); msg != "The model server reported an error: runner crashed." {
		t.Errorf("Describe = %q", msg)
	}
}

// TestRecordedStream replays the recorded Ollama /v1/chat/completions body.
func TestRecordedStream(t *testing.T) {
	raw, err := os.ReadFile("testdata/19_openai_chat_stream.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(raw), "Transfer-Encoding: chunked\r\n\r\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	text, final, err := chatText(context.Background(), newClient(t, srv.URL), request("tiny", true))
	if err != nil {
		t.Fatal(err)
	}
	if text != " Kentmulticolowed gained двухoffsetdocLoad" || final.DoneReason != "length" {
		t.Errorf("text %q reason %q", text, final.DoneReason)
	}
}

func TestCancelStopsServer(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: ollamafake.Words(strings.Repeat("word ", 200)), Delay: 20 * time.Millisecond}
	}))
	defer fake.Close()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := newClient(t, fake.URL()).Chat(ctx, request(ollamafake.DefaultModel, true), func(llm.ChatResponse) error {
		if n++; n == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if err := fake.WaitCancelled(wctx, 1); err != nil {
		t.Fatal(err)
	}
}

func TestFirstTokenTimeout(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithFirstTokenStall(5 * time.Second))
	defer fake.Close()
	c := newClient(t, fake.URL())
	c.FirstTokenTimeout = 50 * time.Millisecond
	_, _, err := chatText(context.Background(), c, request(ollamafake.DefaultModel, true))
	if !errors.Is(err, llm.ErrFirstTokenTimeout) {
		t.Fatalf("want first-token timeout, got %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := newClient(t, "http://"+addr)
	_, _, err = chatText(context.Background(), c, request("m", true))
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("want ErrUnreachable, got %v", err)
	}
	// Every server this provider serves is named, Ollama's /v1 too.
	if msg := Describe(err, c.Host(), "m"); !strings.Contains(msg, c.Host()) || !strings.Contains(msg, "Start it") ||
		!strings.Contains(msg, "ollama serve for Ollama's /v1") || !strings.Contains(msg, "LM Studio") {
		t.Errorf("Describe = %q", msg)
	}
}

func TestModelsAndContextLength(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	c := newClient(t, fake.URL())
	ms, err := c.Models(context.Background())
	if err != nil || len(ms) != 1 || ms[0].ID != ollamafake.DefaultModel {
		t.Fatalf("models %+v, %v", ms, err)
	}
	if _, err := c.FindModel(context.Background(), "other"); !errors.Is(err, llm.ErrModelNotFound) {
		t.Errorf("want ErrModelNotFound, got %v", err)
	}
	if msg := Describe(llm.ErrModelNotFound, "h", "other"); !strings.Contains(msg, `"other"`) {
		t.Errorf("Describe = %q", msg)
	}

	// vLLM and llama.cpp report the window in /v1/models.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sekrit" {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"qwen","max_model_len":32768},{"id":"gguf","meta":{"n_ctx_train":8192}},{"id":"plain"}]}`))
	}))
	defer srv.Close()
	keyed, err := New(srv.URL, "sekrit", nil)
	if err != nil {
		t.Fatal(err)
	}
	for model, want := range map[string]int{"qwen": 32768, "gguf": 8192, "plain": 0} {
		n, err := keyed.ContextLength(context.Background(), model)
		if n != want || (want == 0) != (err != nil) {
			t.Errorf("ContextLength(%s) = %d, %v", model, n, err)
		}
	}
	_, err = newClient(t, srv.URL).Models(context.Background())
	if msg := Describe(err, srv.URL, "x"); !strings.Contains(msg, "FOOTNOTE_OPENAI_API_KEY") {
		t.Errorf("401 not explained: %q (%v)", msg, err)
	}
}

// TestStreamIdleTimeout: an OpenAI-style stream that stalls after some
// tokens ends within the idle timeout with llm.ErrStreamStalled, keeping the
// tokens that arrived.
func TestStreamIdleTimeout(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: []string{"Run", " the", " installer."}}
	}), ollamafake.WithStallAfter(2, time.Minute))
	defer fake.Close()
	c := newClient(t, fake.URL())
	c.StreamIdleTimeout = 150 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	text, _, err := chatText(ctx, c, request(ollamafake.DefaultModel, true))
	if !errors.Is(err, llm.ErrStreamStalled) {
		t.Fatalf("want llm.ErrStreamStalled, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to give up", d)
	}
	if text != "Run the" {
		t.Errorf("tokens before the stall = %q", text)
	}
	if d := Describe(err, c.Host(), "m"); !strings.Contains(d, "stopped sending the answer partway") {
		t.Errorf("Describe = %q", d)
	}
	if err := fake.WaitCancelled(ctx, 1); err != nil {
		t.Fatal(err)
	}
}
