package engine

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/rerank"
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

	entOnce  sync.Once
	entModel *rerank.Hugot   // the optional entailment model's cross-encoder, closed with the engine
	ent      verify.Entailer // entModel read by its labels; nil when off or failed
	entErr   error
}

// verifier returns the engine's claim verifier. Semantics are computed only
// for pairs the lexical signals leave undecided, so a full-size embedding
// model stays within the per-answer budget. The entailment model named by
// the settings is loaded with the first verifier.
func (e *Engine) verifier() *verify.Verifier {
	e.vf.mu.Lock()
	defer e.vf.mu.Unlock()
	if e.vf.v == nil || e.vf.store != e.store {
		e.vf.store = e.store
		e.vf.v = &verify.Verifier{SemanticOnlyIfUndecided: true}
		if e.absentModel() == nil {
			e.vf.v.Embedder = e.embedder // without a model the verifier judges words alone
		}
		if ent := e.entailer(); ent != nil {
			e.vf.v.Entailer = ent
		}
		if e.store != nil {
			e.vf.v.Stats = &indexStats{store: e.store}
		}
	}
	return e.vf.v
}

// entailer loads the settings' entailment model once; nil when none is
// set or it failed to load (Doctor says why).
func (e *Engine) entailer() verify.Entailer {
	dir := e.cfg.Settings.VerifyModelDir
	if dir == "" {
		return nil
	}
	e.vf.entOnce.Do(func() {
		ent, model, err := loadEntailer(context.Background(), dir)
		if err != nil {
			e.vf.entErr = fmt.Errorf("%w (or unset %s to verify claims without an entailment model)", err, config.EnvVerifyModel)
			return
		}
		e.vf.ent, e.vf.entModel = ent, model
	})
	return e.vf.ent
}

// loadEntailer loads the cross-encoder in dir and reads its labels as
// entailment (one label, or NLI labels naming entailment).
func loadEntailer(ctx context.Context, dir string) (verify.Entailer, *rerank.Hugot, error) {
	model, err := rerank.LoadClassifier(ctx, dir, "entailment model")
	if err != nil {
		return nil, nil, err
	}
	ent, err := verify.NewCrossEncoder(model)
	if err != nil {
		_ = model.Close()
		return nil, nil, fmt.Errorf("entailment model folder %s: %w", dir, err)
	}
	return ent, model, nil
}

// checkVerifier is Doctor's line for the entailment model; none when off.
func (e *Engine) checkVerifier() []Check {
	if e.cfg.Settings.VerifyModelDir == "" {
		return nil
	}
	e.vf.mu.Lock()
	ent := e.entailer()
	e.vf.mu.Unlock()
	if ent == nil {
		return []Check{{Name: "claim verifier", Detail: e.vf.entErr.Error(),
			Fix: fmt.Sprintf("set %s (or verify_model_dir) to a cross-encoder ONNX export folder with one label or NLI labels (entailment, neutral, contradiction), e.g. from `footnote model download --verify`, or unset it", config.EnvVerifyModel)}}
	}
	return []Check{{Name: "claim verifier", OK: true, Detail: ent.Name() + " (" + entailerSignals(ent) + ")"}}
}

// entailerSignals says what the entailment model adds to verification.
func entailerSignals(ent verify.Entailer) string {
	if j, ok := ent.(verify.Judge); ok && j.TellsContradiction() {
		return "entailment and contradiction signals"
	}
	return "entailment signal"
}

// closeVerifier releases the entailment model.
func (e *Engine) closeVerifier() error {
	e.vf.mu.Lock()
	defer e.vf.mu.Unlock()
	e.vf.entOnce.Do(func() {}) // nothing may load after Close
	if e.vf.entModel != nil {
		return e.vf.entModel.Close()
	}
	return nil
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
