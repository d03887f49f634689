package verify

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/facts"
)

// Negation: a claim must not deny what its passage asserts, nor assert
// what its passage denies. Each negation cue gets a scope, the content
// words it negates: in English the words after the cue up to the end of the
// clause ("does not send your documents, questions or answers" negates
// send, documents, questions, answers); after "no", "nothing" and the like
// also the word before ("sends nothing"); in Korean, where the negation
// follows the verb (보내지 않습니다), the words before it. A word such as
// "unchanged" is its own scope.

// negScope is one negation: its cue and the content words it negates,
// nearest first.
type negScope struct {
	pos      int // byte offset of the cue in the text
	cue      string
	terms    []term
	korean   bool
	relevant bool // in a span: its sentence holds enough of the claim to deny it
}

// negScopeMax bounds a scope; the first two words (the negated verb and its
// object, or in Korean the verb) are its head.
const negScopeMax = 4

// head is what a negation is about: its first two words, or in Korean the
// verb alone (the words before it are often a list of objects).
func (n negScope) head() []term {
	k := 2
	if n.korean {
		k = 1
	}
	return n.terms[:min(k, len(n.terms))]
}

func (n negScope) String() string {
	parts := []string{n.cue}
	for _, t := range n.head() {
		parts = append(parts, t.word)
	}
	return strings.Join(parts, " ")
}

// scopeStop ends a negation's scope once it holds a word: a preposition,
// auxiliary or conjunction starts another phrase ("cannot read | as
// text"), while right after the cue it is part of what is negated ("not in
// seat tickets").
var scopeStop = setOf(`if when unless because but so that which who whom where while although though or and then than
	as from to into in on at by for with without is are was were be been being has have had will would can could`)

// unNegated are words starting with "un" that do not negate.
var unNegated = setOf(`unified united unionized uniformed underlined understood undertaken`)

// negationScopes finds the negations of s.
func negationScopes(s string) []negScope {
	ws := splitWords(s)
	var out []negScope
	for i, w := range ws {
		lw := strings.ToLower(w.text)
		sc := negScope{pos: w.start}
		before := false
		switch {
		case facts.IsNegation(lw) || lw == "without":
			sc.cue = lw
			before = lw == "no" || lw == "nothing" || lw == "none" || lw == "nowhere" || lw == "nobody"
		case lw == "t" && i > 0 && facts.ContractionStem(strings.ToLower(ws[i-1].text)) && isApostrophe(s[ws[i-1].end:w.start]):
			sc.cue = strings.ToLower(ws[i-1].text) + "'t"
		case isUnWord(lw):
			sc.cue, sc.terms = lw, analyze(lw[2:])
			out = append(out, sc)
			continue
		case lw == "안" || lw == "못":
			sc.cue = lw
		case facts.IsKoreanNegation(lw):
			sc.cue, sc.korean = lw, true
		default:
			continue
		}
		if sc.korean {
			for j := i - 1; j >= 0 && len(sc.terms) < negScopeMax; j-- {
				if clauseBreak(s[ws[j].end:ws[j+1].start]) {
					break
				}
				sc.terms = append(sc.terms, analyze(ws[j].text)...)
			}
			out = append(out, sc)
			continue
		}
		if before && i > 0 && !clauseBreak(s[ws[i-1].end:w.start]) {
			sc.terms = append(sc.terms, analyze(ws[i-1].text)...)
		}
		for j := i + 1; j < len(ws) && len(sc.terms) < negScopeMax; j++ {
			lj := strings.ToLower(ws[j].text)
			if sentenceBreak(s[ws[j-1].end:ws[j].start]) || scopeStop[lj] && len(sc.terms) > 0 {
				break
			}
			sc.terms = append(sc.terms, analyze(ws[j].text)...)
		}
		out = append(out, sc)
	}
	return out
}

// isUnWord reports a negating "un-" participle or adjective: unchanged,
// unsupported, unreadable.
func isUnWord(lw string) bool {
	if !strings.HasPrefix(lw, "un") || strings.HasPrefix(lw, "under") || unNegated[lw] || utf8.RuneCountInString(lw) < 8 {
		return false
	}
	return strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "able") || strings.HasSuffix(lw, "ible")
}

func isApostrophe(s string) bool { return s == "'" || s == "’" }

// clauseBreak is punctuation between two words that ends a Korean scope.
func clauseBreak(between string) bool { return strings.ContainsAny(between, ",.;:!?()") }

// sentenceBreak is punctuation that ends an English scope; commas do not,
// so a negated list stays in scope.
func sentenceBreak(between string) bool { return strings.ContainsAny(between, ".;:!?()") }

// checkClaimNegation scores a negation of the claim: 1 when a negation in
// window w (where the claim's clause is stated) negates its head (two
// words, or all if fewer); 0 otherwise, and a contradiction when the
// window states the head without negating it ("The Broncos took an early
// lead" against "The Broncos did not take an early lead") — if the head
// is two words or the window is about the claim (relevantCoverage).
func (p *prepared) checkClaimNegation(cs negScope, w window, cv *coverage) (Check, float64) {
	c := Check{Kind: CheckNegation, Claim: cs.String()}
	h := cs.head()
	for u := w.from; u < w.to; u++ {
		for _, ss := range p.facts[u].negation {
			if len(h) == 0 || overlapCount(h, ss.terms) >= len(h) {
				c.OK = true
				return c, 1
			}
		}
	}
	if len(h) == 0 {
		return c, 0
	}
	for u := w.from; u < w.to; u++ {
		if overlapCount(h, p.terms[u]) >= len(h) && (len(h) > 1 || cv.within(u) >= relevantCoverage) {
			var words []string
			for _, t := range h {
				words = append(words, t.word)
			}
			c.Passage = strings.Join(words, " ")
			c.Detail = fmt.Sprintf("the claim says %q, the passage says the opposite", cs.String())
			return c, 0
		}
	}
	return c, 0
}

// deniedByPassage fails each negation in the span that denies a head the
// claim asserts without negating it ("does not send your documents"
// against "sends your documents"), in a sentence that is about the claim
// (see relevantCoverage).
func deniedByPassage(claimNeg []negScope, claimTerms []term, spanNeg []negScope) []Check {
	var out []Check
	for _, ss := range spanNeg {
		h := ss.head()
		if !ss.relevant || len(h) == 0 || !coversAll(claimTerms, h) {
			continue
		}
		denied := true
		for _, cs := range claimNeg {
			if overlaps(cs.terms, h) {
				denied = false
				break
			}
		}
		if denied {
			out = append(out, Check{Kind: CheckNegation, Passage: ss.String(), OK: false})
		}
	}
	return out
}
