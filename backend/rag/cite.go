package rag

import (
	"regexp"
	"strconv"
)

// markerPattern is the only citation form Footnote accepts. Look-alikes such
// as "[1]", "[ #1 ]" or "vec![1]" are deliberately not citations.
var markerPattern = regexp.MustCompile(`\[#(\d{1,3})\]`)

// ExtractMarkers returns the citation numbers in order of first appearance,
// without duplicates.
func ExtractMarkers(text string) []int {
	var out []int
	seen := map[int]bool{}
	for _, m := range markerPattern.FindAllStringSubmatch(text, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// Refusal reasons recorded on answers that are not grounded.
const (
	RefusalNoChunks   = "no_chunks"      // retrieval found nothing; the LLM was not called
	RefusalScoreGate  = "score_gate"     // best evidence scored below the gate; the LLM was not called
	RefusalSelfJudge  = "llm_self_judge" // the model cited evidence it was not given
	RefusalNoCitation = "no_citations"   // the model answered without citing (or used the refusal sentence)
	RefusalStopped    = "stopped"        // the user stopped generation
	RefusalLLMError   = "llm_error"      // generation failed
	// RefusalUnsupportedClaim (verify.go): claims not supported by what they cite.
	// RefusalUnanswerable (answerability.go): the best passages lack the question's rare words.
)

// Verdict is the outcome of validating an answer's markers against the
// packed evidence.
type Verdict struct {
	Grounded      bool
	RefusalReason string
	Cited         []int // packed numbers cited, in order of first appearance
	Invalid       []int // numbers cited that were not packed
}

// Validate decides whether an answer is grounded: it must cite at least one
// packed passage and nothing else. Every marker in the text counts; the
// pipeline uses ValidateMarkers with the claims' markers instead, so markers
// in code or copied out of evidence text are not citations.
func Validate(answer string, packed int) Verdict {
	return ValidateMarkers(ExtractMarkers(answer), packed)
}

// ValidateMarkers is Validate over a list of citation numbers.
func ValidateMarkers(markers []int, packed int) Verdict {
	var v Verdict
	for _, n := range markers {
		if n >= 1 && n <= packed {
			v.Cited = append(v.Cited, n)
		} else {
			v.Invalid = append(v.Invalid, n)
		}
	}
	switch {
	case len(v.Invalid) > 0:
		v.RefusalReason = RefusalSelfJudge
	case len(v.Cited) == 0:
		v.RefusalReason = RefusalNoCitation
	default:
		v.Grounded = true
	}
	return v
}
