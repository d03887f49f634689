package engine

import (
	"context"
	"sync"
	"time"
	"unicode"

	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/verify"
)

// verification holds the claim verifier, built once per open index: its
// term statistics come from the index's own keyword table, its semantic
// signal from the loaded embedding model.
type verification struct {
	mu    sync.Mutex
	v     *verify.Verifier
	store *store.Store // the index v was built for
}

// verifier returns the engine's claim verifier. Semantics are computed only
// for pairs the lexical signals leave undecided, so a full-size embedding
// model stays within the per-answer budget. No entailment model is loaded.
func (e *Engine) verifier() *verify.Verifier {
	e.vf.mu.Lock()
	defer e.vf.mu.Unlock()
	if e.vf.v == nil || e.vf.store != e.store {
		e.vf.store = e.store
		e.vf.v = &verify.Verifier{SemanticOnlyIfUndecided: true, Embedder: e.embedder}
		if e.store != nil {
			e.vf.v.Stats = &indexStats{store: e.store}
		}
	}
	return e.vf.v
}

// indexStatsRefresh is how often the chunk count is re-read; when it
// changed (an ingest ran), the cached frequencies are dropped.
const indexStatsRefresh = 2 * time.Second

// indexStats answers verify.TermStats from the keyword index, caching each
// word's frequency until the index changes.
type indexStats struct {
	store *store.Store

	mu     sync.Mutex
	docs   int
	readAt time.Time
	freq   map[string]int
}

func (s *indexStats) DocCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return s.docs
}

// refresh re-reads the chunk count when it is older than indexStatsRefresh.
func (s *indexStats) refresh() {
	if !s.readAt.IsZero() && time.Since(s.readAt) < indexStatsRefresh {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, chunks, err := s.store.Counts(ctx)
	if err != nil {
		return // keep the last figures; weights degrade, verdicts still come
	}
	if chunks != s.docs || s.freq == nil {
		s.docs, s.freq = chunks, map[string]int{}
	}
	s.readAt = time.Now()
}

func (s *indexStats) DocFreq(word string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	if n, ok := s.freq[word]; ok {
		return n
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	prefix := false
	for _, r := range word {
		prefix = unicode.Is(unicode.Hangul, r)
		break
	}
	n, err := s.store.TermDocFreq(ctx, word, prefix)
	if err != nil {
		return 0
	}
	if s.freq != nil {
		s.freq[word] = n
	}
	return n
}
