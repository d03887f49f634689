package llm_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func newFake(t *testing.T, opts ...ollamafake.Option) (*ollamafake.Server, *llm.Client) {
	t.Helper()
	srv := ollamafake.New(opts...)
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	return srv, llm.NewClient(u, nil)
}

func fixed(tokens ...string) ollamafake.Option {
	return ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: tokens}
	})
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func ptr[T any](v T) *T { return &v }

func question(model string) *llm.ChatRequest {
	return &llm.ChatRequest{
		Model: model,
		Messages: []llm.Message{
			{Role: "system", Content: "Answer from the evidence."},
			{Role: "user", Content: "[#1] Guide › Linux\nRun the AppImage. It is portable.\n\nQuestion: How?"},
		},
		Options: map[string]any{"temperature": 0, "num_ctx": 4096},
	}
}

// collect runs Chat and returns every object it delivered.
func collect(ctx context.Context, c *llm.Client, req *llm.ChatRequest) ([]llm.ChatResponse, error) {
	var got []llm.ChatResponse
	err := c.Chat(ctx, req, func(r llm.ChatResponse) error {
		got = append(got, r)
		return nil
	})
	return got, err
}

func text(rs []llm.ChatResponse) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Message.Content)
	}
	return b.String()
}

func TestChat(t *testing.T) {
	tests := []struct {
		name       string
		opts       []ollamafake.Option
		stream     *bool
		options    map[string]any
		wantText   string
		wantCalls  int
		wantReason string
		wantEval   int
	}{
		{"stream", []ollamafake.Option{fixed("Hello", " world", ".")}, nil, nil, "Hello world.", 4, "stop", 3},
		{"stream explicit", []ollamafake.Option{fixed("a", " b")}, ptr(true), nil, "a b", 3, "stop", 2},
		{"non-stream", []ollamafake.Option{fixed("Hello", " world", ".")}, ptr(false), nil, "Hello world.", 1, "stop", 3},
		{"num_predict cuts to length", []ollamafake.Option{fixed("a", " b", " c")}, nil, map[string]any{"num_predict": 2}, "a b", 3, "length", 2},
		{"default responder", nil, nil, nil, "Run the AppImage. [#1]", 5, "stop", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := newFake(t, tc.opts...)
			req := question(ollamafake.DefaultModel)
			req.Stream = tc.stream
			if tc.options != nil {
				req.Options = tc.options
			}
			got, err := collect(ctxTimeout(t, 10*time.Second), c, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.wantCalls {
				t.Errorf("callbacks = %d, want %d", len(got), tc.wantCalls)
			}
			if s := text(got); s != tc.wantText {
				t.Errorf("text = %q, want %q", s, tc.wantText)
			}
			last := got[len(got)-1]
			for _, r := range got[:len(got)-1] {
				if r.Done || r.Message.Role != "assistant" || r.Model != req.Model || r.CreatedAt.IsZero() {
					t.Errorf("token object = %+v", r)
				}
			}
			if !last.Done || last.DoneReason != tc.wantReason || last.EvalCount != tc.wantEval {
				t.Errorf("done object = %+v, want reason %q eval_count %d", last, tc.wantReason, tc.wantEval)
			}
			if last.PromptEvalCount <= 0 || last.TotalDuration <= 0 || last.EvalDuration <= 0 || last.LoadDuration <= 0 || last.PromptEvalDuration <= 0 {
				t.Errorf("done metrics not parsed: %+v", last.Metrics)
			}
			sent := srv.Requests()
			if len(sent) != 1 || sent[0].Model != req.Model || !slices.Equal(sent[0].Messages, req.Messages) {
				t.Errorf("server saw %+v", sent)
			}
			if (tc.stream == nil) != (sent[0].Stream == nil) {
				t.Errorf("stream field sent as %v, want %v", sent[0].Stream, tc.stream)
			}
		})
	}
}

