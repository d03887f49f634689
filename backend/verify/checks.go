package verify

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/facts"
)

// Hard-constraint kinds (Check.Kind).
const (
	CheckNumber   = "number"
	CheckDate     = "date"
	CheckCode     = "code"
	CheckEntity   = "entity"
	CheckNegation = "negation"
	CheckOpposite = "opposite" // a comparison word turned round (more/fewer); see opposites.go
	CheckRole     = "role"     // a value bound to other words than the claim's; see binding.go
)

// Check is one fact of a claim that must be stated exactly (a number,
// date, code, name or negation) and whether the passage states it. A
// failed check whose Passage is set is a contradiction: the passage states
// something else in its place.
type Check struct {
	Kind    string `json:"kind"`
	Claim   string `json:"claim"`             // the claim's value as written
	Passage string `json:"passage,omitempty"` // what the passage says instead, when it can tell
	Detail  string `json:"detail,omitempty"`  // why it fails, when Passage alone does not say
	OK      bool   `json:"ok"`
}

// Reason says why a failed check fails, for a tooltip.
func (c Check) Reason() string {
	switch {
	case c.OK:
		return ""
	case c.Detail != "":
		return c.Detail
	case c.Kind == CheckNegation && c.Passage != "":
		return fmt.Sprintf("the passage says %q, the claim does not", c.Passage)
	case c.Kind == CheckNegation:
		return fmt.Sprintf("the claim says %q, the passage does not", c.Claim)
	case c.Passage != "":
		return fmt.Sprintf("the passage says %s, the claim says %s", c.Passage, c.Claim)
	}
	return fmt.Sprintf("the passage does not mention %s", c.Claim)
}

// contradicts reports a failed check where the passage states something
// else (another number, code, date or name, or denies what the claim
// asserts), as opposed to one where it merely lacks the claim's value.
func (c Check) contradicts() bool { return !c.OK && c.Passage != "" }

// Value checks look at the whole cited passage, its title and headings
// included: a dateline's year, a name in the title or a number two
// sentences on all count. A value found away from the sentences that state
// the rest of its clause counts only if nothing there binds another value
// to the same words: "released in 1982" is not supported by a passage that
// says "released in 1975" and mentions 1982 elsewhere.

// window is a run of passage units [from, to).
type window struct{ from, to int }

func (w window) has(u int) bool { return u >= w.from && u < w.to }

// checkNumber scores a claim's number against the passage: 1 when the
// passage states it where the clause is, bound to what the claim's number
// counts (boundAlike), or elsewhere tied to the same words (a year
// anywhere); ½ when it occurs only for something else;
// 0 when it is missing or contradicted (the clause's sentences give
// another value for the same words).
func (p *prepared) checkNumber(q quantity, claimNumbers []quantity, w window) (Check, float64) {
	c := Check{Kind: CheckNumber, Claim: q.Text}
	inWindow, inContext, anchored, elsewhere := false, false, false, false
	look := func(pq quantity, u int) {
		if !q.Same(pq.Quantity) || !compatibleKinds(q.Quantity, pq.Quantity) {
			return
		}
		switch {
		case u < 0:
			inContext, anchored = true, true
		case w.has(u) && (q.Kind == facts.Year || boundAlike(q, pq)):
			inWindow = true
		case w.has(u):
			// In the clause's sentences but counting something else
			// ("seven times" for "seven tackles").
			elsewhere = true
		case len(q.anchors) == 0 || q.Kind == facts.Year || overlaps(q.anchors, p.terms[u]):
			anchored = true
		default:
			elsewhere = true
		}
	}
	for u := range p.units {
		for _, pq := range p.facts[u].numbers {
			look(pq, u)
		}
		for _, pq := range p.facts[u].years {
			look(pq, u)
		}
	}
	for _, pq := range append(p.ctxFacts.numbers, p.ctxFacts.years...) {
		look(pq, -1)
	}
	if inWindow || inContext && q.Kind == facts.Year {
		// A year in the title, headings or dateline is the document's
		// own: it holds whatever the body says elsewhere.
		c.OK = true
		return c, 1
	}
	if rival := p.rivalNumber(q, claimNumbers, w); rival != "" {
		c.Passage = rival
		return c, 0
	}
	switch {
	case anchored:
		c.OK = true
		return c, 1
	case elsewhere:
		c.Detail = fmt.Sprintf("the passage gives %s for something else", q.Text)
		return c, 0.5
	}
	// A long number inside a code or address (the port in 127.0.0.1:11434).
	if lit := strings.ReplaceAll(q.Text, ",", ""); q.Unit == "" && len(lit) >= 4 && p.containsNumber(lit) {
		c.OK = true
		return c, 1
	}
	return c, 0
}

