package verify

import (
	"fmt"
	"strings"
)

// Verdicts of a claim against a passage. Uncited is for claims only.
const (
	Supported   = "supported"   // the span states everything the claim says
	Partial     = "partial"     // the span states part of it and contradicts none of it
	Unsupported = "unsupported" // the span does not state it, or contradicts it
	Uncited     = "uncited"     // a checkable claim no marker covers
)

// Thresholds and weights of Combine, chosen on the labelled set
// (testdata/claims.jsonl) with the lexical signal alone; see the package's
// accuracy test for what they achieve.
const (
	SupportedAt = 0.72 // score at or above: supported
	PartialAt   = 0.45 // score at or above: partial

	// semanticPull is how far the semantic signal may pull the score up
	// toward itself. Upward only and only from semanticMinLexical: a
	// paraphrase the word lists miss can climb a level, but similar-sounding
	// text with few of the claim's words cannot, and a model whose vectors
	// make everything look alike changes nothing.
	semanticPull       = 0.3
	semanticMinLexical = 0.35

	// entailmentWeight is the entailment model's share of the score when
	// one is configured: it can raise or lower the score.
	entailmentWeight = 0.5

	// failedCheckCap is the highest score a span failing a hard constraint
	// gets: a wrong number, date, code, name or negation is never support,
	// whatever the other signals say.
	failedCheckCap = 0.2

	// partialScore is where a claim with one unsupported clause is capped.
	partialScore = (SupportedAt + PartialAt) / 2
)

// Combine turns the signals of one (claim, span) pair into a score in [0,1]
// and a verdict:
//
//  1. score = lexical coverage;
//  2. with a semantic signal above it and lexical ≥ 0.35:
//     score += 0.3 · (semantic − score);
//  3. with an entailment probability: score = ½·score + ½·entailment; a
//     contradiction probability of 0.5 or more, above the entailment
//     probability, refutes the claim like a failed check (entail.go);
//  4. for a claim of several clauses (see clauses.go): a clause with
//     lexical coverage under 0.45 caps the score at 0.585 (partial at
//     most), a clause at 0.72 or more raises it to 0.45 (partial at least);
//  5. any failed hard constraint: score = min(score, 0.2), unsupported;
//  6. otherwise supported at score ≥ 0.72, partial at ≥ 0.45,
//     else unsupported.
func Combine(s Signals) (score float64, verdict string) {
	score = clamp01(s.Lexical)
	if s.Semantic != nil && *s.Semantic > score && s.Lexical >= semanticMinLexical {
		score += semanticPull * (*s.Semantic - score)
	}
	score, refuted := withEntailment(score, s) // entail.go
	if len(s.Clauses) > 1 {
		lo, hi := s.Clauses[0], s.Clauses[0]
		for _, c := range s.Clauses[1:] {
			lo, hi = min(lo, c), max(hi, c)
		}
		if lo < PartialAt {
			score = min(score, partialScore) // a statement of the claim is missing
		}
		if hi >= SupportedAt {
			score = max(score, PartialAt) // a statement of the claim is there
		}
	}
	if refuted {
		return min(score, failedCheckCap), Unsupported
	}
	for _, c := range s.Checks {
		if !c.OK {
			return min(score, failedCheckCap), Unsupported
		}
	}
	switch {
	case score >= SupportedAt:
		return score, Supported
	case score >= PartialAt:
		return score, Partial
	}
	return score, Unsupported
}

// reason explains a verdict in one phrase for a tooltip.
func reason(verdict string, s Signals) string {
	for _, c := range s.Checks {
		if !c.OK {
			return c.Reason()
		}
	}
	if r := refutation(s); r != "" { // entail.go
		return r
	}
	missing := s.Missing
	if len(missing) > 4 {
		missing = append(missing[:4:4], "…")
	}
	switch verdict {
	case Partial:
		if len(missing) == 0 {
			return "only partly supported"
		}
		return "only partly supported: the passage does not mention " + strings.Join(missing, ", ")
	case Unsupported:
		if len(missing) == 0 {
			return "the passage does not say this"
		}
		return fmt.Sprintf("the passage does not say this (missing: %s)", strings.Join(missing, ", "))
	}
	return ""
}

func clamp01(x float64) float64 { return max(0, min(1, x)) }
