package rag

import (
	"context"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/provenance"
)

func TestLambdaOfRuns(t *testing.T) {
	cases := []struct {
		answered []bool
		cited    [][]string
		want     string
	}{
		{[]bool{false, false}, [][]string{nil, nil}, LambdaConvergent},
		{[]bool{true, false}, [][]string{{"a"}, nil}, LambdaDivergent},
		{[]bool{true, true}, [][]string{{"a", "b"}, {"b"}}, LambdaConvergent},
		{[]bool{true, true}, [][]string{{"a"}, {"b"}}, LambdaDivergent},
		{[]bool{true, true, true}, [][]string{{"a", "b"}, {"b", "c"}, {"a", "c"}}, LambdaDivergent}, // no id all share
	}
	for _, c := range cases {
		if got := LambdaOfRuns(c.answered, c.cited); got != c.want {
			t.Errorf("LambdaOfRuns(%v, %v) = %s, want %s", c.answered, c.cited, got, c.want)
		}
	}
}

// A question asked before gets its λ from the last answer to it: the same
// call from a shared section is convergent, another call divergent; a first
// question with no ΔS to judge by has none.
func TestLambdaOfARepeatedQuestion(t *testing.T) {
	hits := settingHits()
	ask := func(answer string, prev *Answer) Answer {
		p := newPipeline(hits, &scriptedLLM{tokens: []string{answer}}, &memStore{})
		p.Verification = VerifyOff
		if prev != nil {
			p.Previous = func(_ context.Context, q string) (Answer, bool) {
				if q != "What is the upload limit?" {
					t.Errorf("looked up %q", q)
				}
				return *prev, true
			}
		}
		ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "What is the upload limit?"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	first := ask("The upload limit is 40 MB per file [#1].", nil)
	if first.Lambda != LambdaUnknown || first.LambdaBasis != nil {
		t.Fatalf("first answer: λ %s basis %+v", first.Lambda, first.LambdaBasis)
	}
	first.ID, first.CreatedAt = "ans_first", time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	again := ask("Uploads may be up to 40 MB per file [#1].", &first)
	if again.Lambda != LambdaConvergent || again.LambdaBasis == nil || again.LambdaBasis.Kind != LambdaFromRepeat ||
		again.LambdaBasis.PreviousID != "ans_first" || !again.LambdaBasis.PreviousAt.Equal(first.CreatedAt) {
		t.Errorf("repeat from the same section: λ %s basis %+v", again.Lambda, again.LambdaBasis)
	}
	other := ask("Answers are kept for 20 days [#2].", &first)
	if other.Lambda != LambdaDivergent || other.LambdaBasis.Reason != "cites none of the sections the last answer to this question cited" {
		t.Errorf("repeat from another section: λ %s basis %+v", other.Lambda, other.LambdaBasis)
	}
	refused := ask("The upload limit is 40 MB per file.", &first)
	if refused.Lambda != LambdaDivergent || refused.LambdaBasis.Reason != "refused now, answered the last time this question was asked" {
		t.Errorf("refused after an answer: λ %s basis %+v", refused.Lambda, refused.LambdaBasis)
	}
	// The audit's question line carries it.
	var rows []string
	p := newPipeline(hits, &scriptedLLM{tokens: []string{"The upload limit is 40 MB per file [#1]."}}, &memStore{})
	p.Previous = func(context.Context, string) (Answer, bool) { return first, true }
	p.Audit = func(tr []provenance.TraceRow) {
		for _, r := range tr {
			rows = append(rows, r.Kind+"="+r.Lambda)
		}
	}
	if _, err := p.Ask(context.Background(), Request{ID: "r", Question: "What is the upload limit?"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || rows[0] != "question=convergent" || rows[1] != "segment=convergent" {
		t.Errorf("audit rows λ: %v", rows)
	}
}