// boundAlike reports two numbers bound to the same thing: measured in the
// same unit ("8 passages" and "6 passages"), or sharing a word that stands
// next to them ("released in 1975" and "released in 1982", "100 requests
// per minute" and "60 per minute"). A number with no word near it is
// bound like any.
func boundAlike(q, r quantity) bool {
	if q.Unit != "" && q.Unit == r.Unit || len(q.anchors) == 0 {
		return true
	}
	return overlaps(q.anchors, r.anchors)
}

// compatibleKinds: a decade is not a year, an ordinal may be written as a
// cardinal ("Super Bowl 50", "the 50th Super Bowl").
func compatibleKinds(a, b facts.Quantity) bool {
	return (a.Kind == facts.Decade) == (b.Kind == facts.Decade)
}

// rivalNumber is a number in window w that states another value for what
// the claim's number counts: of the same kind (a year for a year, an
// ordinal for an ordinal) and unit ("2.3 bar" for "2.5 bar"), not a value
// of the claim, and bound to the same word (boundAlike).
func (p *prepared) rivalNumber(q quantity, claimNumbers []quantity, w window) string {
	for u := w.from; u < w.to; u++ {
		cands := p.facts[u].numbers
		if q.Kind == facts.Year {
			cands = append(cands[:len(cands):len(cands)], p.facts[u].years...)
		}
	next:
		for _, r := range cands {
			if r.Kind != q.Kind || (q.Unit == "") != (r.Unit == "") || !q.SameUnit(r.Quantity) || !boundAlike(q, r) {
				continue
			}
			for _, c := range claimNumbers {
				if c.Same(r.Quantity) && c.Kind == r.Kind && boundAlike(c, r) {
					continue next // the claim states this value too, of this
				}
			}
			return r.Text
		}
	}
	return ""
}

// checkDate scores a claim's date: the share of the fields it states
// (year, month, day) that some date of the passage states alike, a year
// also from the passage's years (its dateline); 0 and a contradiction when
// a date in the clause's sentences states one of them otherwise.
func (p *prepared) checkDate(d facts.Date, w window) (Check, float64) {
	c := Check{Kind: CheckDate, Claim: d.Text}
	best := 0.0
	var rival string
	consider := func(o facts.Date, inWindow bool) {
		if d.Within(o, p.years) {
			best = 1
			return
		}
		got, stated, clash := 0, 0, d.Weekday > 0 && o.Weekday > 0 && d.Weekday != o.Weekday
		for _, f := range [][2]int{{d.Year, o.Year}, {d.Month, o.Month}, {d.Day, o.Day}} {
			if f[0] == 0 {
				continue
			}
			stated++
			switch {
			case f[1] == f[0]:
				got++
			case f[1] != 0:
				clash = true
			}
		}
		if d.Year > 0 && o.Year == 0 {
			switch y := p.datelineYear(); {
			case p.hasYear(d.Year):
				got++
			case y > 0 && !clash && o.Day > 0 && d.Month == o.Month && d.Day == o.Day:
				// "June 28" under a 2019 dateline is 28 June 2019 ("in June"
				// may be next year's).
				if inWindow && rival == "" {
					rival = fmt.Sprintf("%s (%d)", o.Text, y)
				}
				return
			}
		}
		if clash {
			if inWindow && rival == "" && (d.Month == 0 || o.Month != 0) {
				rival = o.Text
			}
			return
		}
		if stated > 0 {
			best = max(best, float64(got)/float64(stated))
		}
	}
	for u := range p.units {
		for _, o := range p.facts[u].dates {
			consider(o, w.has(u))
		}
	}
	for _, o := range p.ctxFacts.dates {
		consider(o, false)
	}
	if best == 0 && d.Year > 0 && d.Month == 0 && d.Day == 0 && d.Weekday == 0 && p.hasYear(d.Year) {
		best = 1
	}
	switch {
	case best >= 1:
		c.OK = true
	case rival != "":
		c.Passage = rival
		return c, 0
	case best == 0 && d.Month > 0 && p.containsBounded(strings.ToLower(d.Text)):
		c.OK, best = true, 1
	}
	return c, best
}

