package verify_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/verify"
	"github.com/footnote-app/footnote/bench/claims"
)

// TestAlteredSQuADProbes holds the verifier to its figures on altered
// claims built from public text (bench/claims/probes.go): each sentence of
// the SQuAD extract's paragraphs citing its own paragraph, and the same
// sentence citing the article's nearest other paragraph, with a number
// changed, with "not" inserted, or with a name swapped for another of its
// paragraph. `make bench` reports the same figures (bench/RESULTS.md).
//
// When these limits were set, the verifier kept grounded
// 0.986 of the originals, and of the altered claims: wrong passage 16 of
// 219 (0.073), changed number 1 of 141, negation 2 of 124, swapped name 1
// of 184. The goal for every altered kind is at most 0.05; the wrong
// passage misses it (some of its 16 are facts the other paragraph
// restates, which no verifier should refuse, but not all), so its limit
// here is the level reached, to catch a regression, not the goal.
func TestAlteredSQuADProbes(t *testing.T) {
	probes, err := claims.MakeProbes(filepath.Join("..", "..", "bench", "data", "squad", "extract.json"))
	if err != nil {
		t.Fatal(err)
	}
	reps, err := claims.RunProbes(context.Background(), &verify.Verifier{Stats: claims.ProbeStats(probes)}, probes)
	if err != nil {
		t.Fatal(err)
	}
	limits := map[string]float64{
		claims.ProbeWrongPassage: 0.08,
		claims.ProbeNumber:       0.05,
		claims.ProbeNegation:     0.05,
		claims.ProbeName:         0.05,
	}
	seen := 0
	for _, r := range reps {
		t.Logf("%-14s n=%3d grounded %.3f supported %.3f", r.Kind, r.N, r.Grounded, r.Supported)
		if r.N < 100 {
			t.Errorf("%s: only %d probes, want at least 100", r.Kind, r.N)
		}
		if r.Kind == claims.ProbeOriginal {
			seen++
			if r.Grounded < 0.95 {
				t.Errorf("original sentences citing their own paragraph: %.3f grounded, want at least 0.95", r.Grounded)
			}
			continue
		}
		limit, ok := limits[r.Kind]
		if !ok {
			t.Errorf("probe kind %q has no limit", r.Kind)
			continue
		}
		seen++
		if r.Grounded > limit {
			t.Errorf("%s: %.3f of altered claims keep the answer grounded, want at most %.2f", r.Kind, r.Grounded, limit)
		}
	}
	if seen != 1+len(limits) {
		t.Errorf("got %d probe kinds, want %d", seen, 1+len(limits))
	}
}
