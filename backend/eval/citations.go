package eval

import (
	"context"
	"strings"

	"github.com/footnote-app/footnote/backend/verify"
)

// Citation recall and precision in the sense of ALCE (Gao et al., 2023,
// "Enabling Large Language Models to Generate Text with Citations"), over
// the claims the verifier checked (README, "Citation recall and precision"):
//
//   - a statement is a checkable claim that carries a citation; ALCE counts
//     an uncited statement as 0 for recall, Footnote reports uncited claims
//     apart (UncitedClaims) and keeps recall to cited claims, as issue 16
//     defines it;
//   - recall: a claim counts when its citations support it, ALCE's joint
//     entailment. The verifier judges each citation alone, so a claim counts
//     when one citation's verdict is supported; a claim only partly
//     supported by each citation does not count (stricter than ALCE when two
//     passages together would entail it);
//   - precision: a citation counts when it supports its claim alone
//     (supported) or is needed for it: partial, unless another citation of
//     the same claim supports it alone (then ALCE calls it irrelevant). An
//     unsupported citation, or a marker naming no passage, never counts. So
//     partial counts for precision but not for recall.
//
// Per answer both are shares; over a set of answers they are averaged per
// answer, as ALCE does, over the answers that have a value. An answer with
// no cited claim has no recall or precision (n/a, null in JSON), never 0.

// CitationCounts are one answer's claim and citation counts.
type CitationCounts struct {
	// From says where the verdicts come from: "answer" (the claims the
	// answer carries) or "evidence" (verified here, lexically, from the
	// passages in the trace, for an answer stored without them).
	From                string `json:"from"`
	CitedClaims         int    `json:"cited_claims"`
	SupportedClaims     int    `json:"supported_claims"`
	UncitedClaims       int    `json:"uncited_claims"`
	Citations           int    `json:"citations"` // (claim, marker) pairs
	SupportingCitations int    `json:"supporting_citations"`
}

// CountCitations counts verified claims for the ALCE metrics.
func CountCitations(claims []verify.ClaimResult) CitationCounts {
	var c CitationCounts
	for _, cr := range claims {
		switch {
		case cr.Verdict == verify.Uncited:
			c.UncitedClaims++
			continue
		case cr.Verdict == "" || len(cr.Results) == 0:
			continue // not a claim
		}
		c.CitedClaims++
		alone := false
		for _, r := range cr.Results {
			alone = alone || r.Verdict == verify.Supported
		}
		if alone {
			c.SupportedClaims++
		}
		for _, r := range cr.Results {
			c.Citations++
			if r.Verdict == verify.Supported || r.Verdict == verify.Partial && !alone {
				c.SupportingCitations++
			}
		}
	}
	return c
}

// Recall is the share of cited claims supported, nil without one.
func (c CitationCounts) Recall() *float64 { return share(c.SupportedClaims, c.CitedClaims) }

// Precision is the share of citations that support their claim, nil
// without one.
func (c CitationCounts) Precision() *float64 { return share(c.SupportingCitations, c.Citations) }

func share(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	v := float64(n) / float64(d)
	return &v
}

// traceCitationCounts counts the claims a trace carries, or verifies the
// answer against the trace's numbered passages when it carries none. ok is
// false when neither is possible (a trace exported without claims or
// passage text): its figures are n/a.
func traceCitationCounts(t Trace) (c CitationCounts, ok bool) {
	if len(t.Claims) > 0 {
		c = CountCitations(t.Claims)
		c.From = "answer"
		return c, true
	}
	passages := t.evidence
	if len(passages) == 0 {
		for _, ch := range t.Chunks {
			if ch.N > 0 && strings.TrimSpace(ch.Text) != "" {
				passages = append(passages, verify.Passage{N: ch.N, Text: ch.Text})
			}
		}
	}
	if len(passages) == 0 || strings.TrimSpace(t.Answer) == "" {
		return CitationCounts{}, false
	}
	texts := make([]string, len(passages))
	for i, p := range passages {
		texts[i] = p.Text
	}
	// The zero Verifier is lexical only and never fails.
	claims, err := (&verify.Verifier{}).VerifyAnswer(context.Background(), verify.Claims(t.Answer, t.Question, texts...), passages)
	if err != nil {
		return CitationCounts{}, false
	}
	c = CountCitations(claims)
	c.From = "evidence"
	return c, true
}

// citationAverages averages the rows' per-answer recall and precision.
func citationAverages(rows []Row) (recall, precision *float64, scored int) {
	var rs, ps []float64
	for _, r := range rows {
		if r.CitationRecall != nil {
			rs = append(rs, *r.CitationRecall)
		}
		if r.CitationPrecision != nil {
			ps = append(ps, *r.CitationPrecision)
		}
		if r.CitationRecall != nil || r.CitationPrecision != nil {
			scored++
		}
	}
	return mean(rs), mean(ps), scored
}

func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	s /= float64(len(xs))
	return &s
}
