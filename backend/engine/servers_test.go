package engine

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

// TestOpenAIProviderUsesServerWindow: through the OpenAI-compatible
// provider, an untagged model name is accepted when the server lists it
// tagged, and the evidence is packed within the window the server really
// runs (2048 here, not the 8192 num_ctx setting nobody can send); the
// answer records that window and where it came from.
func TestOpenAIProviderUsesServerWindow(t *testing.T) {
	cases := []struct {
		kind   ollamafake.ServerKind
		model  string
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
				ollamafake.WithModels(ollamafake.Model{Name: tc.model, ContextLength: 131072, NumCtx: 2048}))
			t.Cleanup(fake.Close)
			en := faultEngine(t, fake.URL(), func(s *config.Settings) {
				s.Provider, s.OpenAIBaseURL, s.LLMModel = config.ProviderOpenAI, fake.URL(), tc.model
				s.ContextTokens = 100000 // only the window limits the evidence
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := en.CheckAnswerModel(ctx); err != nil {
				t.Fatalf("CheckAnswerModel: %v", err)
			}
			ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil)
			if err != nil {
				t.Fatalf("ask: %v", err)
			}
			g := ans.Generation
			if g.ContextWindow != 2048 || g.ContextSource != tc.source {
				t.Errorf("recorded window %d from %q, want 2048 from %q", g.ContextWindow, g.ContextSource, tc.source)
			}
			if want := 2048 - g.PromptTokens - en.cfg.Settings.AnswerReserveTokens; ans.Retrieval.Budget != want {
				t.Errorf("evidence budget %d, want %d (window − prompt − answer reserve)", ans.Retrieval.Budget, want)
			}
			rec, found, err := en.index().AnswerByID(context.Background(), ans.ID)
			if err != nil || !found || !strings.Contains(rec.RetrievalJSON, `"context_window":2048`) {
				t.Errorf("window not stored with the answer: %v %v", found, err)
			}
		})
	}
}

