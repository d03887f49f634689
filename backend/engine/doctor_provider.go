package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/openai"
)

// checkProvider checks the configured model server the way `ask` uses it:
// server reachable, model listed, context window, a one-token generation.
func (e *Engine) checkProvider(ctx context.Context) []Check {
	var checks []Check
	if e.cfg.Settings.Provider == config.ProviderOpenAI {
		checks = e.checkOpenAI(ctx)
	} else {
		checks = e.checkOllama(ctx)
		if len(checks) == 2 && checks[1].OK {
			checks = append(checks, e.checkOllamaWindow(ctx))
		}
	}
	openAI := e.cfg.Settings.Provider == config.ProviderOpenAI
	if len(checks) < 2 || !checks[0].OK || (!checks[1].OK && !openAI) {
		return checks // nothing to generate with
	}
	gen := e.checkGeneration(ctx)
	// A model the server does not list may still answer (some servers
	// accept names they do not list); the test generation decides.
	if model := &checks[1]; !model.OK && gen.OK {
		model.OK, model.Fix = true, ""
		model.Detail += "; the server answers to it anyway"
	}
	return append(checks, gen)
}

// checkOpenAI: the OpenAI-compatible server answers, lists the model, and
// says which context window it runs the model with.
func (e *Engine) checkOpenAI(ctx context.Context) []Check {
	s := e.cfg.Settings
	server := Check{Name: "model server (OpenAI-compatible)"}
	c, err := e.openAIClient()
	if err != nil {
		server.Detail, server.Fix = err.Error(), e.providerFix(err)
		return []Check{server}
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, err := c.Models(lctx)
	if err != nil {
		server.Detail, server.Fix = e.describeOpenAI(err, c.Host(), s.LLMModel), e.providerFix(err)
		return []Check{server}
	}
	server.OK, server.Detail = true, fmt.Sprintf("%s, models listed: %d", c.Host(), len(models))
	model := Check{Name: "LLM model"}
	if m, err := c.FindModel(lctx, s.LLMModel); err != nil {
		model.Detail, model.Fix = fmt.Sprintf("%q is not among the models the server lists", s.LLMModel), e.providerFix(err)
	} else {
		model.OK, model.Detail = true, m.ID
	}
	window := Check{Name: "context window", OK: true}
	if w := e.discoverWindow(ctx, c, s.LLMModel); w.Tokens > 0 {
		window.Detail = fmt.Sprintf("%d tokens (%s)", w.Tokens, w.Source)
	} else {
		window.Detail = fmt.Sprintf("%d tokens assumed: the server does not report its window (set %s to the window it runs)", s.ContextWindow, config.EnvContextWindow)
	}
	return []Check{server, model, window}
}

// checkOllamaWindow: the window sent as num_ctx, capped at the model's.
func (e *Engine) checkOllamaWindow(ctx context.Context) Check {
	c := Check{Name: "context window", OK: true}
	n := e.cfg.Settings.NumCtx
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if trained, err := e.llm.ContextLength(sctx, e.cfg.Settings.LLMModel); err == nil && trained < n {
		c.Detail = fmt.Sprintf("%d tokens (the model's own window, sent as num_ctx)", trained)
	} else {
		c.Detail = fmt.Sprintf("%d tokens (num_ctx setting, sent with every question)", n)
	}
	return c
}

// checkGeneration asks the model for one token, as a question would.
func (e *Engine) checkGeneration(ctx context.Context) Check {
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
		Options:  map[string]any{"num_predict": 1, "temperature": 0},
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
