package search

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestFuseRRFKnownValues(t *testing.T) {
	lists := map[string][]Candidate{
		Lexical: {{SnippetID: "a", ScoreRaw: -3.1, Rank: 1}, {SnippetID: "b", ScoreRaw: -2.0, Rank: 2}},
		Vector:  {{SnippetID: "b", ScoreRaw: 0.2, Rank: 1}, {SnippetID: "c", ScoreRaw: 0.5, Rank: 2}},
	}
	fused := FuseRRF(lists, 60)
	got := map[string]Fused{}
	for _, f := range fused {
		got[f.SnippetID] = f
	}
	if len(got) != 3 {
		t.Fatalf("want 3 fused snippets, got %d", len(got))
	}
	if !near(got["a"].RRF, 1.0/61) {
		t.Errorf("a: rrf %v, want 1/61", got["a"].RRF)
	}
	if !near(got["b"].RRF, 1.0/62+1.0/61) {
		t.Errorf("b: rrf %v, want 1/62+1/61", got["b"].RRF)
	}
	if !near(got["c"].RRF, 1.0/62) {
		t.Errorf("c: rrf %v, want 1/62", got["c"].RRF)
	}
	b := got["b"]
	if len(b.Explain) != 2 || b.Explain[0].Retriever != Lexical || b.Explain[0].KPos != 2 || b.Explain[1].Retriever != Vector || b.Explain[1].KPos != 1 {
		t.Errorf("b explain trail wrong: %+v", b.Explain)
	}
	if b.Explain[0].ScoreRaw != -2.0 || !near(b.Explain[0].RRF, 1.0/62) {
		t.Errorf("b lexical contribution wrong: %+v", b.Explain[0])
	}
}

func TestNormalizeByTheBestScoreUnderTheWeights(t *testing.T) {
	cases := []struct {
		name    string
		lists   map[string][]Candidate
		weights map[string]float64
		want    map[string]float64
	}{
		{"both rank 1 is 1.0", map[string][]Candidate{
			Lexical: {{SnippetID: "a", Rank: 1}}, Vector: {{SnippetID: "a", Rank: 1}},
		}, map[string]float64{Lexical: 1, Vector: 1}, map[string]float64{"a": 1}},
		{"one of two equally weighted lists ranks it first: 0.5", map[string][]Candidate{
			Lexical: {{SnippetID: "a", Rank: 1}}, Vector: {{SnippetID: "b", Rank: 1}},
		}, map[string]float64{Lexical: 1, Vector: 1}, map[string]float64{"a": 0.5, "b": 0.5}},
		// The case the unweighted maximum got wrong: beside a flat vector
		// list, lexical's first hit is as good as a hit can be.
		{"lexical first beside a flat vector list is 1/1.001", map[string][]Candidate{
			Lexical: {{SnippetID: "a", Rank: 1}}, Vector: {{SnippetID: "b", Rank: 1}},
		}, map[string]float64{Lexical: 1, Vector: 0.001}, map[string]float64{"a": 1 / 1.001, "b": 0.001 / 1.001}},
		{"lexical-only mode rank 1 is 1.0", map[string][]Candidate{
			Lexical: {{SnippetID: "a", Rank: 1}, {SnippetID: "b", Rank: 2}},
		}, map[string]float64{Lexical: 1}, map[string]float64{"a": 1, "b": 61.0 / 62}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fused := FuseRRF(tc.lists, 60)
			ApplyWeights(fused, tc.weights, nil)
			Normalize(fused, 60, tc.weights)
			for _, f := range fused {
				if f.ScoreNorm < 0 || f.ScoreNorm > 1 {
					t.Fatalf("%s: score %v outside [0,1]", f.SnippetID, f.ScoreNorm)
				}
				if !near(f.ScoreNorm, tc.want[f.SnippetID]) {
					t.Errorf("%s: score %v, want %v", f.SnippetID, f.ScoreNorm, tc.want[f.SnippetID])
				}
			}
		})
	}
}

func TestMaxRRFNoRetrievers(t *testing.T) {
	if MaxRRF(60, nil) != 0 {
		t.Fatal("no retrievers must give max 0")
	}
	fused := []Fused{{SnippetID: "x", RRF: 0.1}}
	Normalize(fused, 60, nil)
	if fused[0].ScoreNorm != 0 {
		t.Fatalf("normalising with no retrievers must not divide by zero, got %v", fused[0].ScoreNorm)
	}
}
