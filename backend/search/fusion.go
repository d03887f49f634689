package search

import (
	"math"
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
	RRF       float64 `json:"rrf"`   // weight/(k+rank)
	// Weight is how informative this retriever's list was for the query
	// (WeighRetrievers); 1 in plain RRF.
	Weight float64 `json:"weight,omitempty"`
	// Coverage is the share of the query's words the embedding model's
	// vocabulary knows (vector retriever only; embed.Coverer), a factor of
	// Weight.
	Coverage *float64 `json:"coverage,omitempty"`
}

// Fused is a snippet after fusion, before it is hydrated with chunk data.
type Fused struct {
	SnippetID string
	RRF       float64 // sum of contributions
	ScoreNorm float64 // RRF divided by the best possible sum under the weights applied, in [0,1]
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

// MaxRRF is the best fused score possible under weights (by retriever
// name, WeighRetrievers; 1 each in plain RRF): every retriever ranked the
// snippet first, each adding weight/(k+1).
func MaxRRF(k int, weights map[string]float64) float64 {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	return sum / float64(k+1)
}

// Normalize scales fused scores (after ApplyWeights) into [0,1] by the
// best score possible under the weights applied (MaxRRF), so a score means
// the same thing whatever retrievers ran and however they were weighted:
// the first hit of the one list that carries weight scores 1 in lexical
// mode and 0.999 in hybrid mode beside a flat vector list (weight 0.001),
// where dividing by the unweighted maximum gave it 0.5.
func Normalize(fused []Fused, k int, weights map[string]float64) {
	max := MaxRRF(k, weights)
	for i := range fused {
		fused[i].ScoreNorm = 0
		if max > 0 {
			fused[i].ScoreNorm = min(1, fused[i].RRF/max)
		}
	}
}

// A retriever whose best hit scores this far above its list's mean,
// relative to the mean's size, gets half weight; one far above gets nearly
// full weight, one level with the rest (noise: random-weight models, a query
// made of common words) little. Relative spread is scale-free, so bm25()
// and cosine distance compare.
const spreadHalfWeight = 0.5

// minWeight keeps a flat retriever a tie-breaker rather than silencing it.
const minWeight = 0.001

// WeighRetrievers scores how informative each list is for this query from
// the spread between its best hit and the rest, mapped to (0,1), times the
// share of the query the retriever could read (coverage, by retriever name;
// 1 when absent): a model that knows a third of the query's words ranks by
// noise however spread its scores look. Lists too short to judge get full
// weight, empty ones none.
func WeighRetrievers(lists map[string][]Candidate, coverage map[string]float64) map[string]float64 {
	w := map[string]float64{}
	var best float64
	for name, l := range lists {
		if len(l) == 0 {
			continue // found nothing: no weight, and no share of the best possible score
		}
		w[name] = weighSpread(topSpread(l))
		if c, ok := coverage[name]; ok {
			w[name] = max(minWeight, w[name]*c)
		}
		best = max(best, w[name])
	}
	// Relative to the most informative list, to the fourth power: RRF's
	// 1/(k+rank) is so flat at the top that a list with even a quarter of
	// the weight would reorder the better list's first hits.
	for name := range w {
		r := w[name] / best
		w[name] = max(minWeight, r*r*r*r)
	}
	return w
}

// topSpread is how far the best hit stands above the list's mean, relative
// to the mean's magnitude (both retrievers' raw scores are lower = better:
// bm25() and distance). -1 means the list is too short to judge.
func topSpread(l []Candidate) float64 {
	if len(l) < 3 {
		return -1
	}
	var sum float64
	best := l[0].ScoreRaw
	for _, c := range l {
		sum += c.ScoreRaw
		best = min(best, c.ScoreRaw)
	}
	mean := sum / float64(len(l))
	if mean == 0 {
		return 0
	}
	return (mean - best) / math.Abs(mean)
}

func weighSpread(z float64) float64 {
	if z < 0 {
		return 1
	}
	return max(minWeight, z/(z+spreadHalfWeight))
}

// ApplyWeights scales each contribution of fused (from FuseRRF) by its
// retriever's weight (WeighRetrievers) and sums them into RRF, recording
// the weight, and the coverage that went into it, in the explain trail.
// ScoreNorm is set by Normalize afterwards.
func ApplyWeights(fused []Fused, weights, coverage map[string]float64) {
	for i := range fused {
		fused[i].RRF = 0
		for j := range fused[i].Explain {
			c := &fused[i].Explain[j]
			c.Weight = weights[c.Retriever]
			if cov, ok := coverage[c.Retriever]; ok {
				c.Coverage = &cov
			}
			c.RRF *= c.Weight
			fused[i].RRF += c.RRF
		}
	}
}
