package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

func checkNamed(checks []Check, name string) (Check, bool) {
	for _, c := range checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// TestDoctorChecksOpenAIProvider: with the OpenAI-compatible provider,
// doctor checks that server (not Ollama): a dead address fails with a fix
// naming where the address was set; a live one reports the model, the
// window the server runs and a one-token test generation.
func TestDoctorChecksOpenAIProvider(t *testing.T) {
	en := newEngineWith(t, "127.0.0.1:9", func(s *config.Settings) {
		s.Provider, s.OpenAIBaseURL, s.OpenAIBaseURLFromEnv = config.ProviderOpenAI, "http://127.0.0.1:9/v1", true
	})
	server, ok := checkNamed(en.Doctor(context.Background()), "model server (OpenAI-compatible)")
	if !ok || server.OK || !strings.Contains(server.Fix, config.EnvOpenAIURL) || !strings.HasPrefix(server.Detail, "No OpenAI-compatible server") {
		t.Errorf("dead server: %+v", server)
	}

	fake := ollamafake.New(ollamafake.WithServerKind(ollamafake.KindLlamaCpp),
		ollamafake.WithModels(ollamafake.Model{Name: "qwen", NumCtx: 2048}))
	t.Cleanup(fake.Close)
	en = newEngineWith(t, "127.0.0.1:9", func(s *config.Settings) {
		s.Provider, s.OpenAIBaseURL, s.LLMModel = config.ProviderOpenAI, fake.URL(), "qwen"
	})
	checks := en.Doctor(context.Background())
	for name, want := range map[string]string{
		"model server (OpenAI-compatible)": fake.URL(), "LLM model": "qwen",
		"context window": "2048 tokens (" + llm.WindowFromLlamaCppProps + ")", "test generation": "qwen answered",
	} {
		c, ok := checkNamed(checks, name)
		if !ok || !c.OK || !strings.Contains(c.Detail, want) {
			t.Errorf("%s: %+v, want ok with %q", name, c, want)
		}
	}
	if len(fake.Requests()) != 1 || fmt.Sprint(fake.Requests()[0].Options["num_predict"]) != "1" {
		t.Errorf("want one one-token generation, got %+v", fake.Requests())
	}
	if n := countCalls(fake, "GET /v1/models"); n != 1 {
		t.Errorf("doctor listed the models %d times, want once: %v", n, fake.Calls())
	}
}

func countCalls(fake *ollamafake.Server, call string) int {
	n := 0
	for _, c := range fake.Calls() {
		if c == call {
			n++
		}
	}
	return n
}

// TestDoctorStopsAtAMissingOllamaModel: once /api/tags shows the model is
// not installed, doctor says so with the fix and asks nothing more: no
// /api/show for a window, no test generation.
func TestDoctorStopsAtAMissingOllamaModel(t *testing.T) {
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	en := newEngineWith(t, fake.URL(), func(s *config.Settings) { s.LLMModel = "absent:1b" })
	model, ok := checkNamed(en.Doctor(context.Background()), "LLM model")
	if !ok || model.OK || !strings.Contains(model.Fix, "ollama pull absent:1b") {
		t.Errorf("LLM model check: %+v", model)
	}
	for _, call := range fake.Calls() {
		if call != "GET /api/version" && call != "GET /api/tags" {
			t.Errorf("after /api/tags showed the model missing, doctor sent %s", call)
		}
	}
}

// TestWindowSourceWhenServerIsDown: a server that does not answer is not
// said to "not report its window"; the answer records why the setting
// stood in.
func TestWindowSourceWhenServerIsDown(t *testing.T) {
	en := faultEngine(t, "127.0.0.1:9", func(s *config.Settings) {
		s.Provider, s.OpenAIBaseURL = config.ProviderOpenAI, "http://127.0.0.1:9/v1"
	})
	ans, _ := en.Ask(context.Background(), rag.Request{ID: "q1", Question: question}, nil)
	if src := ans.Generation.ContextSource; strings.Contains(src, "does not report") || !strings.Contains(src, "the server did not answer") {
		t.Errorf("context source %q", src)
	}
}

// TestProviderFixFollowsErrorKind: the fix is chosen by the error's kind,
// whatever its text says or how it is capitalised.
func TestProviderFixFollowsErrorKind(t *testing.T) {
	en := newEngineWith(t, "127.0.0.1:9", nil)
	for _, err := range []error{
		fmt.Errorf("%w at 127.0.0.1:9: dial tcp: connection refused", llm.ErrUnreachable),
		fmt.Errorf("OLLAMA: %w", llm.ErrUnreachable),
	} {
		if fix := en.providerFix(err); !strings.Contains(fix, "ollama serve") {
			t.Errorf("%v: fix %q", err, fix)
		}
	}
	if fix := en.providerFix(&llm.StatusError{StatusCode: 404, ErrorMessage: "Model 'x' Not Found"}); !strings.Contains(fix, "ollama pull") {
		t.Errorf("missing model: fix %q", fix)
	}
	if fix := en.providerFix(errors.New("anything")); fix == "" {
		t.Error("an unknown failure still needs a hint")
	}
}
