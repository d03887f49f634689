package search

import (
	"math"
	"testing"
)

// list makes a ranked candidate list from raw scores (lower = better).
func list(prefix string, scores ...float64) []Candidate {
	out := make([]Candidate, len(scores))
	for i, s := range scores {
		out[i] = Candidate{SnippetID: prefix + string(rune('a'+i)), ScoreRaw: s, Rank: i + 1}
	}
	return out
}

func TestWeighRetrieversFavoursTheListWhoseTopStandsOut(t *testing.T) {
	// bm25: the best hit far above the rest; distances: all about equal,
	// as a random-weight model gives.
	lists := map[string][]Candidate{
		Lexical: list("l", -12, -3, -2.5, -2, -1.8, -1.5),
		Vector:  list("v", 0.90, 0.91, 0.91, 0.92, 0.92, 0.93),
	}
	w := WeighRetrievers(lists, nil)
	if w[Lexical] != 1 {
		t.Errorf("lexical weight %v, want 1 (the more informative list)", w[Lexical])
	}
	if w[Vector] > 0.01 {
		t.Errorf("vector weight %v, want ≤ 0.01 for a flat list", w[Vector])
	}
}

func TestWeighRetrieversEqualWhenBothStandOutAlike(t *testing.T) {
	lists := map[string][]Candidate{
		Lexical: list("l", -10, -5, -5, -5),
		Vector:  list("v", 0.2, 0.55, 0.55, 0.55),
	}
	w := WeighRetrievers(lists, nil)
	if math.Abs(w[Lexical]-w[Vector]) > 0.2 {
		t.Errorf("weights %v, want about equal", w)
	}
}

func TestWeighRetrieversShortListsGetFullWeight(t *testing.T) {
	w := WeighRetrievers(map[string][]Candidate{Lexical: list("l", -3), Vector: list("v", 0.5, 0.6)}, nil)
	if w[Lexical] != 1 || w[Vector] != 1 {
		t.Errorf("weights %v, want 1 for lists too short to judge", w)
	}
	// A list that found nothing weighs nothing, so it neither discounts the
	// other list nor counts in the best score possible.
	w = WeighRetrievers(map[string][]Candidate{Lexical: nil, Vector: list("v", 0.5, 0.51, 0.52, 0.53)}, nil)
	if _, ok := w[Lexical]; ok || w[Vector] != 1 || MaxRRF(60, w) != 1.0/61 {
		t.Errorf("weights %v with an empty lexical list, want vector alone at 1", w)
	}
}

func TestApplyWeightsKeepsInformativeTopAndRecordsWeights(t *testing.T) {
	lists := map[string][]Candidate{
		Lexical: list("x", -12, -3, -2.5, -2, -1.8, -1.5), // xa is lexical's clear winner
		Vector:  {{SnippetID: "xb", ScoreRaw: 0.90, Rank: 1}, {SnippetID: "xc", ScoreRaw: 0.91, Rank: 2}, {SnippetID: "xa", ScoreRaw: 0.95, Rank: 3}},
	}
	w := WeighRetrievers(lists, nil)
	fused := FuseRRF(lists, 60)
	ApplyWeights(fused, w, nil)
	Normalize(fused, 60, w)
	best := fused[0]
	for _, f := range fused {
		if f.RRF > best.RRF {
			best = f
		}
	}
	// score_norm is the weighted sum over the best one possible under the
	// same weights, so it orders hits as the weighted sum does.
	for _, f := range fused {
		if (f.RRF < best.RRF) != (f.ScoreNorm < best.ScoreNorm) || !near(f.ScoreNorm, f.RRF/MaxRRF(60, w)) {
			t.Errorf("%s: score_norm %v for weighted rrf %v (best %v at %v)", f.SnippetID, f.ScoreNorm, f.RRF, best.RRF, best.ScoreNorm)
		}
	}
	if best.SnippetID != "xa" {
		t.Fatalf("top weighted hit %s, want xa (plain RRF puts xb, found by both, first)", best.SnippetID)
	}
	for _, c := range best.Explain {
		if c.Weight != w[c.Retriever] {
			t.Errorf("explain %s weight %v, want %v", c.Retriever, c.Weight, w[c.Retriever])
		}
	}
}

// TestWeighRetrieversDiscountsWhatTheModelCannotRead: two lists that stand
// out alike weigh alike, until the embedding model knows only a fifth of the
// query's words; the explain trail records the coverage that went in.
func TestWeighRetrieversDiscountsWhatTheModelCannotRead(t *testing.T) {
	lists := map[string][]Candidate{
		Lexical: list("l", -10, -5, -5, -5),
		Vector:  list("v", 0.2, 0.55, 0.55, 0.55),
	}
	full := WeighRetrievers(lists, map[string]float64{Vector: 1})
	if math.Abs(full[Lexical]-full[Vector]) > 0.2 {
		t.Fatalf("weights %v at full coverage, want about equal", full)
	}
	coverage := map[string]float64{Vector: 0.2}
	w := WeighRetrievers(lists, coverage)
	if w[Lexical] != 1 || w[Vector] > 0.01 {
		t.Errorf("weights %v with 20%% coverage, want lexical 1 and vector ≤ 0.01", w)
	}
	fused := FuseRRF(lists, 60)
	ApplyWeights(fused, w, coverage)
	for _, f := range fused {
		for _, c := range f.Explain {
			switch {
			case c.Retriever == Vector && (c.Coverage == nil || *c.Coverage != 0.2):
				t.Errorf("%s: vector contribution coverage %v, want 0.2", f.SnippetID, c.Coverage)
			case c.Retriever == Lexical && c.Coverage != nil:
				t.Errorf("%s: lexical contribution has a coverage", f.SnippetID)
			}
		}
	}
}
