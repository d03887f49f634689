package verify

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/footnote-app/footnote/backend/facts"
)

// Role binding: a claim can repeat every word and value of a passage and
// still swap who does what. "Priya will prepare the press kit" has all its
// words in "Tom will prepare the press kit; Priya owns the budget", and
// "the front pressure is 2.5 bar" all of its in "2.3 bar at the front and
// 2.5 bar at the rear". The passage ties the claim's words to another name
// or value of the same kind.
//
// The rule: cut the span's sentences into clauses (at commas, colons,
// semicolons and coordinating conjunctions). For each number and name of
// the claim, collect the claim's other words found in the clauses that hold
// it. If some other clause holds a value of the same kind the claim does not
// use (a rival) together with all of those words, at least one more, and at
// least half of the claim's words, the passage binds the claim's words to
// the rival, not to the claim's value: the check fails. A clause of the
// claim's value that has a word of its own ("2.5 bar at the rear" for a
// claim about the rear) keeps it bound.
//
// It is deliberately narrow: when the value's clause holds more of the
// claim's words than the rival's ("replace the front pads at 3 mm and the
// rear pads at 2 mm" against "the rear pads are replaced at 3 mm") it does
// not fire.

// roleClauseBreakRe cuts a passage sentence into clauses; finer than
// clauseBreakRe because lists of settings ("precision below 0.80,
// under-refusal above 0.05") bind each value to its own item.
var roleClauseBreakRe = regexp.MustCompile(`(?i),?\s+(?:and|but|while|whereas|so|or)\s+|[;:,](?:\s+|$)|[()]`)

// roleClause is one clause of a passage sentence.
type roleClause struct {
	lower    string
	terms    []term
	polar    map[string]bool
	numbers  []quantity
	entities []string // lowercase
}

// roleClauses cuts unit text into clauses, giving each the unit's terms
// (analysed from text), numbers and names that fall inside it. names are
// the unit's tokens that count as names (see nameTokens).
func roleClauses(text string, terms []term, f textFacts, names []facts.Token) []roleClause {
	cuts := roleClauseBreakRe.FindAllStringIndex(text, -1)
	var out []roleClause
	start := 0
	for k := 0; k <= len(cuts); k++ {
		end, next := len(text), len(text)
		if k < len(cuts) {
			end, next = cuts[k][0], cuts[k][1]
		}
		if piece := text[start:end]; strings.TrimSpace(piece) != "" {
			rc := roleClause{lower: strings.ToLower(piece), polar: polarWords(piece)}
			for _, t := range terms {
				if t.pos >= start && t.pos < end {
					rc.terms = append(rc.terms, t)
				}
			}
			for _, q := range append(f.numbers, f.years...) {
				if q.Start >= start && q.Start < end {
					rc.numbers = append(rc.numbers, q)
				}
			}
			for _, t := range names {
				if t.Start >= start && t.Start < end {
					rc.entities = append(rc.entities, strings.ToLower(t.Text))
				}
			}
			out = append(out, rc)
		}
		start = next
	}
	return out
}

// nameTokens are the tokens of unit text that are names: those extractFacts
// takes as entities, and a sentence's first word when the passage
// capitalises it mid-sentence elsewhere ("Tom will …" after "Tom Alvarez").
func nameTokens(text string, midCaps map[string]bool) []facts.Token {
	var out []facts.Token
	for _, t := range facts.Tokens(text) {
		if t.InCode || isCode(t.Text) {
			continue
		}
		lower := strings.ToLower(t.Text)
		if _, month := facts.MonthName(lower); month || strings.Contains(lower, "-") {
			continue
		}
		if _, day := facts.WeekdayName(lower); day {
			continue
		}
		if isEntity(t.Text, t.Initial) || t.Initial && isCapitalised(t.Text) && !stopWords[lower] && midCaps[lower] {
			out = append(out, t)
		}
	}
	return out
}

// roleValue is one number or name of the claim.
type roleValue struct {
	text  string
	num   *quantity
	terms []term // the value's own words, not counted as bound to it
}

// holds reports whether clause rc states the value.
func (v roleValue) holds(rc roleClause) bool {
	if v.num != nil {
		for _, q := range rc.numbers {
			if v.num.Same(q.Quantity) {
				return true
			}
		}
		return false
	}
	return containsBounded(rc.lower, strings.ToLower(v.text))
}

// fragment reports a clause that holds the value and nothing else the
// claim could be bound to: a list item ("Shane, 22"), where the binding
// is not parsed unambiguously.
func (v roleValue) fragment(rc roleClause) bool {
	n := 0
	for _, t := range rc.terms {
		if !overlaps([]term{t}, v.terms) && !isNumericKey(t.key) {
			n++
		}
	}
	return n == 0
}