// datelineYear is the one year the passage's context (title, headings,
// dateline) states, or 0 when it states none or several.
func (p *prepared) datelineYear() int {
	year := 0
	for _, q := range append(p.ctxFacts.numbers, p.ctxFacts.years...) {
		if q.Kind != facts.Year {
			continue
		}
		if year != 0 && year != int(q.Value) {
			return 0
		}
		year = int(q.Value)
	}
	for _, d := range p.ctxFacts.dates {
		if d.Year == 0 {
			continue
		}
		if year != 0 && year != d.Year {
			return 0
		}
		year = d.Year
	}
	return year
}

func (p *prepared) hasYear(y int) bool {
	for _, v := range p.years {
		if v == y {
			return true
		}
	}
	return false
}

// checkCode requires a code written exactly, anywhere in the passage; a
// code sharing a long prefix or suffix with it is what the passage says
// instead (FOOTNOTE_HOME for FOOTNOTE_DATA).
//
// A code found only outside window w, where the claim's clause is stated,
// does not count when the window writes another value in its place
// ("accepts --json for" against "accepts --yaml for").
func (p *prepared) checkCode(code phrase, claim textFacts, w window) (Check, float64) {
	c := Check{Kind: CheckCode, Claim: code.text}
	lower := strings.ToLower(code.text)
	inWindow := false
	for u := w.from; u < w.to; u++ {
		inWindow = inWindow || containsBounded(p.lower[u], lower)
	}
	if !inWindow {
		if rival := p.slotRival(code, w); rival != "" {
			c.Passage = rival
			return c, 0
		}
	}
	if inWindow || p.containsBounded(lower) {
		c.OK = true
		return c, 1
	}
	var codes []string
	for u := range p.units {
		for _, pc := range p.facts[u].codes {
			codes = append(codes, pc.text)
		}
	}
	c.Passage = closestCode(codes, code.text)
	return c, 0
}

// closestCode is the span code sharing the longest prefix or suffix with
// the claim's code (FOOTNOTE_HOME for FOOTNOTE_DATA), if one shares three
// characters or more.
func closestCode(codes []string, want string) string {
	best, bestN := "", 2
	lw := strings.ToLower(want)
	for _, c := range codes {
		lc := strings.ToLower(c)
		if n := max(sharedPrefix(lc, lw), sharedPrefix(reverse(lc), reverse(lw))); n > bestN {
			best, bestN = c, n
		}
	}
	return best
}

func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

func (p *prepared) containsBounded(needle string) bool {
	for _, l := range p.lower {
		if containsBounded(l, needle) {
			return true
		}
	}
	return containsBounded(p.ctxLower, needle)
}

func (p *prepared) containsNumber(lit string) bool {
	for _, l := range p.lower {
		if containsNumber(l, lit) {
			return true
		}
	}
	return false
}

func isIdentRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// containsBounded reports whether needle occurs in hay not glued to
// letters, digits or underscores on either side.
func containsBounded(hay, needle string) bool {
	if needle == "" {
		return true
	}
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		after, _ := utf8.DecodeRuneInString(hay[i+len(needle):])
		if (i == 0 || !isIdentRune(before)) && (i+len(needle) == len(hay) || !isIdentRune(after) || isHangul(after)) {
			return true
		}
		from = i + 1
	}
}

// containsNumber reports lit as a whole number in hay: not part of a longer
// number, a decimal, or a word.
func containsNumber(hay, lit string) bool {
	for from := 0; ; {
		i := strings.Index(hay[from:], lit)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(lit)
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		after, _ := utf8.DecodeRuneInString(hay[j:])
		okBefore := i == 0 || !(isIdentRune(before) && !isHangul(before) || before == ',' || before == '.' && i >= 2 && isDigitByte(hay[i-2]))
		okAfter := j == len(hay) || !(isIdentRune(after) && !isHangul(after) || (after == '.' || after == ',') && j+1 < len(hay) && isDigitByte(hay[j+1]))
		if okBefore && okAfter {
			return true
		}
		from = i + 1
	}
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// overlapCount is how many terms of a match a term of b.
func overlapCount(a, b []term) int {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if termMatches(x, y) {
				n++
				break
			}
		}
	}
	return n
}

func overlaps(a, b []term) bool {
	for _, x := range a {
		for _, y := range b {
			if termMatches(x, y) {
				return true
			}
		}
	}
	return false
}

// coversAll reports whether every term of need matches one of have.
func coversAll(have, need []term) bool {
	for _, n := range need {
		found := false
		for _, h := range have {
			if termMatches(n, h) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
