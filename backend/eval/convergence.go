package eval

import (
	"sort"

	"github.com/footnote-app/footnote/backend/rag"
)

// λ across runs: asked several times (`eval --runs N`: other seeds, the
// paraphrases on later runs), does a question get the same evidence? A
// question is convergent when every run makes the same call — all refuse,
// or all answer — and the answering runs' cited ids (at the level of the
// gold ids) share at least one id; otherwise it is divergent. One run says
// nothing, so λ is reported only with several.

// Lambda states of a question across runs.
const (
	LambdaConvergent = rag.LambdaConvergent
	LambdaDivergent  = rag.LambdaDivergent
)

// Convergence counts questions by their λ state across runs.
type Convergence struct {
	Convergent int `json:"convergent"`
	Divergent  int `json:"divergent"`
	// Share is convergent / questions.
	Share float64 `json:"share"`
	// DivergentQIDs names the divergent questions.
	DivergentQIDs []string `json:"divergent_qids"`
}

// converge sets each row's Lambda from its question's runs and returns the
// counts; nil when no question was asked more than once.
func converge(rows []Row) *Convergence {
	byQID := map[string][]int{}
	for i, r := range rows {
		byQID[r.QID] = append(byQID[r.QID], i)
	}
	c := &Convergence{DivergentQIDs: []string{}}
	several := false
	qids := make([]string, 0, len(byQID))
	for qid := range byQID {
		qids = append(qids, qid)
	}
	sort.Strings(qids)
	for _, qid := range qids {
		idx := byQID[qid]
		if len(idx) < 2 {
			continue
		}
		several = true
		state := lambdaAcross(rows, idx)
		for _, i := range idx {
			rows[i].Lambda = state
		}
		if state == LambdaConvergent {
			c.Convergent++
		} else {
			c.Divergent++
			c.DivergentQIDs = append(c.DivergentQIDs, qid)
		}
	}
	if !several {
		return nil
	}
	c.Share = float64(c.Convergent) / float64(c.Convergent+c.Divergent)
	return c
}

// lambdaAcross is the λ state of one question's runs (rows[idx]), by the
// rule live answers are judged on too (rag.LambdaOfRuns), at the level of
// the gold ids.
func lambdaAcross(rows []Row, idx []int) string {
	answered := make([]bool, len(idx))
	cited := make([][]string, len(idx))
	for j, i := range idx {
		answered[j], cited[j] = rows[i].Answered, rows[i].Cited
	}
	return rag.LambdaOfRuns(answered, cited)
}
