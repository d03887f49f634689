package verify_test

import (
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/verify"
)

// Role swaps: every word and value of the claim is in the passage, but the
// passage ties them differently. Passages written for this test, not taken
// from the labelled set.
func TestVerifyRoleSwapIsUnsupported(t *testing.T) {
	cases := []struct {
		claim, passage, reason string
	}{
		{"The tank holds 12 litres of water.",
			"The tank holds 40 litres of water and 12 litres of fuel. Empty it before winter.",
			`the passage ties "tank" to 40 litres, not to 12 litres`},
		{"Jonas will book the venue.",
			"The attendees were Jonas Weber and Lea Roth. Lea will book the venue; Jonas writes the invitations.",
			`to lea, not to Jonas`},
		{"The bridge opened in 1932.",
			"The bridge, designed in 1932, opened to traffic in 1937 after five years of work.",
			"to 1937, not to 1932"},
		{"Requests fail when the read timeout is above 10 seconds.",
			"A request fails when a limit is crossed: connect timeout above 10 seconds, read timeout above 30 seconds.",
			"to 30 seconds, not to 10 seconds"},
	}
	for _, c := range cases {
		r := verifyOne(t, &verify.Verifier{}, c.claim, c.passage)
		if r.Verdict != verify.Unsupported {
			t.Errorf("%q: verdict %s (score %.2f, %s), want unsupported", c.claim, r.Verdict, r.Score, r.Reason)
			continue
		}
		if !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%q: reason %q, want it to contain %q", c.claim, r.Reason, c.reason)
		}
	}
}

// The same passages support the claims that keep the passage's binding,
// including one whose value sits in a clause after a shared subject.
func TestVerifyKeptRoleIsSupported(t *testing.T) {
	cases := []struct{ claim, passage string }{
		{"The tank holds 12 litres of fuel.",
			"The tank holds 40 litres of water and 12 litres of fuel. Empty it before winter."},
		{"Lea will book the venue.",
			"The attendees were Jonas Weber and Lea Roth. Lea will book the venue; Jonas writes the invitations."},
		{"The bridge opened to traffic in 1937.",
			"The bridge, designed in 1932, opened to traffic in 1937 after five years of work."},
		{"A request fails when the read timeout is above 30 seconds.",
			"A request fails when a limit is crossed: connect timeout above 10 seconds, read timeout above 30 seconds."},
		{"The recommended rear pressure is 2.5 bar.",
			"The recommended pressure is 2.3 bar at the front and 2.5 bar at the rear."},
	}
	for _, c := range cases {
		if r := verifyOne(t, &verify.Verifier{}, c.claim, c.passage); r.Verdict != verify.Supported {
			t.Errorf("%q: verdict %s (score %.2f, %s), want supported", c.claim, r.Verdict, r.Score, r.Reason)
		}
	}
}

// A comparison turned round is a contradiction, not a paraphrase.
func TestVerifyOppositeComparisonIsUnsupported(t *testing.T) {
	cases := []struct{ claim, passage, reason string }{
		{"Larger batches use more memory.", "Larger batches use less memory but take longer.",
			"the passage says less, the claim says more"},
		{"Search results are sorted oldest first.", "Search results are sorted newest first, ten to a page.",
			"the passage says newest, the claim says oldest"},
		{"더 큰 파일은 더 많은 메모리를 씁니다.", "더 큰 파일은 더 적은 메모리를 씁니다.",
			"the passage says 적은, the claim says 많은"},
	}
	for _, c := range cases {
		r := verifyOne(t, &verify.Verifier{}, c.claim, c.passage)
		if r.Verdict != verify.Unsupported || r.Reason != c.reason {
			t.Errorf("%q: verdict %s, reason %q; want unsupported, %q", c.claim, r.Verdict, r.Reason, c.reason)
		}
	}
	if r := verifyOne(t, &verify.Verifier{}, "Search results are sorted newest first.",
		"Search results are sorted newest first, ten to a page."); r.Verdict != verify.Supported {
		t.Errorf("same order: verdict %s (%s), want supported", r.Verdict, r.Reason)
	}
}
