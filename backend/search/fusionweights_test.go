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
	w := WeighRetrievers(lists)
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
	w := WeighRetrievers(lists)
	if math.Abs(w[Lexical]-w[Vector]) > 0.2 {
		t.Errorf("weights %v, want about equal", w)
	}
}

func TestWeighRetrieversShortListsGetFullWeight(t *testing.T) {
	w := WeighRetrievers(map[string][]Candidate{Lexical: list("l", -3), Vector: list("v", 0.5, 0.6)})
	if w[Lexical] != 1 || w[Vector] != 1 {
		t.Errorf("weights %v, want 1 for lists too short to judge", w)
	}
}

func TestFuseWeightedKeepsInformativeTopAndRecordsWeights(t *testing.T) {
	lists := map[string][]Candidate{
		Lexical: list("x", -12, -3, -2.5, -2, -1.8, -1.5), // xa is lexical's clear winner
		Vector:  {{SnippetID: "xb", ScoreRaw: 0.90, Rank: 1}, {SnippetID: "xc", ScoreRaw: 0.91, Rank: 2}, {SnippetID: "xa", ScoreRaw: 0.95, Rank: 3}},
	}
	w := WeighRetrievers(lists)
	fused := FuseWeighted(lists, 60, w)
	NormalizeWeighted(fused, 60, w)
	best := fused[0]
	for _, f := range fused {
		if f.RRF > best.RRF {
			best = f
		}
	}
	if best.SnippetID != "xa" {
		t.Fatalf("top fused hit %s, want xa (plain RRF would put xb first)", best.SnippetID)
	}
	for _, c := range best.Explain {
		if c.Weight != w[c.Retriever] {
			t.Errorf("explain %s weight %v, want %v", c.Retriever, c.Weight, w[c.Retriever])
		}
	}
	for _, f := range fused {
		if f.ScoreNorm < 0 || f.ScoreNorm > 1 {
			t.Errorf("%s score_norm %v outside [0,1]", f.SnippetID, f.ScoreNorm)
		}
	}
}

func TestNormalizeWeightedOneWhenAllAgreeOnRankOne(t *testing.T) {
	lists := map[string][]Candidate{Lexical: list("z", -9, -2, -1), Vector: list("z", 0.3, 0.8, 0.9)}
	w := WeighRetrievers(lists)
	fused := FuseWeighted(lists, 60, w)
	NormalizeWeighted(fused, 60, w)
	for _, f := range fused {
		if f.SnippetID == "za" && math.Abs(f.ScoreNorm-1) > 1e-9 {
			t.Errorf("score_norm %v for the snippet both rank first, want 1", f.ScoreNorm)
		}
		if f.SnippetID != "za" && f.ScoreNorm >= 1 {
			t.Errorf("%s score_norm %v, want < 1", f.SnippetID, f.ScoreNorm)
		}
	}
}