// rival is a value of the same kind in rc that the claim does not use.
func (v roleValue) rival(rc roleClause, cf textFacts, entities []string, common func(string) bool) string {
	if v.num != nil {
	numbers:
		for _, q := range rc.numbers {
			if !v.num.SameUnit(q.Quantity) || (v.num.Kind == facts.Year) != (q.Kind == facts.Year) {
				continue
			}
			for _, c := range cf.numbers {
				if c.Same(q.Quantity) {
					continue numbers
				}
			}
			return q.Text
		}
		return ""
	}
	used := map[string]bool{}
	for _, e := range entities {
		for _, w := range splitWords(strings.ToLower(e)) {
			used[w.text] = true
		}
	}
	for _, e := range rc.entities {
		if !used[e] && !used[strings.TrimSuffix(e, "s")] && (common == nil || !common(e)) {
			return e
		}
	}
	return ""
}

// checkBinding runs the role-binding rule for the numbers and names of the
// claim's clause cl over the span's clauses. Only what is parsed
// unambiguously is judged: a value listed in the claim beside another of
// its kind ("three siblings: Wade, Shane and Bailey"), or one the passage
// states only as a list item, is left alone.
//
// midCaps are the words the passage capitalises mid-sentence: a name that
// opens the claim counts if the passage writes it as a name.
func checkBinding(cf textFacts, cl clause, claimTerms []term, spanClauses func() []roleClause, common func(string) bool, midCaps map[string]bool) []Check {
	var values []roleValue
	var entities []string
	var nums, names int
	for i := range cf.numbers {
		if q := &cf.numbers[i]; q.Start >= cl.start && q.Start < cl.end {
			values = append(values, roleValue{text: q.Text, num: q, terms: analyze(q.Text)})
			nums++
		}
	}
	for _, n := range cf.names {
		initialName := !n.initial || midCaps[strings.ToLower(facts.StripHangulTail(n.words()[0]))]
		if n.start >= cl.start && n.start < cl.end && initialName && (common == nil || !common(strings.ToLower(n.text))) {
			values = append(values, roleValue{text: n.text, terms: analyze(n.text)})
			entities = append(entities, n.text)
			names++
		}
	}
	for _, n := range cf.names {
		entities = append(entities, n.text)
	}
	if len(values) == 0 || spanClauses == nil {
		return nil
	}
	clauses := spanClauses()
	if len(clauses) < 2 {
		return nil
	}
	var out []Check
	for _, v := range values {
		if v.num != nil && nums > 1 || v.num == nil && names > 1 {
			continue // a list in the claim
		}
		own := boundWords(claimTerms, cf.polar, v.terms)
		bound := map[int]bool{}
		found, listed := false, true
		for _, rc := range clauses {
			if v.holds(rc) {
				found = true
				listed = listed && v.fragment(rc)
				for i := range own.in(rc) {
					bound[i] = true
				}
			}
		}
		if !found || listed {
			continue // the value's own check reports it; or a list item
		}
		for _, rc := range clauses {
			if v.holds(rc) {
				continue
			}
			r := v.rival(rc, cf, entities, common)
			if r == "" {
				continue
			}
			there := own.in(rc)
			if 2*len(there) < own.len() || len(there) <= len(bound) || !containsAll(there, bound) {
				continue
			}
			out = append(out, Check{Kind: CheckRole, Claim: v.text, Passage: r,
				Detail: fmt.Sprintf("the passage ties %s to %s, not to %s", own.word(there, bound), r, v.text)})
			break
		}
	}
	return out
}

// claimWords are the words of a claim a value can be bound to.
type claimWords struct {
	terms []term
	polar []string
}

// boundWords are the claim's content terms and polar words, less the
// value's own words.
func boundWords(claimTerms []term, polar map[string]bool, own []term) claimWords {
	var cw claimWords
	for _, t := range claimTerms {
		if !overlaps([]term{t}, own) && !isNumericKey(t.key) {
			cw.terms = append(cw.terms, t)
		}
	}
	for w := range polar {
		cw.polar = append(cw.polar, w)
	}
	sort.Strings(cw.polar)
	return cw
}

func (cw claimWords) len() int { return len(cw.terms) + len(cw.polar) }

// in returns which of the words (terms first, then polar words, by index)
// clause rc holds.
func (cw claimWords) in(rc roleClause) map[int]bool {
	got := map[int]bool{}
	for i, t := range cw.terms {
		if overlaps([]term{t}, rc.terms) {
			got[i] = true
		}
	}
	for i, w := range cw.polar {
		if rc.polar[w] {
			got[len(cw.terms)+i] = true
		}
	}
	return got
}

// word names one word in there but not in bound, for the reason.
func (cw claimWords) word(there, bound map[int]bool) string {
	best := -1
	for i := range there {
		if !bound[i] && (best < 0 || i < best) {
			best = i
		}
	}
	switch {
	case best < 0:
		return "it"
	case best < len(cw.terms):
		return fmt.Sprintf("%q", cw.terms[best].word)
	}
	return fmt.Sprintf("%q", cw.polar[best-len(cw.terms)])
}

func containsAll(have, need map[int]bool) bool {
	for k := range need {
		if !have[k] {
			return false
		}
	}
	return true
}
