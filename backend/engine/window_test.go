package engine

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

// withoutLength is a request's options without num_predict, the one
// option that differs by purpose (answer, rewrite, one-token test).
func withoutLength(opts map[string]any) map[string]any {
	out := maps.Clone(opts)
	delete(out, "num_predict")
	return out
}

// TestOneWindowPerModel: against the fake that keeps Ollama's books, a
// doctor run, a question and a follow-up (its rewrite and its answer) send
// one set of options, so the model is loaded once and never again; the
// window is the Modelfile's num_ctx when it sets one, else the window the
// loaded model runs with, else the setting; doctor and every answer report
// that window and where it came from. Through Ollama's /v1 (the OpenAI
// provider) no request can carry a window: the requests still agree, and
// the window recorded is the one the server runs.
func TestOneWindowPerModel(t *testing.T) {
	cases := []struct {
		name     string
		openAI   bool
		model    ollamafake.Model
		preload  bool // loaded before Footnote asks, as by another program, at the server's default
		window   int
		source   string
		numCtxOn bool // requests carry num_ctx
	}{
		{"ollama, Modelfile num_ctx 2048", false, ollamafake.Model{Name: ollamafake.DefaultModel, NumCtx: 2048}, false, 2048, llm.WindowFromOllamaShow, true},
		{"ollama, model already loaded", false, ollamafake.Model{Name: ollamafake.DefaultModel}, true, ollamafake.DefaultNumCtx, llm.WindowFromOllamaPs, true},
		{"ollama, neither: the setting", false, ollamafake.Model{Name: ollamafake.DefaultModel}, false, 8192, llm.WindowFromSetting + " num_ctx", true},
		{"ollama /v1, Modelfile num_ctx 2048", true, ollamafake.Model{Name: ollamafake.DefaultModel, NumCtx: 2048}, false, 2048, llm.WindowFromOllamaShow, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := ollamafake.New(ollamafake.WithModels(tc.model))
			t.Cleanup(fake.Close)
			en := faultEngine(t, fake.URL(), func(s *config.Settings) {
				if tc.openAI {
					s.Provider, s.OpenAIBaseURL = config.ProviderOpenAI, fake.URL()
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			before := 0
			if tc.preload {
				u, _ := url.Parse(fake.URL())
				stream := false
				err := llm.NewClient(u, nil).Chat(ctx, &llm.ChatRequest{Model: tc.model.Name, Stream: &stream,
					Messages: []llm.Message{{Role: "user", Content: "hello"}}}, func(llm.ChatResponse) error { return nil })
				if err != nil {
					t.Fatal(err)
				}
				before = len(fake.Requests())
			}
			loads := fake.Loads()

			checks := en.Doctor(ctx)
			window, ok := checkNamed(checks, "context window")
			if want := fmt.Sprintf("%d tokens (%s", tc.window, tc.source); !ok || !strings.HasPrefix(window.Detail, want) {
				t.Errorf("doctor's window: %+v, want %q", window, want)
			}
			if gen, _ := checkNamed(checks, "test generation"); !gen.OK {
				t.Fatalf("doctor's test generation: %+v", gen)
			}
			first, err := en.AskInThread(ctx, "", rag.Request{ID: "q1", Question: question}, "", nil, AskOptions{})
			if err != nil {
				t.Fatal(err)
			}
			follow, err := en.AskInThread(ctx, first.Thread.ID, rag.Request{ID: "q2", Question: "And on Windows?"}, "", nil, AskOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if f := follow.Answer.Followup; f == nil || f.RewriteSource != rag.RewriteModel {
				t.Errorf("the follow-up was not rewritten by the model: %+v", f)
			}

			reqs := fake.Requests()[before:]
			purposes := []string{"doctor", "question", "follow-up rewrite", "follow-up answer"}
			if len(reqs) != len(purposes) {
				t.Fatalf("%d generation requests, want %d (%v)", len(reqs), len(purposes), purposes)
			}
			want := withoutLength(reqs[0].Options)
			for i, r := range reqs {
				t.Logf("%s: num_ctx %v, num_predict %v (window %d from %s)", purposes[i], r.Options["num_ctx"], r.Options["num_predict"], tc.window, tc.source)
				if got := withoutLength(r.Options); !maps.Equal(got, want) {
					t.Errorf("%s sent %v, the others %v", purposes[i], got, want)
				}
				if n, sent := r.Options["num_ctx"]; sent != tc.numCtxOn || (sent && n != float64(tc.window)) {
					t.Errorf("%s: num_ctx %v, want %d sent: %v", purposes[i], n, tc.window, tc.numCtxOn)
				}
			}
			if got := fake.Loads() - loads; got != 0 && !(got == 1 && !tc.preload) {
				t.Errorf("the model was loaded %d times in the run, want once at most (and not again)", got)
			}
			for _, a := range []rag.Answer{first.Answer, follow.Answer} {
				if g := a.Generation; g.ContextWindow != tc.window || g.ContextSource != tc.source {
					t.Errorf("%s: recorded window %d from %q, want %d from %q", a.Question, g.ContextWindow, g.ContextSource, tc.window, tc.source)
				}
			}
		})
	}
}

// TestAnswerFitsA1024Window: with a model made with PARAMETER num_ctx
// 1024, on both providers, the prompt and the answer length asked for
// (num_predict / max_tokens, cut from max_answer_tokens 1024) fit in the
// 1024 tokens, counted with the engine's own tokenizer; on Ollama's native
// API the fake, which cuts the start of a longer prompt as Ollama does,
// saw the whole prompt.
func TestAnswerFitsA1024Window(t *testing.T) {
	for _, openAI := range []bool{false, true} {
		t.Run(map[bool]string{false: "ollama", true: "openai"}[openAI], func(t *testing.T) {
			fake := ollamafake.New(ollamafake.WithModels(ollamafake.Model{Name: ollamafake.DefaultModel, NumCtx: 1024, ContextLength: 131072}))
			t.Cleanup(fake.Close)
			en := faultEngine(t, fake.URL(), func(s *config.Settings) {
				if openAI {
					s.Provider, s.OpenAIBaseURL = config.ProviderOpenAI, fake.URL()
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil)
			if err != nil {
				t.Fatal(err)
			}
			reqs := fake.Requests()
			sent := reqs[len(reqs)-1]
			prompt := 0
			for _, m := range sent.Messages {
				prompt += en.embedder.CountTokens(m.Content) + 8 // the chat template's markers
			}
			var length float64 // a JSON number from /api/chat, an int from /v1's max_tokens
			switch n := sent.Options["num_predict"].(type) {
			case float64:
				length = n
			case int:
				length = float64(n)
			}
			g := ans.Generation
			t.Logf("window %d (%s); prompt about %d tokens, answer length asked %v, max_answer_tokens %d",
				g.ContextWindow, g.ContextSource, prompt, length, en.cfg.Settings.MaxAnswerTokens)
			if g.ContextWindow != 1024 || g.ContextSource != llm.WindowFromOllamaShow || int(length) != g.NumPredict {
				t.Errorf("window %d from %q, length sent %v recorded %d", g.ContextWindow, g.ContextSource, length, g.NumPredict)
			}
			if length <= 0 || length >= float64(en.cfg.Settings.MaxAnswerTokens) || prompt+int(length) > 1024 {
				t.Errorf("prompt %d + answer %v exceed the 1024 window (or the length was not cut)", prompt, length)
			}
			if !openAI && ans.Usage.PromptTokens >= 1024 {
				t.Errorf("the server cut the prompt: it evaluated %d tokens of a 1024 window", ans.Usage.PromptTokens)
			}
		})
	}
}
