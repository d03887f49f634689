package rag

import (
	"context"
	"slices"
	"testing"

	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/verify"
)

// The audit segments are the claims: a dot inside code or a file name
// does not cut a sentence ("chmod +x Footnote.AppImage" stays one cited
// sentence), and a sentence covered by the next one's marker is checked
// against it in the log as in verification.
func TestSegmentsAreTheClaims(t *testing.T) {
	hits := []search.Hit{textHit("a", 0.9, 0, "Make the file executable with chmod +x Footnote.AppImage and run it. It needs no root.")}
	answer := "Make it executable with `chmod +x Footnote.AppImage` and run it [#1]. Download it first. It needs no root [#1]."
	ans, _ := askWith(t, hits, answer, VerifyWarn)
	claims := verify.Claims(ans.Answer, ans.Question, hits[0].Text)
	if len(ans.Segments) != len(claims) || len(ans.Segments) != 3 {
		t.Fatalf("segments %+v for %d claims", ans.Segments, len(claims))
	}
	for i, s := range ans.Segments {
		if s.Text != claims[i].Text || !slices.Equal(s.Cites, claims[i].Markers) {
			t.Errorf("segment %d %+v, claim %q markers %v", i+1, s, claims[i].Text, claims[i].Markers)
		}
		if len(s.Cites) == 0 {
			t.Errorf("segment %q uncited, but verification checks it against [#1]", s.Text)
		}
	}
	if !ans.Segments[1].Inherited {
		t.Errorf("the middle sentence inherits [#1] from the next: %+v", ans.Segments[1])
	}
	// Every claim is cited, so confidence is the passage's score alone.
	if got, want := ans.Provenance.ConfidenceScore, hits[0].ScoreNorm; !ans.Grounded || got != want {
		t.Errorf("grounded %v, confidence %v, want %v (every claim cited)", ans.Grounded, got, want)
	}
}

// Every answer has segment rows in the audit trail: an uncited one, one
// that cites a passage it was not given, and a refusal before any model
// call.
func TestEveryAnswerHasSegmentRows(t *testing.T) {
	cases := map[string]struct {
		hits   []search.Hit
		answer string
		reason string
	}{
		"uncited":        {settingHits(), "The upload limit is 40 MB per file.", RefusalNoCitation},
		"self-judged":    {settingHits(), "The upload limit is 40 MB [#7].", RefusalSelfJudge},
		"score gate":     {[]search.Hit{textHit("a", 0.1, 0, "Unrelated.")}, "", RefusalScoreGate},
		"model refusal":  {settingHits(), RefusalSentence, RefusalNoCitation},
		"grounded still": {settingHits(), "The upload limit is 40 MB per file [#1].", ""},
	}
	for name, c := range cases {
		var rows int
		p := newPipeline(c.hits, &scriptedLLM{tokens: []string{c.answer}}, &memStore{})
		p.Verification = VerifyOff
		p.Answerability = &Answerability{Stats: fakeTermStats{chunks: 100}} // the score gate reads the passages' words
		p.Audit = func(tr []provenance.TraceRow) {
			for _, r := range tr {
				if r.Kind == "segment" {
					rows++
					if r.Text == "" {
						t.Errorf("%s: segment row without text", name)
					}
				}
			}
		}
		ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "What is the upload limit?"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if ans.RefusalReason != nil {
			got = *ans.RefusalReason
		}
		if got != c.reason || rows == 0 || rows != len(ans.Segments) {
			t.Errorf("%s: reason %q, %d segment rows for %d segments", name, got, rows, len(ans.Segments))
		}
	}
}

// Cite first, then explain (the traceability specification's first rule):
// citations only after the answer — a sources list closing it — cite none
// of its claims, so under strict verification it is not grounded.
func TestCitationsAfterTheAnswerOnlyDoNotGround(t *testing.T) {
	ans, _ := askWith(t, settingHits(), "The upload limit is 40 MB per file.\n\nSources: [#1]", VerifyStrict)
	if ans.Grounded || ans.RefusalReason == nil || *ans.RefusalReason != RefusalUnsupportedClaim {
		t.Errorf("grounded %v reason %v", ans.Grounded, ans.RefusalReason)
	}
	if len(ans.Segments) != 2 || len(ans.Segments[0].Cites) != 0 || ans.Segments[1].NonClaim != verify.NotCitationList {
		t.Errorf("segments %+v", ans.Segments)
	}
	// The same claim citing as it goes is grounded.
	if ans, _ := askWith(t, settingHits(), "The upload limit is 40 MB per file [#1].", VerifyStrict); !ans.Grounded {
		t.Errorf("cited in place: grounded %v reason %v", ans.Grounded, ans.RefusalReason)
	}
}
