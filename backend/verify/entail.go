package verify

import (
	"context"
	"fmt"
)

// Entailer scores how strongly each span entails the claim, in [0,1]. It is
// optional: a Verifier without one uses lexical, constraint and semantic
// signals only.
type Entailer interface {
	// Entail returns one score per span, in order.
	Entail(ctx context.Context, claim string, spans []string) ([]float32, error)
	// Name identifies the model in recorded signals and provenance.
	Name() string
}

// PairScorer is a cross-encoder that scores (query, passage) pairs in
// (0,1), as rerank.Hugot does.
type PairScorer interface {
	Rerank(ctx context.Context, query string, passages []string) ([]float32, error)
	Name() string
}

// CrossEncoder uses a one-label cross-encoder as the entailment model: the
// claim is the query and each span a passage. Load a model trained to
// score whether a passage supports a statement (a fact-verification or
// NLI-entailment head exported with one label); a relevance model such as
// ms-marco measures topic, not support, and is only a weak signal here.
type CrossEncoder struct {
	Model PairScorer
}

var _ Entailer = CrossEncoder{}

// Entail scores every span against the claim.
func (c CrossEncoder) Entail(ctx context.Context, claim string, spans []string) ([]float32, error) {
	return c.Model.Rerank(ctx, claim, spans)
}

// Name is the model's name.
func (c CrossEncoder) Name() string { return c.Model.Name() }

// entail adds the entailment signal to each result's chosen span and
// recombines its score; one model call per claim.
func (v *Verifier) entail(ctx context.Context, claim string, results []Result) error {
	if v.Entailer == nil {
		return nil
	}
	var spans []string
	var idx []int
	for i, r := range results {
		if r.Span.Text != "" {
			spans = append(spans, r.Span.Text)
			idx = append(idx, i)
		}
	}
	if len(spans) == 0 {
		return nil
	}
	scores, err := v.Entailer.Entail(ctx, claim, spans)
	if err != nil {
		return fmt.Errorf("entailment model %s: %w", v.Entailer.Name(), err)
	}
	if len(scores) != len(spans) {
		return fmt.Errorf("entailment model %s returned %d scores for %d spans", v.Entailer.Name(), len(scores), len(spans))
	}
	for k, i := range idx {
		r := &results[i]
		r.Signals.Entailment = ptr(round3(float64(scores[k])))
		score, verdict := Combine(r.Signals)
		r.Score, r.Verdict = round3(score), verdict
		r.Reason = reason(verdict, r.Signals)
	}
	return nil
}
