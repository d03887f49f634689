package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestContextWindowPerServerKind: the window each kind of server runs the
// model with is learned where that server reports it, not guessed.
func TestContextWindowPerServerKind(t *testing.T) {
	cases := []struct {
		kind   ollamafake.ServerKind
		name   string
		source string
	}{
		{ollamafake.KindOllama, "tiny", llm.WindowFromOllamaShow},
		{ollamafake.KindLlamaCpp, "qwen2.5-0.5b-instruct", llm.WindowFromLlamaCppProps},
		{ollamafake.KindLMStudio, "qwen2.5-0.5b-instruct", llm.WindowFromLMStudio},
		{ollamafake.KindVLLM, "Qwen/Qwen2.5-0.5B-Instruct", llm.WindowFromVLLM},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			fake := ollamafake.New(ollamafake.WithServerKind(tc.kind),
				ollamafake.WithModels(ollamafake.Model{Name: tc.name, ContextLength: 32768, NumCtx: 2048}))
			defer fake.Close()
			c := newClient(t, fake.URL())
			w, err := c.ContextWindow(context.Background(), tc.name)
			if err != nil || w.Tokens != 2048 || w.Source != tc.source {
				t.Errorf("ContextWindow = %+v, %v; want 2048 from %s", w, err, tc.source)
			}
		})
	}
	// A server that reports no window leaves the choice to the caller.
	fake := ollamafake.New(ollamafake.WithServerKind(ollamafake.KindVLLM))
	fake.Close()
	if w, err := newClient(t, fake.URL()).ContextWindow(context.Background(), "m"); w.Tokens != 0 || !errors.Is(err, llm.ErrUnreachable) {
		t.Errorf("dead server: %+v, %v", w, err)
	}
}

// TestUntaggedNameMatchesOllamaLatest: behind Ollama's /v1 an untagged
// name is the listed ":latest" model, as Ollama itself resolves it.
func TestUntaggedNameMatchesOllamaLatest(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithModels(ollamafake.Model{Name: "tiny"}))
	defer fake.Close()
	c := newClient(t, fake.URL())
	ms, err := c.Models(context.Background())
	if err != nil || len(ms) != 1 || ms[0].ID != "tiny:latest" {
		t.Fatalf("/v1/models should list the tagged id: %+v, %v", ms, err)
	}
	if m, err := c.FindModel(context.Background(), "tiny"); err != nil || m.ID != "tiny:latest" {
		t.Errorf("FindModel(tiny) = %+v, %v", m, err)
	}
	if _, err := c.FindModel(context.Background(), "tiny:q4"); !errors.Is(err, llm.ErrModelNotFound) {
		t.Errorf("another tag must not match: %v", err)
	}
}

// TestUnknownModelReportsServerError: a model the server refuses is
// reported with the server's own words (OpenAI's error shape).
func TestUnknownModelReportsServerError(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	c := newClient(t, fake.URL())
	_, _, err := chatText(context.Background(), c, request("absent", true))
	if !errors.Is(err, llm.ErrModelNotFound) {
		t.Fatalf("want ErrModelNotFound, got %v", err)
	}
	msg := Describe(err, c.Host(), "absent")
	if !strings.Contains(msg, `model "absent" not found, try pulling it first`) || !strings.HasPrefix(msg, "The ") {
		t.Errorf("Describe = %q, want the server's own error", msg)
	}
}

// TestOllamaV1WindowOnceLoaded: behind Ollama's /v1 a model without a
// Modelfile num_ctx has no window to report until it is loaded; then the
// one it was loaded with (/api/ps) is the window every request runs in.
func TestOllamaV1WindowOnceLoaded(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithModels(ollamafake.Model{Name: "tiny", ContextLength: 32768}))
	defer fake.Close()
	c := newClient(t, fake.URL())
	ctx := context.Background()
	if w, err := c.ContextWindow(ctx, "tiny"); err != nil || w.Tokens != 0 {
		t.Fatalf("not loaded: %+v, %v; want no window", w, err)
	}
	if _, _, err := chatText(ctx, c, request("tiny", false)); err != nil {
		t.Fatal(err)
	}
	w, err := c.ContextWindow(ctx, "tiny")
	if err != nil || w != (llm.ContextWindow{Tokens: ollamafake.DefaultNumCtx, Source: llm.WindowFromOllamaPs, Trained: 32768}) {
		t.Errorf("loaded: %+v, %v", w, err)
	}
}
