package search

import (
	"sort"
)

// Candidate is one entry of a single retriever's ranked list.
type Candidate struct {
	SnippetID string
	ScoreRaw  float64 // the retriever's own score: bm25() for lexical, distance for vector
	Rank      int     // 1-based position in that retriever's list
}

// Contribution explains what one retriever added to a hit's fused score.
type Contribution struct {
	Retriever string  `json:"retriever"`
	ScoreRaw  float64 `json:"score_raw"`
	KPos      int     `json:"k_pos"` // rank before fusion
	RRF       float64 `json:"rrf"`   // 1/(k+rank)
}

// Fused is a snippet after fusion, before it is hydrated with chunk data.
type Fused struct {
	SnippetID string
	RRF       float64 // sum of contributions
	ScoreNorm float64 // RRF divided by the best possible sum, in [0,1]
	Explain   []Contribution
}

// FuseRRF combines ranked lists by reciprocal rank fusion: every retriever
// that ranks a snippet at r adds 1/(k+r). Lists are keyed by retriever name;
// contributions are recorded in retriever-name order so explain trails are
// deterministic.
func FuseRRF(lists map[string][]Candidate, k int) []Fused {
	names := make([]string, 0, len(lists))
	for name := range lists {
		names = append(names, name)
	}
	sort.Strings(names)
	byID := map[string]*Fused{}
	var order []string
	for _, name := range names {
		for _, c := range lists[name] {
			f, ok := byID[c.SnippetID]
			if !ok {
				f = &Fused{SnippetID: c.SnippetID}
				byID[c.SnippetID] = f
				order = append(order, c.SnippetID)
			}
			contrib := 1.0 / float64(k+c.Rank)
			f.RRF += contrib
			f.Explain = append(f.Explain, Contribution{Retriever: name, ScoreRaw: c.ScoreRaw, KPos: c.Rank, RRF: contrib})
		}
	}
	out := make([]Fused, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	return out
}

// MaxRRF is the best fused score possible when n retrievers ran: every one
// of them ranked the snippet first.
func MaxRRF(k, retrievers int) float64 {
	if retrievers <= 0 {
		return 0
	}
	return float64(retrievers) / float64(k+1)
}

// Normalize scales fused scores into [0,1] by the theoretical maximum, so a
// score means the same thing whichever retrievers ran.
func Normalize(fused []Fused, k, retrievers int) {
	max := MaxRRF(k, retrievers)
	for i := range fused {
		if max > 0 {
			fused[i].ScoreNorm = fused[i].RRF / max
		}
	}
}
