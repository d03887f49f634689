package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/openai"
)

// serverWindows caches the window an OpenAI-compatible server reported
// (host + model → llm.ContextWindow), so it is asked once per process, not
// before every question.
var serverWindows sync.Map

// openAIWindow learns the window the server runs model with (see
// openai.Client.ContextWindow); when the server does not say, it is the
// context_window setting, which is not cached so a later answer asks again.
func (e *Engine) openAIWindow(c *openai.Client) func(context.Context, string) (int, string) {
	fallback := e.cfg.Settings.ContextWindow
	return func(ctx context.Context, model string) (int, string) {
		w := e.discoverWindow(ctx, c, model)
		if w.Tokens > 0 {
			return w.Tokens, w.Source
		}
		return fallback, fmt.Sprintf("%s context_window (the server does not report its window)", llm.WindowFromSetting)
	}
}

// discoverWindow asks (or remembers) the server's window; zero when unknown.
func (e *Engine) discoverWindow(ctx context.Context, c *openai.Client, model string) llm.ContextWindow {
	key := c.Host() + "\x00" + model
	if w, ok := serverWindows.Load(key); ok {
		return w.(llm.ContextWindow)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	w, _ := c.ContextWindow(ctx, model)
	if w.Tokens > 0 {
		serverWindows.Store(key, w)
	}
	return w
}
