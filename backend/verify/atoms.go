package verify

import (
	"regexp"
	"strings"
)

// A claim is verified fact by fact. Its atoms are the words of each of its
// clauses ("Footnote runs on Linux | and updates itself") and each value it
// states (a number, date, code or name) or negates; every atom is scored
// against the whole cited passage, placed where its clause is stated, and
// the claim's score is their weighted mean (Combine). So a long claim with
// one fact the passage lacks is partly supported, naming that fact, and a
// claim is no longer all or nothing on its weakest word.

// Atom kinds besides the Check kinds of values.
const atomWords = "words"

// atom is one fact of a claim.
type atom struct {
	kind   string // atomWords, CheckNumber, CheckDate, CheckCode, CheckEntity or CheckNegation
	text   string // as the claim writes it
	clause int    // index into preparedClaim.clauses
	terms  []int  // atomWords: the clause's terms that are no value's words
	index  int    // a value: its index in the claim's facts of its kind
	weight float64
}

// clause is a span of the claim that states one thing.
type clause struct {
	start, end int
	terms      []int // the claim's terms inside it: where it is stated is where they are
}

// valueWeight is the weight of a value atom, against a words atom's sum of
// its words' weights (1 for a word no passage contains): a number, date or
// name counts like one rare word.
const valueWeight = 1.0

// clauseCutRe cuts a claim into clauses: at coordinating conjunctions, at
// semicolons, before a relative clause or a parenthesis, at a dash between
// spaces.
var clauseCutRe = regexp.MustCompile(`(?i),?\s+(?:and|but|while|whereas|so)\s+|;\s*|,\s*(?:which|then|who|where|when|with)\s+|\s+[–—]\s+|\s*\(|\)\s*`)

// minClauseTerms is the fewest content words a clause must have; a shorter
// piece ("Linux, macOS | and Windows") stays with the piece before it.
const minClauseTerms = 2

// clauseSpans cuts text into clauses holding at least minClauseTerms of
// terms each.
func clauseSpans(text string, terms []term) []clause {
	cuts := clauseCutRe.FindAllStringIndex(text, -1)
	var spans []clause
	start := 0
	for k := 0; k <= len(cuts); k++ {
		end, next := len(text), len(text)
		if k < len(cuts) {
			end, next = cuts[k][0], cuts[k][1]
		}
		if strings.TrimSpace(text[start:end]) != "" {
			spans = append(spans, clause{start: start, end: end})
		}
		start = next
	}
	if len(spans) == 0 {
		spans = []clause{{0, len(text), nil}}
	}
	for i, t := range terms {
		for k := range spans {
			if t.pos >= spans[k].start && (t.pos < spans[k].end || k == len(spans)-1) {
				spans[k].terms = append(spans[k].terms, i)
				break
			}
		}
	}
	var out []clause
	for _, c := range spans {
		switch {
		case len(c.terms) >= minClauseTerms || len(out) == 0:
			out = append(out, c)
		default:
			last := &out[len(out)-1]
			last.end = c.end
			last.terms = append(last.terms, c.terms...)
		}
	}
	if len(out) > 1 && len(out[0].terms) < minClauseTerms {
		out[1].start = out[0].start
		out[1].terms = append(out[0].terms, out[1].terms...)
		out = out[1:]
	}
	return out
}

// clauseAt is the clause holding byte offset pos.
func clauseAt(cs []clause, pos int) int {
	for k := len(cs) - 1; k >= 0; k-- {
		if pos >= cs[k].start {
			return k
		}
	}
	return 0
}

// atomsOf lists the atoms of a claim: per clause its words, then its
// values and negations.
func atomsOf(c *preparedClaim) []atom {
	type span struct{ start, end int }
	var values []span
	var out []atom
	add := func(a atom, start, end int) {
		a.clause = clauseAt(c.clauses, start)
		out = append(out, a)
		values = append(values, span{start, end})
	}
	for i, q := range c.facts.numbers {
		add(atom{kind: CheckNumber, text: q.Text, index: i, weight: valueWeight}, q.Start, q.End)
	}
	for i, d := range c.facts.dates {
		add(atom{kind: CheckDate, text: d.Text, index: i, weight: valueWeight}, d.Start, d.End)
	}
	for i, code := range c.facts.codes {
		add(atom{kind: CheckCode, text: code.text, index: i, weight: valueWeight}, code.start, code.end)
	}
	for i, n := range c.facts.names {
		add(atom{kind: CheckEntity, text: n.text, index: i, weight: valueWeight}, n.start, n.end)
	}
	for i, ng := range c.facts.negation {
		out = append(out, atom{kind: CheckNegation, text: ng.String(), index: i, weight: valueWeight, clause: clauseAt(c.clauses, ng.pos)})
	}
	inValue := func(pos int) bool {
		for _, v := range values {
			if pos >= v.start && pos < v.end {
				return true
			}
		}
		return false
	}
	var words []atom
	for k, cl := range c.clauses {
		a := atom{kind: atomWords, clause: k, text: strings.TrimSpace(c.text[cl.start:cl.end])}
		for _, i := range cl.terms {
			if !inValue(c.terms[i].pos) {
				a.terms = append(a.terms, i)
				a.weight += c.weights[i]
			}
		}
		if len(a.terms) > 0 {
			words = append(words, a)
		}
	}
	return append(words, out...)
}
