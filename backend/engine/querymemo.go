package engine

import (
	"context"
	"slices"
	"sync"

	"github.com/footnote-app/footnote/backend/embed"
)

// queryMemo remembers the vectors of the last few queries. A question
// asked with the answer cache on is embedded for the cache lookup and
// again by retrieval; the second time it now costs a map lookup instead of
// a model call (~12 ms on MiniLM-L6).
type queryMemo struct {
	embed.Embedder
	mu     sync.Mutex
	recent map[string][]float32
	order  []string // oldest first
}

const queryMemoSize = 16

func rememberQueries(e embed.Embedder) embed.Embedder {
	if e == nil {
		return nil
	}
	if _, ok := e.(*queryMemo); ok {
		return e
	}
	return &queryMemo{Embedder: e, recent: map[string][]float32{}}
}

func (m *queryMemo) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	m.mu.Lock()
	vec, ok := m.recent[text]
	m.mu.Unlock()
	if ok {
		return slices.Clone(vec), nil // callers may keep or change their copy
	}
	vec, err := m.Embedder.EmbedQuery(ctx, text)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.recent[text]; !ok {
		if len(m.order) == queryMemoSize {
			delete(m.recent, m.order[0])
			m.order = m.order[1:]
		}
		m.order = append(m.order, text)
		m.recent[text] = slices.Clone(vec)
	}
	return vec, nil
}

// Coverage passes the model's vocabulary coverage through (embed.Coverer);
// a model that cannot say covers everything.
func (m *queryMemo) Coverage(text string) float64 {
	if c, ok := m.Embedder.(embed.Coverer); ok {
		return c.Coverage(text)
	}
	return 1
}
