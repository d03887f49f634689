package verify

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
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

// Check is one hard constraint of a claim and whether the span meets it.
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

// spanView is what the checks look at in a candidate span.
type spanView struct {
	lower    []string            // lowercase text of each sentence
	words    []map[string]bool   // lowercase words of each sentence, also without a Korean particle
	keys     []map[string]bool   // match keys of those words (plurals, inflections)
	hangul   []string            // Korean stems of the span
	units    []spanUnit          // per sentence, for numbers and the words around them
	facts    facts               // the span's own facts, for "the passage says …"
	midCaps  map[string]bool     // words the passage capitalises mid-sentence
	ctxWords map[string]bool     // lowercase words of the whole passage and its title/section
	roles    func() []roleClause // the span's clauses, for role binding; nil where it cannot matter
	// common reports names found in so much of the library that they
	// cannot be swapped for another (the product's own name in its manual).
	common func(word string) bool
}

func (sv *spanView) hasWord(w string) bool {
	for _, ws := range sv.words {
		if ws[w] {
			return true
		}
	}
	return false
}

func (sv *spanView) hasKey(k string) bool {
	for _, ks := range sv.keys {
		if ks[k] {
			return true
		}
	}
	return false
}

func (sv *spanView) containsBounded(needle string) bool {
	for _, l := range sv.lower {
		if containsBounded(l, needle) {
			return true
		}
	}
	return false
}

func (sv *spanView) containsNumber(lit string) bool {
	for _, l := range sv.lower {
		if containsNumber(l, lit) {
			return true
		}
	}
	return false
}

type spanUnit struct {
	numbers []quantity
	terms   []term
}

// checkFacts tests every exact-match fact of the claim against the span.
func checkFacts(cf facts, claimTerms []term, sv *spanView) []Check {
	var out []Check
	for _, q := range cf.numbers {
		c := Check{Kind: CheckNumber, Claim: q.text}
		switch found, anchored := sv.hasQuantity(q); {
		case anchored:
			c.OK = true
		case found:
			c.Detail = fmt.Sprintf("the passage gives %s for something else", q.text)
		default:
			c.Passage = sv.counterpartQuantity(q)
		}
		out = append(out, c)
	}
	for _, d := range cf.dates {
		c := Check{Kind: CheckDate, Claim: d, OK: sv.hasDate(d)}
		if !c.OK && len(sv.facts.dates) > 0 {
			c.Passage = sv.facts.dates[0]
		}
		out = append(out, c)
	}
	for _, code := range cf.codes {
		c := Check{Kind: CheckCode, Claim: code, OK: sv.containsBounded(strings.ToLower(code))}
		if !c.OK {
			c.Passage = closestCode(sv.facts.codes, code)
		}
		out = append(out, c)
	}
	entities := cf.entities
	if cf.initial != "" && sv.midCaps[strings.ToLower(cf.initial)] {
		entities = append([]string{cf.initial}, entities...)
	}
	other := otherEntity(sv.facts.entities, entities)
	var checked []string
	for _, e := range entities {
		if sv.common != nil && sv.common(strings.ToLower(e)) {
			continue
		}
		checked = append(checked, e)
		c := Check{Kind: CheckEntity, Claim: e, OK: sv.hasEntity(e, other == "")}
		if !c.OK {
			c.Passage = other
		}
		out = append(out, c)
	}
	out = append(out, checkNegation(cf.negation, claimTerms, sv.facts.negation)...)
	out = append(out, checkOpposites(cf.polar, sv)...)
	return append(out, checkBinding(cf, checked, claimTerms, sv.roles, sv.common)...)
}

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

func unitsAgree(a, b string) bool { return a == "" || b == "" || a == b }

// hasQuantity looks for the claim's number (same value, compatible unit)
// in the span. anchored means a sentence holding it also holds one of the
// words next to the number in the claim, so it counts the same thing.
func (sv *spanView) hasQuantity(q quantity) (found, anchored bool) {
	for _, u := range sv.units {
		for _, s := range u.numbers {
			if math.Abs(s.value-q.value) > 1e-9 || !unitsAgree(q.unit, s.unit) {
				continue
			}
			found = true
			if len(q.anchors) == 0 || overlaps(q.anchors, u.terms) {
				return true, true
			}
		}
	}
	if found {
		return true, false
	}
	// A long number inside a code or address (the port in 127.0.0.1:11434).
	if lit := strings.ReplaceAll(numberRe.FindString(q.text), ",", ""); q.unit == "" && len(lit) >= 4 && sv.containsNumber(lit) {
		return true, true
	}
	return false, false
}

// counterpartQuantity is the span's number the claim's number most likely
// replaced: one with the same unit, or the only number there is.
func (sv *spanView) counterpartQuantity(q quantity) string {
	for _, s := range sv.facts.numbers {
		if q.unit != "" && s.unit == q.unit {
			return s.text
		}
	}
	if len(sv.facts.numbers) == 1 {
		return sv.facts.numbers[0].text
	}
	return ""
}

func (sv *spanView) hasDate(d string) bool {
	for _, s := range sv.facts.dates {
		if s == d {
			return true
		}
	}
	return sv.containsBounded(strings.ToLower(d))
}

// hasEntity accepts a name in the span. A name found only elsewhere in the
// passage or in its title and section counts too when the span names
// nothing else (free): "It needs 200 MB" supports "Footnote needs 200 MB"
// in a passage about Footnote, but "a citation from a PDF names the page"
// does not support the same about EPUB because EPUB is in the next sentence.
func (sv *spanView) hasEntity(e string, free bool) bool {
	parts := splitWords(strings.ToLower(e))
	if len(parts) == 0 {
		return true
	}
	inSpan, inContext := true, true
	for _, p := range parts {
		sing := strings.TrimSuffix(p.text, "s") // IDs, PDFs
		inSpan = inSpan && (sv.hasWord(p.text) || sv.hasWord(sing) || sv.hasKey(matchKey(p.text)) || sv.hasHangulPrefix(p.text))
		inContext = inContext && sv.ctxWords[p.text]
	}
	return inSpan || inContext && free
}

func (sv *spanView) hasHangulPrefix(w string) bool {
	if !isHangulString(w) {
		return false
	}
	for _, h := range sv.hangul {
		if strings.HasPrefix(h, w) || strings.HasPrefix(w, h) && utf8.RuneCountInString(h) >= 2 {
			return true
		}
	}
	return false
}

// otherEntity is a name in the span the claim does not use, for "the
// passage says Windows, the claim says macOS".
func otherEntity(span, claim []string) string {
	used := map[string]bool{}
	for _, c := range claim {
		used[strings.ToLower(c)] = true
	}
	for _, s := range span {
		if !used[strings.ToLower(s)] {
			return s
		}
	}
	return ""
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
