package rag

import (
	"context"
	"slices"
	"time"
)

// λ of a live answer. The specification's λ is convergence across runs: a
// question asked again (other wording, another seed) should get the same
// call and the same evidence. For a question asked before, that is what an
// answer's λ is judged on: this answer against the last one stored for the
// same question. Otherwise λ comes from ΔS (deltas.go) when the embedding
// model separates the library's passages, and is "-" when neither can tell.

// Bases of an answer's λ state (LambdaBasis.Kind).
const (
	LambdaFromRepeat = "repeat"  // compared with the last answer to the same question
	LambdaFromDeltaS = "delta_s" // every cited passage near the question, or not
)

// LambdaBasis says what an answer's λ state was judged on, in a sentence
// the CLI and the app show beside it.
type LambdaBasis struct {
	Kind string `json:"kind"`
	// PreviousID and PreviousAt name the earlier answer a repeat was
	// compared with.
	PreviousID string    `json:"previous_id,omitempty"`
	PreviousAt time.Time `json:"previous_at,omitzero"`
	Reason     string    `json:"reason"`
}

// LambdaOfRuns is λ across runs of one question: convergent when every run
// makes the same call — all refuse, or all answer — and the answering runs'
// cited ids share at least one id; otherwise divergent. cited[i] are run
// i's cited ids (at one level, e.g. sections); answered[i] says whether it
// answered.
func LambdaOfRuns(answered []bool, cited [][]string) string {
	n := 0
	var common []string
	for i, a := range answered {
		if !a {
			continue
		}
		if n == 0 {
			common = slices.Clone(cited[i])
		} else {
			common = slices.DeleteFunc(common, func(id string) bool { return !slices.Contains(cited[i], id) })
		}
		n++
	}
	switch {
	case n == 0:
		return LambdaConvergent // refused every time
	case n < len(answered):
		return LambdaDivergent // answered in some runs, refused in others
	case len(common) == 0:
		return LambdaDivergent // answered from different evidence
	}
	return LambdaConvergent
}

// citedSections lists the sections an answer cites (document and section
// id): the level a repeat is compared at, which a re-index of an unchanged
// section keeps.
func citedSections(a Answer) []string {
	var out []string
	for _, c := range a.Citations {
		if id := c.DocID + "#" + c.SectionID; !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// madeACall reports whether an answer made a call a repeat can be compared
// with: it was neither stopped nor failed, and no stand-in wrote it.
func madeACall(a Answer) bool {
	if a.Stopped {
		return false
	}
	if a.RefusalReason == nil {
		return true
	}
	switch *a.RefusalReason {
	case RefusalLLMError, RefusalNoModel, RefusalStopped:
		return false
	}
	return true
}

// judgeLambda sets ans's λ state and its basis: against the last answer
// to the same question when there is one to compare with, else from ΔS.
func (p *Pipeline) judgeLambda(ans *Answer) {
	ans.Lambda, ans.LambdaBasis = lambdaOf(ans.measure, ans.Citations), nil
	if ans.RefusalReason != nil {
		ans.Lambda = LambdaUnknown
	}
	if ans.Lambda != LambdaUnknown {
		ans.LambdaBasis = &LambdaBasis{Kind: LambdaFromDeltaS, Reason: deltaSReason(ans.Lambda)}
	}
	if p.Previous == nil || !madeACall(*ans) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	prev, ok := p.Previous(ctx, ans.SearchQuestion())
	if !ok || prev.ID == ans.ID || !madeACall(prev) {
		return
	}
	answered := []bool{!prev.Refused(), !ans.Refused()}
	ans.Lambda = LambdaOfRuns(answered, [][]string{citedSections(prev), citedSections(*ans)})
	ans.LambdaBasis = &LambdaBasis{Kind: LambdaFromRepeat, PreviousID: prev.ID, PreviousAt: prev.CreatedAt,
		Reason: repeatReason(ans.Lambda, answered)}
}

func deltaSReason(state string) string {
	if state == LambdaConvergent {
		return "every cited passage is closer to the question than unrelated passages are"
	}
	return "a cited passage is no closer to the question than unrelated passages are"
}

func repeatReason(state string, answered []bool) string {
	switch {
	case state == LambdaConvergent && !answered[1]:
		return "refused again, as the last time this question was asked"
	case state == LambdaConvergent:
		return "cites a section the last answer to this question cited too"
	case answered[0] != answered[1] && answered[1]:
		return "answered now, refused the last time this question was asked"
	case answered[0] != answered[1]:
		return "refused now, answered the last time this question was asked"
	}
	return "cites none of the sections the last answer to this question cited"
}
