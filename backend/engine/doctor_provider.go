package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/openai"
	"github.com/footnote-app/footnote/backend/rag"
)

// checkProvider checks the configured model server the way `ask` uses it:
// server reachable, model listed, context window, a one-token generation
// carrying the window every question carries.
func (e *Engine) checkProvider(ctx context.Context) []Check {
	var checks []Check
	var window llm.ContextWindow
	openAI := e.cfg.Settings.Provider == config.ProviderOpenAI
	if openAI {
		checks, window = e.checkOpenAI(ctx)
	} else {
		checks = e.checkOllama(ctx)
		if len(checks) == 2 && checks[1].OK {
			var c Check
			c, window = e.checkOllamaWindow(ctx)
			checks = append(checks, c)
		}
	}
	if len(checks) < 2 || !checks[0].OK || (!checks[1].OK && !openAI) {
		return checks // nothing to generate with
	}
	gen := e.checkGeneration(ctx, window)
	// A model the server does not list may still answer (some servers
	// accept names they do not list); the test generation decides.
	if model := &checks[1]; !model.OK && gen.OK {
		model.OK, model.Fix = true, ""
		model.Detail += "; the server answers to it anyway"
	}
	return append(checks, gen)
}

// checkOpenAI: the OpenAI-compatible server answers, lists the model, and
// says which context window it runs the model with. /v1/models is asked
// once for all three.
func (e *Engine) checkOpenAI(ctx context.Context) ([]Check, llm.ContextWindow) {
	s := e.cfg.Settings
	server := Check{Name: "model server (OpenAI-compatible)"}
	c, err := e.openAIClient()
	if err != nil {
		server.Detail, server.Fix = err.Error(), e.providerFix(err)
		return []Check{server}, llm.ContextWindow{}
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, err := c.Models(lctx)
	if err != nil {
		server.Detail, server.Fix = e.describeOpenAI(err, c.Host(), s.LLMModel), e.providerFix(err)
		return []Check{server}, llm.ContextWindow{}
	}
	server.OK, server.Detail = true, fmt.Sprintf("%s, models listed: %d", c.Host(), len(models))
	model := Check{Name: "LLM model"}
	if m, err := openai.FindIn(models, s.LLMModel); err != nil {
		model.Detail, model.Fix = fmt.Sprintf("%q is not among the models the server lists", s.LLMModel), e.providerFix(err)
	} else {
		model.OK, model.Detail = true, m.ID
	}
	w := e.serverWindow(ctx, c, s.LLMModel, models)
	window := Check{Name: "context window", OK: true, Detail: fmt.Sprintf("%d tokens (%s)", w.Tokens, w.Source)}
	if strings.HasPrefix(w.Source, llm.WindowFromSetting) {
		window.Detail += fmt.Sprintf(", assumed; set %s to the window the server runs", config.EnvContextWindow)
	}
	return []Check{server, model, window}, w
}

// checkOllamaWindow: the one window of the model, sent as num_ctx with
// every request to it (the test generation too).
func (e *Engine) checkOllamaWindow(ctx context.Context) (Check, llm.ContextWindow) {
	w := e.ollamaWindow(e.llm)(ctx, e.cfg.Settings.LLMModel)
	return Check{Name: "context window", OK: true,
		Detail: fmt.Sprintf("%d tokens (%s), sent as num_ctx with every request", w.Tokens, w.Source)}, w
}

// checkGeneration asks the model for one token, as a question would: with
// the options every request to the model carries (window as num_ctx), so
// the test loads the model the way the next question uses it.
func (e *Engine) checkGeneration(ctx context.Context, window llm.ContextWindow) Check {
	c := Check{Name: "test generation"}
	gen, err := e.generator()
	if err != nil {
		c.Detail, c.Fix = err.Error(), e.providerFix(err)
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, max(time.Duration(e.cfg.Settings.FirstTokenTimeoutS)*time.Second, 10*time.Second))
	defer cancel()
	model, stream := e.cfg.Settings.LLMModel, false
	start := time.Now()
	err = gen.llm.Chat(ctx, &llm.ChatRequest{
		Model: model, Stream: &stream,
		Messages: []llm.Message{{Role: "user", Content: "Reply with the word OK."}},
		Options:  rag.RequestOptions(window.Tokens, e.cfg.Settings.Seed, 1),
	}, func(llm.ChatResponse) error { return nil })
	if err != nil {
		c.Detail, c.Fix = gen.describe(err, model), e.providerFix(err)
		return c
	}
	c.OK, c.Detail = true, fmt.Sprintf("%s answered in %d ms", model, time.Since(start).Milliseconds())
	return c
}

// providerFix says how to fix a model-server failure, chosen by the
// error's kind (never by its text).
func (e *Engine) providerFix(err error) string {
	s := e.cfg.Settings
	openAI := s.Provider == config.ProviderOpenAI
	address := config.EnvOllamaHost
	if openAI {
		address = "openai_base_url in Settings"
		if s.OpenAIBaseURLFromEnv {
			address = config.EnvOpenAIURL
		}
	}
	var se *llm.StatusError
	var remote *RemoteServerError
	switch {
	case errors.As(err, &remote):
		return fmt.Sprintf("confirm the server in Settings, or set %s=1 for this process", config.EnvAllowRemote)
	case errors.Is(err, openai.ErrKeyOverPlainHTTP):
		return fmt.Sprintf("use an https:// address for that server, or unset %s", config.EnvOpenAIKey)
	case errors.Is(err, llm.ErrUnreachable) && openAI:
		return fmt.Sprintf("start the server (%s) or set %s to its address", openai.ServerStartHint, address)
	case errors.Is(err, llm.ErrUnreachable):
		return "start Ollama (`ollama serve`) or set OLLAMA_HOST to where it runs"
	case errors.Is(err, llm.ErrModelNotFound) && openAI:
		return fmt.Sprintf("load %s in the server, or set %s to a model it lists", s.LLMModel, config.EnvLLMModel)
	case errors.Is(err, llm.ErrModelNotFound):
		return fmt.Sprintf("run `ollama pull %s` or set %s to an installed model", s.LLMModel, config.EnvLLMModel)
	case errors.As(err, &se) && (se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden):
		return fmt.Sprintf("set %s to the key the server expects", config.EnvOpenAIKey)
	case errors.Is(err, llm.ErrFirstTokenTimeout), errors.Is(err, context.DeadlineExceeded):
		return "the model may still be loading: run `footnote doctor` again in a minute, or pick a smaller model"
	case errors.Is(err, llm.ErrMalformedStream):
		return fmt.Sprintf("check that %s points to the model server", address)
	default:
		return "see the model server's log for the cause"
	}
}
