package eval

import (
	"slices"
	"testing"

	"github.com/footnote-app/footnote/backend/rag"
)

// TestLambdaAcrossRuns: each question asked three times; its λ state says
// whether its cited evidence converged.
func TestLambdaAcrossRuns(t *testing.T) {
	qs := []QA{
		{QID: "same", Q: "How do I install on Linux?", Answerable: true, GoldIDs: []string{"install/linux"}},
		{QID: "overlap", Q: "Where is the index?", Answerable: true, GoldIDs: []string{"data"}},
		{QID: "moved", Q: "What is the shortcut?", Answerable: true, GoldIDs: []string{"keys"}},
		{QID: "flip", Q: "Does it run on Windows?", Answerable: true, GoldIDs: []string{"win"}},
		{QID: "refused", Q: "What does it cost?", Answerable: false},
	}
	answer := func(sections ...string) Trace {
		tr := Trace{Answer: "An answer [#1].", Grounded: true}
		for i, s := range sections {
			tr.Citations = append(tr.Citations, cite(i+1, "snip_"+s, s, "doc"))
		}
		return tr
	}
	refusal := Trace{Answer: rag.RefusalSentence, RefusalReason: reason(rag.RefusalScoreGate)}
	runs := map[string][]Trace{
		"same":    {answer("install/linux"), answer("install/linux"), answer("install/linux")},
		"overlap": {answer("data", "faq"), answer("data"), answer("privacy", "data")},
		"moved":   {answer("keys"), answer("faq"), answer("keys")},
		"flip":    {answer("win"), refusal, answer("win")},
		"refused": {refusal, refusal, refusal},
	}
	traces := map[string][]Trace{}
	for qid, ts := range runs {
		for i, tr := range ts {
			tr.QID, tr.Run, tr.Question = qid, i+1, qid
			traces[qid] = append(traces[qid], tr)
		}
	}
	rep := Build(qs, traces, 10, nil)
	if rep.Lambda == nil || rep.Lambda.Convergent != 3 || rep.Lambda.Divergent != 2 || rep.Lambda.Share != 0.6 ||
		!slices.Equal(rep.Lambda.DivergentQIDs, []string{"flip", "moved"}) {
		t.Fatalf("λ = %+v, want 3 convergent (same, overlap, refused), divergent flip and moved", rep.Lambda)
	}
	for _, r := range rep.Rows {
		want := map[string]string{"same": LambdaConvergent, "overlap": LambdaConvergent, "refused": LambdaConvergent,
			"moved": LambdaDivergent, "flip": LambdaDivergent}[r.QID]
		if r.Lambda != want {
			t.Errorf("%s run %d: λ %q, want %q", r.QID, r.Run, r.Lambda, want)
		}
	}
	one := map[string][]Trace{"same": traces["same"][:1]}
	if rep := Build(qs[:1], one, 10, nil); rep.Lambda != nil || rep.Rows[0].Lambda != "" {
		t.Errorf("a single run reported λ: %+v", rep.Lambda)
	}
}
