package rag

import (
	"slices"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/facts"
)

// A question written to look answerable by a passage often changes one
// thing the passage states: it asks what did *not* happen where the
// passages negate nothing, or about 1977 where they speak of 1976. SQuAD
// 2.0's unanswerable questions are written so; the word gates cannot tell
// them apart, since every other word is the passage's (docs/evaluation.md).
// The answerability gate reads these cues off the question and checks them
// against the passages the model would be shown. On the SQuAD 2.0 dev
// extract (bench/answerability, reader answering whenever a passage
// overlaps, lexical mode) they refuse 33 of its 321 unanswerable questions
// and none of its 287 answerable ones.

// negatingShare is how much of the question's key words, against the best
// passage, a passage must hold for its negations to count: a negation in a
// passage about something else says nothing of the question. Three
// quarters refused 27 unanswerable questions of the SQuAD 2.0 dev extract
// and no answerable one; the best passage alone (1) refused 30 and 1; half
// refused 18 and none.
const negatingShare = 0.75

// negationWord returns the first negation among words ("not", "never",
// "didn’t" …: facts.IsNegation and the n't contractions), or "".
func negationWord(words []string) string {
	for i, w := range words {
		if facts.IsNegation(w) {
			return w
		}
		if i+1 < len(words) && words[i+1] == "t" && facts.ContractionStem(w) {
			return w + "’t"
		}
	}
	return ""
}

// negativeStems are words by which a passage says what is not so without
// a negation word ("disagreed", "instead of", "failed to", "unable").
var negativeStems = map[string]bool{}

func init() {
	for _, w := range strings.Fields("without instead rather opposed except unlike lack failed refused declined unable disagreed") {
		negativeStems[wordStem(w)] = true
	}
}

// negates reports whether a passage's words say that something is not so.
func negates(words []string) bool {
	return negationWord(words) != "" || slices.ContainsFunc(words, func(w string) bool { return negativeStems[wordStem(w)] })
}

// statedValues are the years, decades and ordinals written in digits a
// text states ("1977", "1970s", "14th"): the values a question pins its
// answer to. Spelled-out ordinals are left out, "first" being as often
// "at first" as a rank, and so are cardinals, which passages state by the
// dozen.
func statedValues(text string) []facts.Quantity { return inDigits(facts.Quantities(text)) }

// inDigits keeps the years, decades and ordinals of qs written in digits.
func inDigits(qs []facts.Quantity) []facts.Quantity {
	var out []facts.Quantity
	for _, q := range qs {
		if q.Kind != facts.Cardinal && strings.ContainsFunc(q.Text, unicode.IsDigit) {
			out = append(out, q)
		}
	}
	return out
}

// cueEvidence is what the passages say to the question's negation and
// the years and ranks it names.
type cueEvidence struct {
	// Negation is the question's negation word when no passage holding
	// the question's words about as well as the best one negates anything:
	// a passage that states only what is so cannot say what is not.
	Negation string
	// ValuesAsked are the question's years, decades and ranks no passage
	// states while the best passage states others of their kind,
	// ValuesStated: it speaks of another year ("1977" asked, "1976" stated).
	ValuesAsked, ValuesStated []string
}

// checkCues reads the question's cues in passages, given as their texts
// (title, heading context and text) and the words indexWords splits them
// into; shares are each passage's weighted share of the question's key
// words, best the index of the largest.
func checkCues(question string, texts []string, words [][]string, shares []float64, best int) cueEvidence {
	var ev cueEvidence
	negation, values := negationWord(indexWords(question)), statedValues(question)
	if negation == "" && len(values) == 0 || best < 0 || best >= len(texts) {
		return ev
	}
	if negation != "" {
		ev.Negation = negation
		for i := range texts {
			if shares[i] >= negatingShare*shares[best] && negates(words[i]) {
				ev.Negation = ""
				break
			}
		}
	}
	if len(values) == 0 {
		return ev
	}
	// A passage states a value in any form ("fourteenth" states "14th");
	// what the best passage speaks of instead is said as it is written in
	// digits.
	read := make([][]facts.Quantity, len(texts))
	for i, t := range texts {
		read[i] = facts.Quantities(t)
	}
	for _, v := range values {
		if slices.ContainsFunc(read, func(qs []facts.Quantity) bool { return slices.ContainsFunc(qs, v.Same) }) {
			continue
		}
		var instead []string
		for _, s := range inDigits(read[best]) {
			if s.Kind == v.Kind && !slices.Contains(instead, s.Text) && !slices.Contains(ev.ValuesStated, s.Text) {
				instead = append(instead, s.Text)
			}
		}
		if len(instead) > 0 {
			ev.ValuesAsked, ev.ValuesStated = append(ev.ValuesAsked, v.Text), append(ev.ValuesStated, instead...)
		}
	}
	return ev
}

// refusal is the answerability gate's refusal on the cues, or nil.
func (ev cueEvidence) refusal() *GateRefusal {
	switch {
	case ev.Negation != "":
		return &GateRefusal{Signal: SignalNegation, Value: 0, Threshold: 1,
			Why: "the question asks what is not so (“" + ev.Negation + "”), but no passage that holds its words says that anything is not"}
	case len(ev.ValuesAsked) > 0:
		return &GateRefusal{Signal: SignalValues, Value: 0, Threshold: float64(len(ev.ValuesAsked)),
			Why: "the question asks about " + quoteList(ev.ValuesAsked) + ", which no passage found states; the best passage speaks of " +
				quoteList(ev.ValuesStated) + " instead"}
	}
	return nil
}
