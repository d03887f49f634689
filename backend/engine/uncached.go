package engine

import (
	"context"

	"github.com/footnote-app/footnote/backend/rag"
)

// AskUncached is AskWith without the semantic answer cache: nothing is
// served from it and nothing is written to it. Live evaluation uses it, so
// a score measures the pipeline on this question and a test question's
// answer never reaches a user's cache.
func (e *Engine) AskUncached(ctx context.Context, req rag.Request, sink rag.Sink, adjust func(*rag.Pipeline)) (rag.Answer, error) {
	if err := e.Ready(ctx); err != nil {
		return rag.Answer{}, err
	}
	if err := e.CheckRemoteServer(); err != nil {
		return rag.Answer{}, err
	}
	ctx, done, err := e.track(ctx)
	if err != nil {
		return rag.Answer{}, err
	}
	defer done()
	e.lib.swapMu.RLock()
	defer e.lib.swapMu.RUnlock()
	p := e.Pipeline()
	if adjust != nil {
		adjust(p)
	}
	ans, err := p.Ask(ctx, req, sink)
	if err != nil && e.store != nil {
		err = e.store.Explain(err)
	}
	return ans, err
}