func TestModelsAndServerInfo(t *testing.T) {
	srv, c := newFake(t,
		ollamafake.WithVersion("0.24.0"),
		ollamafake.WithModels(ollamafake.Model{Name: "tiny", ContextLength: 4096}, ollamafake.Model{Name: "qwen2.5:0.5b", Family: "qwen2", ContextLength: 32768}),
	)
	ctx := ctxTimeout(t, 10*time.Second)

	if err := c.Heartbeat(ctx); err != nil {
		t.Errorf("Heartbeat: %v", err)
	}
	if v, err := c.Version(ctx); err != nil || v != "0.24.0" {
		t.Errorf("Version = %q, %v", v, err)
	}
	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"tiny:latest", "qwen2.5:0.5b"}) {
		t.Errorf("List names = %v", names)
	}
	// Neither has a Modelfile num_ctx nor is loaded: the setting, capped
	// at the trained length.
	for _, tc := range []struct {
		model string
		want  llm.ContextWindow
	}{
		{"tiny", llm.ContextWindow{Tokens: 4096, Source: llm.WindowFromTrained, Trained: 4096}},
		{"tiny:latest", llm.ContextWindow{Tokens: 4096, Source: llm.WindowFromTrained, Trained: 4096}},
		{"qwen2.5:0.5b", llm.ContextWindow{Tokens: 8192, Source: llm.WindowFromSetting + " num_ctx", Trained: 32768}},
	} {
		if w, err := c.ContextWindow(ctx, tc.model, 8192); err != nil || w != tc.want {
			t.Errorf("ContextWindow(%s) = %+v, %v; want %+v", tc.model, w, err, tc.want)
		}
	}
	show, err := c.Show(ctx, "qwen2.5:0.5b")
	if err != nil || show.Details.Family != "qwen2" || show.Template == "" {
		t.Errorf("Show = %+v, %v", show, err)
	}

	var statuses []string
	err = c.Pull(ctx, &llm.PullRequest{Model: "phi3:mini"}, func(p llm.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		if strings.HasPrefix(p.Status, "pulling sha") && p.Total <= 0 {
			t.Errorf("layer progress without total: %+v", p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if len(statuses) < 3 || statuses[0] != "pulling manifest" || statuses[len(statuses)-1] != "success" {
		t.Errorf("pull statuses = %v", statuses)
	}
	if _, err := c.Show(ctx, "phi3:mini"); err != nil {
		t.Errorf("pulled model not installed: %v", err)
	}
	if srv.Cancelled() != 0 {
		t.Errorf("Cancelled = %d after clean requests", srv.Cancelled())
	}
}

func TestStatusErrors(t *testing.T) {
	_, c := newFake(t)
	ctx := ctxTimeout(t, 10*time.Second)
	chat := func(model string, options map[string]any) func() error {
		return func() error {
			req := question(model)
			req.Options = options
			_, err := collect(ctx, c, req)
			return err
		}
	}
	tests := []struct {
		name         string
		call         func() error
		status       int
		message      string
		notFound     bool
		wantDescribe string
	}{
		{
			name: "unknown model", call: chat("no-such-model", nil), status: 404,
			message: "model 'no-such-model' not found", notFound: true,
			wantDescribe: "The model \"no-such-model\" is not installed in Ollama. Run `ollama pull no-such-model` or pick another model.",
		},
		{
			name: "show unknown model", call: func() error { _, err := c.ContextWindow(ctx, "no-such-model", 8192); return err },
			status: 404, message: "model 'no-such-model' not found", notFound: true,
			wantDescribe: "The model \"no-such-model\" is not installed in Ollama. Run `ollama pull no-such-model` or pick another model.",
		},
		{
			name: "missing model", call: chat("", nil), status: 400, message: "model is required",
			wantDescribe: "Ollama reported an error: model is required.",
		},
		{
			name: "bad option type", call: chat(ollamafake.DefaultModel, map[string]any{"num_predict": "abc"}), status: 500,
			message:      `option "num_predict" must be of type integer`,
			wantDescribe: `Ollama reported an error: option "num_predict" must be of type integer.`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var se *llm.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *StatusError", err)
			}
			if se.StatusCode != tc.status || se.ErrorMessage != tc.message {
				t.Errorf("StatusError = %d %q, want %d %q", se.StatusCode, se.ErrorMessage, tc.status, tc.message)
			}
			if errors.Is(err, llm.ErrModelNotFound) != tc.notFound {
				t.Errorf("errors.Is(ErrModelNotFound) = %v, want %v", !tc.notFound, tc.notFound)
			}
			if got := llm.Describe(err, c.Host(), "no-such-model"); got != tc.wantDescribe {
				t.Errorf("Describe = %q\nwant       %q", got, tc.wantDescribe)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	u, err := llm.ParseHost(addr)
	if err != nil {
		t.Fatal(err)
	}
	c := llm.NewClient(u, nil)
	ctx := ctxTimeout(t, 10*time.Second)
	calls := map[string]func() error{
		"heartbeat": func() error { return c.Heartbeat(ctx) },
		"chat":      func() error { _, err := collect(ctx, c, question("m")); return err },
		"list":      func() error { _, err := c.List(ctx); return err },
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, llm.ErrUnreachable) {
			t.Errorf("%s: err = %v, want ErrUnreachable", name, err)
		}
		want := "Ollama is not reachable at http://" + addr + ". Start it with `ollama serve` (or set OLLAMA_HOST)."
		if got := llm.Describe(err, c.Host(), "m"); got != want {
			t.Errorf("%s: Describe = %q, want %q", name, got, want)
		}
	}
}

func TestBrokenStreams(t *testing.T) {
	tokens := fixed("one", " two", " three", " four")
	tests := []struct {
		name       string
		opts       []ollamafake.Option
		stream     *bool
		wantIs     error
		wantText   string
		wantServer string // ErrorMessage of a mid-stream error object
	}{
		{"truncated", []ollamafake.Option{tokens, ollamafake.WithTruncateAfter(2)}, nil, llm.ErrTruncatedStream, "one two", ""},
		{"truncated before done", []ollamafake.Option{tokens, ollamafake.WithTruncateAfter(4)}, nil, llm.ErrTruncatedStream, "one two three four", ""},
		{"truncated non-stream", []ollamafake.Option{tokens, ollamafake.WithTruncateAfter(1)}, ptr(false), llm.ErrTruncatedStream, "", ""},
		{"malformed line", []ollamafake.Option{tokens, ollamafake.WithMalformedLineAfter(1)}, nil, llm.ErrMalformedStream, "one", ""},
		{"malformed non-stream", []ollamafake.Option{tokens, ollamafake.WithMalformedLineAfter(0)}, ptr(false), llm.ErrMalformedStream, "", ""},
		{"error object mid-stream", []ollamafake.Option{tokens, ollamafake.WithErrorAfter(3, "llama runner process has terminated")}, nil, nil, "one two three", "llama runner process has terminated"},
		{"line too long", []ollamafake.Option{fixed("ok", strings.Repeat("x", llm.MaxLineBytes+10))}, nil, llm.ErrMalformedStream, "ok", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := newFake(t, tc.opts...)
			req := question(ollamafake.DefaultModel)
			req.Stream = tc.stream
			got, err := collect(ctxTimeout(t, 10*time.Second), c, req)
			if err == nil {
				t.Fatalf("Chat succeeded with %q, want an error", text(got))
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("err = %v, want %v", err, tc.wantIs)
			}
			if tc.wantServer != "" {
				var se *llm.StatusError
				if !errors.As(err, &se) || se.ErrorMessage != tc.wantServer || se.StatusCode != 200 {
					t.Errorf("err = %#v, want StatusError %q in a 200 stream", err, tc.wantServer)
				}
				if d := llm.Describe(err, c.Host(), "m"); !strings.Contains(d, tc.wantServer) {
					t.Errorf("Describe = %q, want the server's message", d)
				}
			}
			if s := text(got); s != tc.wantText {
				t.Errorf("text before the break = %q, want %q", s, tc.wantText)
			}
			for _, r := range got {
				if r.Done {
					t.Errorf("received a done object from a broken stream: %+v", r)
				}
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	many := make([]string, 500)
	for i := range many {
		many[i] = " tok"
	}
	srv, c := newFake(t, fixed(many...), ollamafake.WithTokenDelay(20*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var n int
	start := time.Now()
	var cancelledAt time.Time
	err := c.Chat(ctx, question(ollamafake.DefaultModel), func(llm.ChatResponse) error {
		n++
		if n == 3 {
			cancel()
			cancelledAt = time.Now()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(cancelledAt); d > time.Second {
		t.Errorf("Chat returned %v after cancel, want promptly", d)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("Chat ran for %v; the stream was not abandoned", time.Since(start))
	}
	if got := llm.Describe(err, c.Host(), "m"); got != "Generation stopped." {
		t.Errorf("Describe = %q", got)
	}
	if err := srv.WaitCancelled(ctxTimeout(t, 5*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	if srv.Cancelled() != 1 {
		t.Errorf("Cancelled = %d, want 1", srv.Cancelled())
	}
}

func TestCallbackErrorStopsGeneration(t *testing.T) {
	srv, c := newFake(t, fixed("a", " b", " c", " d", " e", " f"), ollamafake.WithTokenDelay(20*time.Millisecond))
	stop := errors.New("enough")
	err := c.Chat(ctxTimeout(t, 10*time.Second), question(ollamafake.DefaultModel), func(llm.ChatResponse) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the callback's error", err)
	}
	if err := srv.WaitCancelled(ctxTimeout(t, 5*time.Second), 1); err != nil {
		t.Fatal(err)
	}
}

func TestFirstTokenTimeout(t *testing.T) {
	srv, c := newFake(t, ollamafake.WithFirstTokenStall(time.Minute))
	c.FirstTokenTimeout = 100 * time.Millisecond
	start := time.Now()
	_, err := collect(ctxTimeout(t, 10*time.Second), c, question(ollamafake.DefaultModel))
	if !errors.Is(err, llm.ErrFirstTokenTimeout) {
		t.Fatalf("err = %v, want ErrFirstTokenTimeout", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("a timeout must not read as a user cancel: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to time out", d)
	}
	if d := llm.Describe(err, c.Host(), "m"); !strings.Contains(d, "did not start answering") {
		t.Errorf("Describe = %q", d)
	}
	if err := srv.WaitCancelled(ctxTimeout(t, 5*time.Second), 1); err != nil {
		t.Fatal(err)
	}

	// Once tokens flow, the timeout no longer applies.
	srv2, c2 := newFake(t, fixed("a", " b", " c", " d", " e"), ollamafake.WithTokenDelay(60*time.Millisecond))
	c2.FirstTokenTimeout = 100 * time.Millisecond
	got, err := collect(ctxTimeout(t, 10*time.Second), c2, question(ollamafake.DefaultModel))
	if err != nil || text(got) != "a b c d e" {
		t.Errorf("slow but flowing stream: %q, %v", text(got), err)
	}
	if srv2.Cancelled() != 0 {
		t.Errorf("Cancelled = %d", srv2.Cancelled())
	}
}

func TestParseHost(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "http://127.0.0.1:11434"},
		{"   ", "http://127.0.0.1:11434"},
		{"localhost", "http://localhost:11434"},
		{"example.com:8080", "http://example.com:8080"},
		{":5000", "http://127.0.0.1:5000"},
		{"0.0.0.0", "http://127.0.0.1:11434"},
		{"0.0.0.0:12345", "http://127.0.0.1:12345"},
		{"10.0.0.5", "http://10.0.0.5:11434"},
		{"[::1]:9999", "http://[::1]:9999"},
		{"::1", "http://[::1]:11434"},
		{"[::]:11434", "http://127.0.0.1:11434"},
		{"http://example.com", "http://example.com:80"},
		{"https://example.com", "https://example.com:443"},
		{"https://example.com:8443/ollama/", "https://example.com:8443/ollama"},
		{"http://0.0.0.0:11434", "http://127.0.0.1:11434"},
	}
	for _, tc := range tests {
		u, err := llm.ParseHost(tc.in)
		if err != nil || u.String() != tc.want {
			t.Errorf("ParseHost(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://example.com", "example.com:abc", "example.com:70000", "example.com:0"} {
		if u, err := llm.ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) = %v, want an error", bad, u)
		}
	}
}

// TestClientFromHostSetting: a client for an OLLAMA_HOST value (config reads
// the variable; the client takes the parsed host).
func TestClientFromHostSetting(t *testing.T) {
	u, err := llm.ParseHost("0.0.0.0:23456")
	if err != nil {
		t.Fatal(err)
	}
	c := llm.NewClient(u, nil)
	if c.Host() != "http://127.0.0.1:23456" {
		t.Errorf("client host = %v", c.Host())
	}
	if c.FirstTokenTimeout != llm.DefaultFirstTokenTimeout {
		t.Errorf("FirstTokenTimeout = %v", c.FirstTokenTimeout)
	}
	if _, err := llm.ParseHost("gopher://x"); err == nil {
		t.Error("want an error for an unsupported scheme")
	}
}

func TestDescribe(t *testing.T) {
	const host = "http://127.0.0.1:11434"
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{context.Canceled, "Generation stopped."},
		{errors.Join(errors.New("read"), context.Canceled), "Generation stopped."},
		{llm.ErrUnreachable, "Ollama is not reachable at " + host + ". Start it with `ollama serve` (or set OLLAMA_HOST)."},
		{&llm.StatusError{StatusCode: 404, Status: "404 Not Found", ErrorMessage: "model 'x' not found"},
			"The model \"qwen\" is not installed in Ollama. Run `ollama pull qwen` or pick another model."},
		{&llm.StatusError{StatusCode: 404, Status: "404 Not Found", ErrorMessage: "404 page not found"},
			"Ollama reported an error: 404 page not found."},
		{&llm.StatusError{StatusCode: 502, Status: "502 Bad Gateway"}, "Ollama reported an error: 502 Bad Gateway."},
		{llm.ErrTruncatedStream, "Ollama stopped before finishing the answer (the connection was cut). Try again."},
		{context.DeadlineExceeded, "Ollama did not answer in time. Try again."},
	}
	for _, tc := range tests {
		if got := llm.Describe(tc.err, host, "qwen"); got != tc.want {
			t.Errorf("Describe(%v) = %q\nwant %q", tc.err, got, tc.want)
		}
	}
}

// TestContextWindowChoice: the Modelfile's num_ctx wins (and /api/ps is
// not asked then); else the window the model is loaded with; else the
// setting capped at the trained length.
func TestContextWindowChoice(t *testing.T) {
	ctx := ctxTimeout(t, 10*time.Second)
	srv, c := newFake(t, ollamafake.WithModels(
		ollamafake.Model{Name: "fixed", ContextLength: 8192, NumCtx: 1024},
		ollamafake.Model{Name: "free", ContextLength: 131072},
	))
	if w, err := c.ContextWindow(ctx, "fixed", 8192); err != nil || w != (llm.ContextWindow{Tokens: 1024, Source: llm.WindowFromOllamaShow, Trained: 8192}) {
		t.Errorf("fixed: %+v, %v", w, err)
	}
	if calls := srv.Calls(); !slices.Equal(calls, []string{"POST /api/show"}) {
		t.Errorf("a Modelfile window needs no /api/ps: %v", calls)
	}
	if w, err := c.ContextWindow(ctx, "free", 8192); err != nil || w.Tokens != 8192 || w.Source != llm.WindowFromSetting+" num_ctx" {
		t.Errorf("free, not loaded: %+v, %v", w, err)
	}
	// Loaded by someone else at the server's default: that window is kept.
	stream := false
	if err := c.Chat(ctx, &llm.ChatRequest{Model: "free", Stream: &stream, Messages: []llm.Message{{Role: "user", Content: "hi"}}},
		func(llm.ChatResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if w, err := c.ContextWindow(ctx, "free", 8192); err != nil || w.Tokens != ollamafake.DefaultNumCtx || w.Source != llm.WindowFromOllamaPs {
		t.Errorf("free, loaded: %+v, %v", w, err)
	}
}
