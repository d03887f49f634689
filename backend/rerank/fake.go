package rerank

import (
	"context"
	"strings"
	"unicode"
)

// Fake is a Reranker without a model. By default it scores a passage by the
// share of the query's distinct words it contains; Score replaces that rule
// and Err makes every call fail.
type Fake struct {
	Score func(query, passage string) float32
	Err   error
}

var _ Reranker = Fake{}

// Rerank scores each passage with f.Score (or word overlap).
func (f Fake) Rerank(ctx context.Context, query string, passages []string) ([]float32, error) {
	if f.Err != nil {
		return nil, f.Err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	score := f.Score
	if score == nil {
		score = WordOverlap
	}
	out := make([]float32, len(passages))
	for i, p := range passages {
		out[i] = score(query, p)
	}
	return out, nil
}

// Name is "fake".
func (Fake) Name() string { return "fake" }

// WordOverlap is the share of the query's distinct words (lower-cased
// letters and digits) that occur in the passage, in [0,1].
func WordOverlap(query, passage string) float32 {
	q := words(query)
	if len(q) == 0 {
		return 0
	}
	p := words(passage)
	hit := 0
	for w := range q {
		if p[w] {
			hit++
		}
	}
	return float32(hit) / float32(len(q))
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[w] = true
	}
	return out
}