// TestOpenAIUnlistedModelIsAskedAnyway: a model the server does not list
// is still asked for, and the server's own refusal reaches the user.
func TestOpenAIUnlistedModelIsAskedAnyway(t *testing.T) {
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	en := faultEngine(t, fake.URL(), func(s *config.Settings) {
		s.Provider, s.OpenAIBaseURL, s.LLMModel = config.ProviderOpenAI, fake.URL(), "absent"
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := en.CheckAnswerModel(ctx); err != nil {
		t.Fatalf("an unlisted model must be asked for anyway: %v", err)
	}
	// The server's refusal reaches the user in the note of the passages
	// answer that stands in for the model's.
	ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil)
	if err != nil || ans.RefusalReason == nil || *ans.RefusalReason != rag.RefusalNoModel ||
		!strings.Contains(ans.Error, `model "absent" not found, try pulling it first`) {
		t.Errorf("want the server's refusal in the passages answer's note, got err %v reason %v note %q", err, ans.RefusalReason, ans.Error)
	}
	if len(fake.Requests()) != 1 {
		t.Errorf("the server was asked %d times, want once", len(fake.Requests()))
	}
}

// TestOpenAIUnreachableNamesWhereAddressWasSet: the fix names the
// environment variable when the address came from it, else the setting.
func TestOpenAIUnreachableNamesWhereAddressWasSet(t *testing.T) {
	for _, fromEnv := range []bool{true, false} {
		en := newEngineWith(t, "127.0.0.1:9", func(s *config.Settings) {
			s.Provider, s.OpenAIBaseURL, s.OpenAIBaseURLFromEnv = config.ProviderOpenAI, "http://127.0.0.1:9/v1", fromEnv
		})
		err := en.CheckAnswerModel(context.Background())
		want := "openai_base_url in Settings"
		if fromEnv {
			want = config.EnvOpenAIURL
		}
		if err == nil || !strings.Contains(err.Error(), "set "+want+" to where it runs") {
			t.Errorf("fromEnv=%v: %v", fromEnv, err)
		}
	}
}

// TestOpenAIWindowFallsBackToSetting: a server that does not report its
// window gets the conservative context_window setting (4096 by default),
// recorded as such, and the evidence is packed within it.
func TestOpenAIWindowFallsBackToSetting(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithServerKind(ollamafake.KindPlain), ollamafake.WithModels(ollamafake.Model{Name: "plain-model"}))
	t.Cleanup(fake.Close)
	en := faultEngine(t, fake.URL(), func(s *config.Settings) {
		s.Provider, s.OpenAIBaseURL, s.LLMModel = config.ProviderOpenAI, fake.URL(), "plain-model"
		s.ContextTokens = 100000
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil)
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	g := ans.Generation
	if g.ContextWindow != config.DefaultContextWindow || !strings.HasPrefix(g.ContextSource, llm.WindowFromSetting) {
		t.Errorf("recorded window %d from %q, want the %d setting", g.ContextWindow, g.ContextSource, config.DefaultContextWindow)
	}
	if want := config.DefaultContextWindow - g.PromptTokens - en.cfg.Settings.AnswerReserveTokens; ans.Retrieval.Budget != want {
		t.Errorf("evidence budget %d, want %d", ans.Retrieval.Budget, want)
	}
}

// TestOllamaNativeRecordsWindowSent: on Ollama's native API, for a model
// whose Modelfile sets no num_ctx and that is not loaded, the window is the
// num_ctx Footnote sends (the setting, or the model's own window when
// smaller), and the answer records which.
func TestOllamaNativeRecordsWindowSent(t *testing.T) {
	for _, tc := range []struct {
		trained, want int
		source        string
	}{{131072, 8192, llm.WindowFromSetting + " num_ctx"}, {2048, 2048, llm.WindowFromTrained}} {
		fake := ollamafake.New(ollamafake.WithModels(ollamafake.Model{Name: ollamafake.DefaultModel, ContextLength: tc.trained}))
		t.Cleanup(fake.Close)
		en := faultEngine(t, fake.URL(), nil)
		ans, err := en.Ask(context.Background(), rag.Request{ID: "q1", Question: question}, nil)
		if err != nil {
			t.Fatalf("ask: %v", err)
		}
		g := ans.Generation
		if g.ContextWindow != tc.want || g.ContextSource != tc.source || fake.Requests()[0].Options["num_ctx"] != float64(tc.want) {
			t.Errorf("trained %d: window %d from %q, sent %v", tc.trained, g.ContextWindow, g.ContextSource, fake.Requests()[0].Options["num_ctx"])
		}
	}
}

// TestOllamaV1LoadedWindowCappedAtSetting: behind Ollama's /v1 a model
// loaded by a native client with a larger num_ctx would be loaded again at
// the server's default by the first /v1 request, so that loaded window is
// not packed for; the context_window setting is, and the answer says why.
func TestOllamaV1LoadedWindowCappedAtSetting(t *testing.T) {
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	en := faultEngine(t, fake.URL(), func(s *config.Settings) {
		s.Provider, s.OpenAIBaseURL = config.ProviderOpenAI, fake.URL()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	u, _ := url.Parse(fake.URL())
	stream := false
	if err := llm.NewClient(u, nil).Chat(ctx, &llm.ChatRequest{Model: ollamafake.DefaultModel, Stream: &stream,
		Messages: []llm.Message{{Role: "user", Content: "hello"}}, Options: map[string]any{"num_ctx": 8192}},
		func(llm.ChatResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := ans.Generation; g.ContextWindow != config.DefaultContextWindow || !strings.Contains(g.ContextSource, llm.WindowFromOllamaPs) {
		t.Errorf("window %d from %q, want the %d setting below the loaded 8192", g.ContextWindow, g.ContextSource, config.DefaultContextWindow)
	}
}
