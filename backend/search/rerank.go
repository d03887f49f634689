package search

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// DefaultRerankTop is how many fused hits a reranker reads by default: a
// cross-encoder costs one model run per hit, so it only reorders the head
// of the list, where citations come from.
const DefaultRerankTop = 20

// Reranker scores passages against a query, higher meaning more relevant
// (backend/rerank implements it).
type Reranker interface {
	Rerank(ctx context.Context, query string, passages []string) ([]float32, error)
	Name() string
}

// RerankHits reorders the first top hits (all when top ≤ 0) by the
// reranker's score of their text — ties broken by section_id then
// snippet_id, so results stay deterministic — and records each one's
// RerankScore. Hits past top keep their fused order after the reranked
// ones. KFinal is renumbered for every hit; the explain trail's k_pos stays
// each retriever's rank before fusion.
func RerankHits(ctx context.Context, r Reranker, query string, hits []Hit, top int) error {
	if top <= 0 || top > len(hits) {
		top = len(hits)
	}
	head := hits[:top]
	if len(head) == 0 {
		return nil
	}
	texts := make([]string, len(head))
	for i, h := range head {
		texts[i] = h.Text
	}
	scores, err := r.Rerank(ctx, query, texts)
	if err != nil {
		return fmt.Errorf("rerank with %s: %w", r.Name(), err)
	}
	if len(scores) != len(head) {
		return fmt.Errorf("rerank with %s: %d scores for %d passages", r.Name(), len(scores), len(head))
	}
	for i := range head {
		s := float64(scores[i])
		head[i].RerankScore = &s
	}
	sort.SliceStable(head, func(i, j int) bool {
		a, b := head[i], head[j]
		if *a.RerankScore != *b.RerankScore {
			return *a.RerankScore > *b.RerankScore
		}
		if a.SectionID != b.SectionID {
			return a.SectionID < b.SectionID
		}
		return a.SnippetID < b.SnippetID
	})
	for i := range hits {
		hits[i].KFinal = i + 1
	}
	return nil
}

// Retriever is what Reranking wraps: a Searcher, or anything searching like one.
type Retriever interface {
	Search(ctx context.Context, query string, opts Options) (Result, error)
}

// Reranking is a Retriever that reranks the top Top hits of Base (0 means
// DefaultRerankTop). It fetches at least Top hits whatever the caller's
// Limit, so the reranker chooses among the same candidates for any limit,
// then cuts to the Limit. Options.NoRerank passes the search straight to Base.
type Reranking struct {
	Base     Retriever
	Reranker Reranker
	Top      int
}

// Search retrieves, fuses and reranks.
func (r *Reranking) Search(ctx context.Context, query string, opts Options) (Result, error) {
	if opts.NoRerank {
		return r.Base.Search(ctx, query, opts)
	}
	top := r.Top
	if top <= 0 {
		top = DefaultRerankTop
	}
	limit := opts.Limit
	if limit > 0 && limit < top {
		opts.Limit = top
	}
	res, err := r.Base.Search(ctx, query, opts)
	if err != nil || len(res.Hits) == 0 {
		return res, err
	}
	start := time.Now()
	if err := RerankHits(ctx, r.Reranker, query, res.Hits, top); err != nil {
		return Result{}, err
	}
	res.Reranker = r.Reranker.Name()
	res.Elapsed += time.Since(start)
	if limit > 0 && len(res.Hits) > limit {
		res.Hits = res.Hits[:limit]
	}
	return res, nil
}
