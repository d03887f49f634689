package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/openai"
)

// windows holds the one context window decided for each server and model
// (key: provider, host, model and setting), for the life of the process.
// Every request to the model carries it — answers, follow-up rewrites,
// doctor's test generation, evaluation — because Ollama loads a model
// again whenever num_ctx changes between requests, which costs seconds
// with a real model; and the server is asked once, not before every
// question. Only a window the server's answers decided is kept: after a
// failure the next request asks again.
var windows sync.Map

// windowAskTimeout bounds asking a server for its window.
const windowAskTimeout = 5 * time.Second

// decidedWindow returns the window kept under key, or decides it with ask
// and keeps it when the server's answers decided it (ok).
func decidedWindow(ctx context.Context, key string, ask func(context.Context) (w llm.ContextWindow, ok bool)) llm.ContextWindow {
	if w, ok := windows.Load(key); ok {
		return w.(llm.ContextWindow)
	}
	ctx, cancel := context.WithTimeout(ctx, windowAskTimeout)
	defer cancel()
	w, ok := ask(ctx)
	if ok {
		windows.Store(key, w)
	}
	return w
}

// ollamaWindow decides the window of a model on an Ollama server
// (llm.ChooseWindow: the Modelfile's num_ctx, else the loaded model's,
// else the num_ctx setting capped at the trained length). A server that
// cannot be asked gets the setting, not kept.
func (e *Engine) ollamaWindow(c *llm.Client) func(context.Context, string) llm.ContextWindow {
	setting := e.cfg.Settings.NumCtx
	return func(ctx context.Context, model string) llm.ContextWindow {
		key := fmt.Sprintf("ollama\x00%s\x00%s\x00%d", c.Host(), model, setting)
		return decidedWindow(ctx, key, func(ctx context.Context) (llm.ContextWindow, bool) {
			w, err := c.ContextWindow(ctx, model, setting)
			if err != nil {
				return llm.ContextWindow{Tokens: setting, Source: fmt.Sprintf("%s num_ctx: %s", llm.WindowFromSetting, notAsked(err))}, false
			}
			return w, true
		})
	}
}

// openAIWindow learns the window an OpenAI-compatible server runs model
// with (openai.Client.ContextWindow); when the server does not say, it is
// the context_window setting, not kept, so a later request asks again (Ollama
// behind /v1, say, reports a model's window once it is loaded). No request
// can choose the window there, so asking again never reloads the model. A
// loaded window behind Ollama's /v1 is trusted up to the setting only.
func (e *Engine) openAIWindow(c *openai.Client) func(context.Context, string) llm.ContextWindow {
	return func(ctx context.Context, model string) llm.ContextWindow {
		return e.serverWindow(ctx, c, model, nil)
	}
}

// serverWindow is openAIWindow for a caller that may already hold the
// server's /v1/models listing (nil: ask for it).
func (e *Engine) serverWindow(ctx context.Context, c *openai.Client, model string, listed []openai.Model) llm.ContextWindow {
	setting := e.cfg.Settings.ContextWindow
	key := fmt.Sprintf("openai\x00%s\x00%s", c.Host(), model)
	return decidedWindow(ctx, key, func(ctx context.Context) (llm.ContextWindow, bool) {
		var w llm.ContextWindow
		var err error
		if listed != nil {
			w, err = c.ContextWindowListed(ctx, listed, model)
		} else {
			w, err = c.ContextWindow(ctx, model)
		}
		switch {
		case w.Source == llm.WindowFromOllamaPs && w.Tokens > setting:
			// A /v1 request cannot ask for a window: it runs at Ollama's
			// default, and the loaded window may be one another client
			// asked for natively, which /v1 would load the model away from.
			// Packing for a smaller one is safe; for a larger one it is not.
			w.Tokens, w.Source = setting, fmt.Sprintf("%s context_window, below the window the model is loaded with (%s)", llm.WindowFromSetting, llm.WindowFromOllamaPs)
			return w, true
		case w.Tokens > 0:
			return w, true
		case err != nil:
			return llm.ContextWindow{Tokens: setting, Source: fmt.Sprintf("%s context_window: %s", llm.WindowFromSetting, notAsked(err))}, false
		default:
			return llm.ContextWindow{Tokens: setting, Source: llm.WindowFromSetting + " context_window: the server does not report its window"}, false
		}
	})
}

// notAsked says why a server's window could not be learned, without
// claiming the server does not report one.
func notAsked(err error) string {
	switch {
	case errors.Is(err, llm.ErrUnreachable):
		return "the server did not answer"
	case errors.Is(err, llm.ErrModelNotFound):
		return "the server does not have the model"
	default:
		return "the server could not be asked: " + err.Error()
	}
}
