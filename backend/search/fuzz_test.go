package search

import (
	"math"
	"strconv"
	"testing"
)

// FuzzFuseRRF decodes bytes into ranked lists (one byte a candidate: high
// bits pick the retriever, low bits the snippet) and checks fusion's
// invariants: every snippet appears once, its RRF is the sum of its
// contributions, normalised scores lie in [0,1], and the result does not
// depend on map iteration order.
func FuzzFuseRRF(f *testing.F) {
	f.Add([]byte{0x01, 0x02, 0x41, 0x43}, uint8(60))
	f.Add([]byte{}, uint8(1))
	f.Add([]byte{0x00, 0x40, 0x80, 0xc0}, uint8(0))
	f.Add([]byte{0x05, 0x05, 0x05}, uint8(255))
	f.Fuzz(func(t *testing.T, raw []byte, kByte uint8) {
		k := int(kByte) + 1 // RRF k is validated to be at least 1
		names := []string{"lexical", "vector", "title", "extra"}
		lists := map[string][]Candidate{}
		used := map[string]map[string]bool{}
		for _, b := range raw {
			name := names[int(b>>6)]
			id := "s" + strconv.Itoa(int(b&0x3f))
			if used[name] == nil {
				used[name] = map[string]bool{}
			}
			if used[name][id] { // a retriever lists a snippet once
				continue
			}
			used[name][id] = true
			lists[name] = append(lists[name], Candidate{SnippetID: id, ScoreRaw: float64(b), Rank: len(lists[name]) + 1})
		}
		weights := WeighRetrievers(lists, nil)
		fused := FuseRRF(lists, k)
		ApplyWeights(fused, weights, nil)
		Normalize(fused, k, weights)
		again := FuseRRF(lists, k)
		ApplyWeights(again, weights, nil)
		Normalize(again, k, weights)
		if len(again) != len(fused) {
			t.Fatalf("fusion not deterministic: %d vs %d", len(fused), len(again))
		}
		ids := map[string]bool{}
		for i, fu := range fused {
			if ids[fu.SnippetID] {
				t.Fatalf("snippet %s fused twice", fu.SnippetID)
			}
			ids[fu.SnippetID] = true
			var sum float64
			for _, c := range fu.Explain {
				sum += c.RRF
				if c.KPos < 1 {
					t.Fatalf("rank %d < 1", c.KPos)
				}
			}
			if math.Abs(sum-fu.RRF) > 1e-12 {
				t.Fatalf("RRF %g is not the sum of contributions %g", fu.RRF, sum)
			}
			if fu.ScoreNorm < 0 || fu.ScoreNorm > 1+1e-12 || math.IsNaN(fu.ScoreNorm) {
				t.Fatalf("normalised score %g outside [0,1]", fu.ScoreNorm)
			}
			if len(fu.Explain) > len(lists) {
				t.Fatalf("%d contributions from %d retrievers", len(fu.Explain), len(lists))
			}
			if again[i].SnippetID != fu.SnippetID || again[i].ScoreNorm != fu.ScoreNorm {
				t.Fatalf("fusion not deterministic at %d", i)
			}
		}
		for _, l := range lists {
			for _, c := range l {
				if !ids[c.SnippetID] {
					t.Fatalf("snippet %s lost in fusion", c.SnippetID)
				}
			}
		}
	})
}
