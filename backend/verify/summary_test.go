package verify_test

import (
	"context"
	"slices"
	"testing"

	"github.com/footnote-app/footnote/backend/verify"
)

const libraryPassage = `The town library opened its new reading room on the ground floor, with study desks and a children's corner. Visitors can borrow up to 12 books at a time.`

// A partly supported claim holds (keeps its answer grounded under strict
// verification) when what the passage lacks is wording, not when it is a
// value the claim states: a year the passage never gives is what a claim
// altered or citing the wrong passage looks like.
func TestPartialClaimHoldsOnlyWithItsValues(t *testing.T) {
	answer := "The town library opened a new reading room with study desks and a large cafe [#1]. " +
		"The town library opened its new reading room with study desks in 2019 [#1]. " +
		"Visitors can borrow up to 12 books at a time from the town library [#1]."
	claims := verify.Claims(answer, "", libraryPassage)
	res, err := (&verify.Verifier{}).VerifyAnswer(context.Background(), claims, []verify.Passage{{N: 1, Text: libraryPassage}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		verdict string
		holds   bool
	}{{verify.Partial, true}, {verify.Partial, false}, {verify.Supported, true}}
	for i, w := range want {
		if res[i].Verdict != w.verdict || res[i].Holds() != w.holds {
			t.Errorf("claim %d %q: %s, holds %v (%s); want %s, holds %v", i, res[i].Claim.Plain, res[i].Verdict, res[i].Holds(), res[i].Reason, w.verdict, w.holds)
		}
	}
	sum := verify.Summarize(res)
	if sum.Verified() || sum.Partial != 2 || sum.Unsupported != 0 || !slices.Equal(sum.Failing, []int{1}) || sum.Holding() != 2 {
		t.Errorf("summary %+v (holding %d), want claim 1 failing and 2 of 3 holding", sum, sum.Holding())
	}
}
