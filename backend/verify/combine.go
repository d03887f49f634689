package verify

import (
	"fmt"
	"strings"
)

// Verdicts of a claim against a passage. Uncited is for claims only.
const (
	Supported   = "supported"   // the passage states everything the claim says
	Partial     = "partial"     // it states part of it and contradicts none of it
	Unsupported = "unsupported" // it does not state it, or contradicts it
	Uncited     = "uncited"     // a checkable claim no marker covers
)

// Thresholds and weights of Combine, chosen on the WiCE dev claims
// (bench/claims) with the lexical signal alone, and checked on the
// labelled set (testdata/claims.jsonl); bench/RESULTS.md has what they
// achieve on sets they were not chosen on.
const (
	SupportedAt = 0.72 // score at or above, with every fact stated: supported
	PartialAt   = 0.35 // score at or above: partial

	// missingValuePenalty is taken off the score for each value of the
	// claim (a number, date, code or name) the passage does not state: what
	// makes a claim specific weighs more than its other words when absent.
	missingValuePenalty = 0.15

	// factStatedAt is the score under which a value fact (a number, date,
	// code, name or negation) counts as missing, and wordsStatedAt the one
	// for a clause's words; a clause lighter than wordsVetoWeight (about
	// one rare word) cannot keep a claim from support on its own. Support
	// needs every value stated whole.
	factStatedAt    = 0.5
	wordsStatedAt   = 0.5
	wordsVetoWeight = 1.2

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

	// contradictedFactor scales the score of a claim the passage
	// contradicts (another value where the claim's stands, the claim's
	// words denied): unsupported, and ranked below claims that are merely
	// not stated.
	contradictedFactor = 0.25
)

// Combine turns the signals of one (claim, passage) pair into a score in
// [0,1] and a verdict:
//
//  1. score = the lexical score (the weighted mean of the facts');
//  2. with a semantic signal above it and lexical ≥ 0.35:
//     score += 0.3 · (semantic − score);
//  3. with an entailment probability: score = ½·score + ½·entailment;
//  4. a contradiction (a failed check naming what the passage says
//     instead, or a contradiction probability of 0.5 or more above the
//     entailment probability, entail.go): score × 0.25, unsupported;
//  5. less 0.15 for each value of the claim (number, date, code, name)
//     the passage does not state;
//  6. supported at score ≥ 0.72 when every value and every clause of
//     weight 1.2 or more is stated; partial at score ≥ 0.35; else
//     unsupported.
func Combine(s Signals) (score float64, verdict string) {
	score = clamp01(s.Lexical)
	if s.Semantic != nil && *s.Semantic > score && s.Lexical >= semanticMinLexical {
		score += semanticPull * (*s.Semantic - score)
	}
	score, refutedByModel := withEntailment(score, s) // entail.go
	for _, c := range s.Checks {
		if c.contradicts() {
			return score * contradictedFactor, Unsupported
		}
	}
	if refutedByModel {
		return score * contradictedFactor, Unsupported
	}
	allStated := true
	for _, f := range s.Facts {
		switch {
		case f.Kind == CheckNegation:
			// A negation is often said in other words ("not allowed",
			// "banned"): unstated, it keeps the claim from support only.
			allStated = allStated && f.Score >= factStatedAt
		case f.Kind != atomWords:
			if f.Score < factStatedAt {
				score = max(0, score-missingValuePenalty)
			}
			// Part of a name or date ("Miller" for "Von Miller") is not
			// the claim's value: partly supported at most.
			allStated = allStated && f.Score >= 1

		case f.Weight >= wordsVetoWeight && f.Score < wordsStatedAt:
			allStated = false
		}
	}
	switch {
	case score >= SupportedAt && allStated:
		return score, Supported
	case score >= PartialAt:
		return score, Partial
	}
	return score, Unsupported
}

// reason explains a verdict in one phrase for a tooltip: a contradiction,
// or for a partial or unsupported claim the fact the passage does not
// state.
func reason(verdict string, s Signals) string {
	if verdict == Supported {
		return ""
	}
	for _, c := range s.Checks {
		if c.contradicts() {
			return c.Reason()
		}
	}
	if r := refutation(s); r != "" { // entail.go
		return r
	}
	weakest := weakestFact(s)
	missing := s.Missing
	if len(missing) > 4 {
		missing = append(missing[:4:4], "…")
	}
	switch {
	case verdict == Partial && weakest != "":
		return "only partly supported: the passage does not state " + weakest
	case verdict == Partial && len(missing) > 0:
		return "only partly supported: the passage does not mention " + strings.Join(missing, ", ")
	case verdict == Partial:
		return "only partly supported"
	case weakest != "" && len(s.Facts) > 1:
		return fmt.Sprintf("the passage does not say this (it does not state %s)", weakest)
	case len(missing) > 0:
		return fmt.Sprintf("the passage does not say this (missing: %s)", strings.Join(missing, ", "))
	}
	for _, c := range s.Checks {
		if !c.OK {
			return c.Reason()
		}
	}
	return "the passage does not say this"
}

// weakestFact names the claim's least supported fact, quoted: the value
// or clause with the lowest score under what counts as stated, values
// first on a tie.
func weakestFact(s Signals) string {
	at, best := -1, 2.0
	for i, f := range s.Facts {
		limit := factStatedAt
		if f.Kind == atomWords {
			limit = wordsStatedAt
		}
		if f.Score < limit && f.Score < best {
			at, best = i, f.Score
		}
	}
	if at < 0 {
		return ""
	}
	return fmt.Sprintf("%q", s.Facts[at].Text)
}

func clamp01(x float64) float64 { return max(0, min(1, x)) }
