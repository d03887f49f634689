package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/facts"
)

// Name checks: a claim's name is looked for in the whole passage, written
// however the passage writes it, and is contradicted only where the
// sentences stating its clause put another name in its slot.

// checkName scores a claim's name: 1 when the passage or its context
// writes it (whatever its case, spacing and punctuation), else the share of
// its words found there; 0 and a contradiction when the sentences stating
// its clause (window w) write another name in its place and not it (see
// nameRival). A name the library names everywhere (the product in its
// manual) is not required, but may not be swapped either.
func (p *prepared) checkName(n phrase, claim textFacts, w window) (c Check, score float64, checked bool) {
	c = Check{Kind: CheckEntity, Claim: n.text}
	words := n.words()
	if n.initial && !p.midCaps[strings.ToLower(facts.StripHangulTail(words[0]))] {
		// A capitalised first word is a name only if the passage writes it
		// capitalised mid-sentence; otherwise it is an ordinary word. (Taken
		// as a name when the passage lacks it altogether, it cost the WiCE
		// dev claims 4 points of false alarms: most are words a paraphrase
		// drops, not names.)
		words = words[1:]
		if len(words) == 0 {
			return c, 1, false
		}
		c.Claim = strings.Join(words, " ")
	}
	inWindow := false
	for u := w.from; u < w.to; u++ {
		inWindow = inWindow || p.unitName(u).HasPhrase(c.Claim)
	}
	if !inWindow {
		if rival := p.nameRival(n, words, claim, w); rival != "" {
			c.Passage = rival
			return c, 0, true
		}
	}
	if inWindow || p.hasHangulName(c.Claim) {
		c.OK = true
		return c, 1, true
	}
	if p.names.HasPhrase(c.Claim) {
		c.OK = true
		return c, 1, true
	}
	if p.common != nil && len(words) == 1 && p.common(strings.ToLower(words[0])) {
		return c, 1, false
	}
	if p.names.Has(c.Claim) {
		c.OK = true
		return c, 1, true
	}
	found := 0
	for _, w := range words {
		if p.names.HasWord(w) || p.hasHangulName(w) {
			found++
		}
	}
	return c, float64(found) / float64(len(words)), true
}

func (p *prepared) hasHangulName(w string) bool {
	w = strings.ToLower(w)
	if !facts.IsHangulString(w) {
		return false
	}
	for u := range p.terms {
		for _, t := range p.terms[u] {
			if t.hangul && (strings.HasPrefix(t.key, w) || strings.HasPrefix(w, t.key) && utf8.RuneCountInString(t.key) >= 2) {
				return true
			}
		}
	}
	return false
}

// nameRival is a name or code window w writes where the claim writes n:
//   - the same family name with another given name ("Von Miller" for the
//     claim's "Newton Miller"), when both are names of two or three words
//     and the claim's other words occur nowhere in the passage;
//   - another value in the same slot (see slotRival).
func (p *prepared) nameRival(n phrase, words []string, claim textFacts, w window) string {
	if len(words) >= 2 && len(words) <= 3 && !genericHeads[facts.NameKey(words[len(words)-1])] {
		own := keySet(words)
		last := facts.NameKey(words[len(words)-1])
		elsewhere := false
		for _, word := range words[:len(words)-1] {
			elsewhere = elsewhere || p.names.HasWord(word)
		}
		for u := w.from; u < w.to && !elsewhere; u++ {
			for _, pn := range p.facts[u].names {
				pw := p.phraseWords(pn)
				if len(pw) < 2 || len(pw) > 3 || facts.NameKey(pw[len(pw)-1]) != last {
					continue
				}
				if theirs := keySet(pw); !subset(own, theirs) && !subset(theirs, own) {
					return strings.Join(pw, " ")
				}
			}
		}
	}
	return p.slotRival(n, w)
}

// genericHeads are last words that make a name of a kind, not of a family:
// "Kent State University" and "Miami University" are not one name with two
// given names.
var genericHeads = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`university college school academy institute records record award prize trophy cup
		game bowl series show film album song party church street road avenue river lake mountain park stadium arena
		airport hospital museum library gallery council committee commission association company corporation inc ltd
		club team league festival bridge station hotel hall center centre foundation society group band court house
		department ministry agency office army navy force war battle act bill treaty island city county state province
		kingdom republic empire order medal championship tournament open theatre theater tower building`) {
		m[facts.NameKey(w)] = true
	}
	return m
}()

// phraseWords are a passage phrase's words, less a sentence-opening word
// the passage does not otherwise capitalise ("Perhaps Harry" is Harry).
func (p *prepared) phraseWords(pn phrase) []string {
	ws := pn.words()
	if pn.initial && len(ws) > 0 && !p.midCaps[strings.ToLower(facts.StripHangulTail(ws[0]))] {
		return ws[1:]
	}
	return ws
}

// slotRival is a name or code window w writes between the same
// neighbouring words as the claim writes n ("The Broncos made" for the
// claim's "The Denver made", "accepts --json for" for "accepts --yaml
// for"), when one neighbour is a content word, both match, or the two
// words on one side do ("such as LM Studio" for "such as KoboldCpp"), and neither
// is part of the other. (It is asked only when the window does not write
// the claim's value: a permutation of the claim's own values within the
// window is role binding's to judge.)
func (p *prepared) slotRival(n phrase, w window) string {
	if n.left == "" && n.right == "" {
		return ""
	}
	own := keySet(n.words())
	for u := w.from; u < w.to; u++ {
		for _, pn := range append(p.facts[u].names, p.facts[u].codes...) {
			pw := p.phraseWords(pn)
			theirs := keySet(pw)
			if len(theirs) == 0 || subset(own, theirs) || subset(theirs, own) {
				continue
			}
			l := n.left != "" && pn.left == n.left
			r := n.right != "" && pn.right == n.right
			l2 := n.left2 != "" && pn.left2 == n.left2 && (informativePair(n.left2) || exampleCues[n.left2])
			r2 := n.right2 != "" && pn.right2 == n.right2 && informativePair(n.right2)
			if l && r || l && informative(n.left) || r && informative(n.right) || l2 || r2 {
				return strings.Join(pw, " ")
			}
		}
	}
	return ""
}

// exampleCues introduce examples: "such as KoboldCpp" in place of "such as
// LM Studio" swaps one example for another.
var exampleCues = map[string]bool{"such as": true, "for example": true, "for instance": true}

// informativePair reports two neighbouring words one of which is
// informative.
func informativePair(pair string) bool {
	a, b, _ := strings.Cut(pair, " ")
	return informative(a) || informative(b)
}

// informative reports a neighbouring word that ties a name to its role on
// its own: not a function word, punctuation or a sentence's start.
func informative(w string) bool { return w != "^" && !stopWords[w] && isWordToken(w) }

func isWordToken(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func keySet(words []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		if k := facts.NameKey(w); k != "" {
			m[k] = true
		}
	}
	return m
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
