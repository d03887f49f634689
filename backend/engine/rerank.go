package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/rerank"
	"github.com/footnote-app/footnote/backend/search"
)

// reranking is the optional cross-encoder. It loads in the background
// beside the embedding model when the settings name a folder; without one,
// or when it fails to load, search runs unreranked and Doctor says why.
type reranking struct {
	once     sync.Once
	done     chan struct{} // closed when loading ended (or was never needed)
	injected search.Reranker
	r        search.Reranker // nil when off or failed
	loaded   *rerank.Hugot   // what Close releases
	err      error
}

// WithReranker uses r instead of loading the settings' rerank model folder.
func WithReranker(r search.Reranker) Option { return func(en *Engine) { en.rr.injected = r } }

// startReranker begins loading the reranker once per engine.
func (e *Engine) startReranker() {
	e.rr.once.Do(func() {
		e.rr.done = make(chan struct{})
		dir := e.cfg.Settings.RerankModelDir
		switch {
		case e.rr.injected != nil:
			e.rr.r = e.rr.injected
		case dir != "":
			go func() {
				defer close(e.rr.done)
				h, err := rerank.Load(context.Background(), dir)
				if err != nil {
					e.rr.err = fmt.Errorf("%w (or unset %s to search without reranking)", err, config.EnvRerankModel)
					return
				}
				e.rr.r, e.rr.loaded = h, h
			}()
			return
		}
		close(e.rr.done)
	})
}

// reranker waits for the reranker to load and returns it, or nil when
// reranking is off, failed, or ctx ended first.
func (e *Engine) reranker(ctx context.Context) search.Reranker {
	e.startReranker()
	select {
	case <-e.rr.done:
		return e.rr.r
	case <-ctx.Done():
		return nil
	}
}

// RerankerStatus reports the reranker: its model name when on, "" when
// off, and the load error when the configured folder could not be used.
// It waits for a load in progress.
func (e *Engine) RerankerStatus(ctx context.Context) (name string, err error) {
	if r := e.reranker(ctx); r != nil {
		return r.Name(), nil
	}
	select {
	case <-e.rr.done:
		return "", e.rr.err
	default:
		return "", ctx.Err()
	}
}

// retriever is the searcher, wrapped by the reranker when one is on.
func (e *Engine) retriever(ctx context.Context) rag.Retriever {
	s := e.searcher()
	r := e.reranker(ctx)
	if r == nil {
		return s
	}
	return &search.Reranking{Base: s, Reranker: r, Top: e.cfg.Settings.RerankTop}
}

// checkReranker is Doctor's line for the reranker; none when it is off.
func (e *Engine) checkReranker(ctx context.Context) []Check {
	if e.cfg.Settings.RerankModelDir == "" && e.rr.injected == nil {
		return nil
	}
	name, err := e.RerankerStatus(ctx)
	c := Check{Name: "reranker", OK: err == nil && name != "", Detail: name}
	if err != nil {
		c.Detail = err.Error()
		c.Fix = fmt.Sprintf("set %s (or rerank_model_dir) to a cross-encoder ONNX export folder, or unset it", config.EnvRerankModel)
	}
	if c.OK {
		top := e.cfg.Settings.RerankTop
		if top <= 0 {
			top = search.DefaultRerankTop
		}
		c.Detail = fmt.Sprintf("%s (reorders the top %d hits)", name, top)
	}
	return []Check{c}
}

// closeReranker stops a pending load from mattering and releases the model.
func (e *Engine) closeReranker() error {
	e.rr.once.Do(func() { // never started: nothing may start after Close
		e.rr.done = make(chan struct{})
		close(e.rr.done)
	})
	<-e.rr.done
	if e.rr.loaded != nil {
		return e.rr.loaded.Close()
	}
	return nil
}
