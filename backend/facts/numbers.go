package facts

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/lexical"
)

// Kind says what a number counts.
type Kind int

const (
	Cardinal Kind = iota // 200, two hundred, 2½, 13%
	Ordinal              // 3rd, third
	Year                 // 1982: a four-digit number from 1000 to 2999 without a unit
	Decade               // 1980s, '80s
)

// Quantity is a number as a text states it.
type Quantity struct {
	Value float64
	Unit  string // canonical (Unit), or ""
	Kind  Kind
	Text  string // as written, unit included
	Start int    // byte offsets in the text, unit included
	End   int
}

func (q Quantity) String() string { return q.Text }

// Same reports whether two quantities state the same amount: equal values
// (in a common base unit where units convert exactly: 90 minutes = 1.5
// hours) and units that agree, a missing unit agreeing with any.
func (q Quantity) Same(o Quantity) bool {
	a, b := q.Value, o.Value
	if q.Unit != "" && o.Unit != "" && q.Unit != o.Unit {
		sa, oka := unitScale[q.Unit]
		sb, okb := unitScale[o.Unit]
		if !oka || !okb || sa.base != sb.base {
			return false
		}
		a, b = a*sa.factor, b*sb.factor
	}
	if (q.Kind == Decade) != (o.Kind == Decade) {
		return false
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a))
}

// SameUnit reports whether two quantities measure in compatible units (a
// missing unit is compatible with any).
func (q Quantity) SameUnit(o Quantity) bool {
	if q.Unit == "" || o.Unit == "" || q.Unit == o.Unit {
		return true
	}
	sa, oka := unitScale[q.Unit]
	sb, okb := unitScale[o.Unit]
	return oka && okb && sa.base == sb.base
}

var (
	// digitsRe reads a number at the start of a token: thousands separators,
	// decimals, a vulgar fraction after the digits (2½).
	digitsRe   = regexp.MustCompile(`^[+-]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([½⅓⅔¼¾⅕⅛])?`)
	ordinalRe  = regexp.MustCompile(`^(\d+)(?:st|nd|rd|th)(?:-[a-z]+)*$`)
	decadeRe   = regexp.MustCompile(`^'?(\d{2}|\d{4})0?s$`)
	fractionRe = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})$`)
	// koreanFractionRe is "3분의1" once Quantities joins "3분의 1".
	koreanFractionRe = regexp.MustCompile(`^(\d+)분의(\d+)`)
	// pairRe is two numbers joined by a dash, "to" or "of": a score, a
	// range, a span of years or a ratio (24–10, 5-to-4, 1998–1999,
	// 3,800-3,700, 1-of-14).
	pairRe = regexp.MustCompile(`^([+-]?[\d,.]*\d[½⅓⅔¼¾]?)(?:-|–|—|-to-|-of-|−)([\d,.]*\d[½⅓⅔¼¾]?)$`)
)

var vulgar = map[rune]float64{'½': 0.5, '⅓': 1.0 / 3, '⅔': 2.0 / 3, '¼': 0.25, '¾': 0.75, '⅕': 0.2, '⅛': 0.125}

// numberWords are spelled-out cardinals. "one" is read only before a
// unit, a multiplier or a fraction ("one year", "one hundred", "one
// third"): alone it is mostly a pronoun.
var numberWords = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12, "half": 0.5,
	"하나": 1, "둘": 2, "셋": 3, "넷": 4, "절반": 0.5,
}

// timesWords count repetitions: "twice a week" = "two times a week".
var timesWords = map[string]float64{"once": 1, "twice": 2, "thrice": 3}

// multipliers scale the number before them: "two hundred", "3 million".
var multipliers = map[string]float64{"hundred": 100, "thousand": 1000, "million": 1e6, "billion": 1e9, "trillion": 1e12}

// fractionWords are denominators: "two thirds", "a quarter".
var fractionWords = map[string]float64{"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
	"fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10}

// ordinalWords are spelled-out ordinals.
var ordinalWords = func() map[string]float64 {
	m := map[string]float64{}
	for i, w := range strings.Fields(`first second third fourth fifth sixth seventh eighth ninth tenth eleventh
		twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth`) {
		m[w] = float64(i + 1)
	}
	for i, w := range strings.Fields(`thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth`) {
		m[w] = float64(30 + 10*i)
	}
	m["hundredth"] = 100
	return m
}()

// NumberWord returns the value of a spelled-out cardinal ("twelve", "dozen").
func NumberWord(lower string) (float64, bool) {
	v, ok := numberWords[lower]
	return v, ok
}

// OrdinalWord returns the position a spelled-out ordinal names ("third" → 3).
func OrdinalWord(lower string) (int, bool) {
	v, ok := ordinalWords[lower]
	return int(v), ok
}

// IsMultiplier reports "hundred", "thousand", "million" and the like.
func IsMultiplier(lower string) bool { return multipliers[lower] > 0 }

// Multiplier returns the factor a multiplier word stands for ("million" →
// 1e6).
func Multiplier(lower string) (float64, bool) {
	v := multipliers[lower]
	return v, v > 0
}

// IsNumberWord reports a word that spells a number or part of one
// (cardinals, multipliers, ordinals, denominators).
func IsNumberWord(lower string) bool {
	_, c := numberWords[lower]
	_, o := ordinalWords[lower]
	_, f := fractionWords[lower]
	return c || o || f || multipliers[lower] > 0
}

// ParseNumber reads one token as a number with an optional unit written
// onto it ("20MB", "1800-token", "14-year-old", "13%", "3rd", "2½", "6개의").
// ok is false for tokens that are codes ("llama3.2:3b", "v2", "E-4012").
func ParseNumber(tok string) (q Quantity, ok bool) {
	if !hasDigitOrFraction(tok) {
		return Quantity{}, false // most tokens: a word
	}
	q.Text = tok
	body := tok
	if r := []rune(body); len(r) > 1 && strings.ContainsRune("$€£¥", r[0]) {
		body = string(r[1:])
		q.Unit = map[rune]string{'$': "$", '€': "€", '£': "£", '¥': "¥"}[r[0]]
	}
	lower := strings.ToLower(body)
	if n, ok := strings.CutPrefix(lower, "#"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		v, _ := strconv.ParseFloat(n, 64)
		return Quantity{Value: v, Kind: Ordinal, Text: tok}, true // "#1 pick": the first
	}
	if m := ordinalRe.FindStringSubmatch(lower); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		return Quantity{Value: v, Kind: Ordinal, Text: tok}, true
	}
	if m := decadeRe.FindStringSubmatch(lower); m != nil && (len(m[1]) == 4 && strings.HasSuffix(m[1], "0") || len(m[1]) == 2) {
		v, _ := strconv.ParseFloat(m[1], 64)
		return Quantity{Value: v, Kind: Decade, Text: tok}, true
	}
	if m := fractionRe.FindStringSubmatch(lower); m != nil {
		n, _ := strconv.ParseFloat(m[1], 64)
		d, _ := strconv.ParseFloat(m[2], 64)
		if d > 0 && n < d {
			return Quantity{Value: n / d, Text: tok}, true
		}
	}
	if m := koreanFractionRe.FindStringSubmatch(body); m != nil {
		d, _ := strconv.ParseFloat(m[1], 64)
		n, _ := strconv.ParseFloat(m[2], 64)
		if d > 0 {
			return Quantity{Value: n / d, Text: tok}, true // 3분의 1 = 1/3
		}
	}
	if r := []rune(body); len(r) == 1 && vulgar[r[0]] > 0 {
		return Quantity{Value: vulgar[r[0]], Text: tok}, true
	}
	m := digitsRe.FindStringSubmatch(body)
	if m == nil {
		return Quantity{}, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "")+m[2], 64)
	if err != nil {
		return Quantity{}, false
	}
	if m[3] != "" {
		v += vulgar[[]rune(m[3])[0]]
	}
	q.Value = v
	rest := body[len(m[0]):]
	switch {
	case rest == "":
	case IsHangulString(rest):
		for _, u := range koreanUnits {
			if strings.HasPrefix(rest, u) {
				q.Unit = unitCanon[u]
				q.Text = tok[:len(tok)-len(rest)+len(u)]
				return q, true
			}
		}
		q.Text = tok[:len(tok)-len(rest)] // a particle: 0.6보다
	default:
		if tail := StripHangulTail(rest); tail != rest {
			q.Text = tok[:len(tok)-len(rest)+len(tail)] // 200MB의
			rest = tail
		}
		// A unit written onto the number, or a compound adjective
		// ("14-year-old", "30-second", "2-point"): the number counts the
		// word after the hyphen, which is its unit when it names one.
		word := strings.ToLower(strings.TrimPrefix(rest, "-"))
		if u, found := unitCanon[word]; found && (word != "a" && word != "t" || rest != word) {
			q.Unit = u
			break
		}
		if !strings.HasPrefix(rest, "-") {
			return Quantity{}, false // 3b, 2x2, v2-style codes
		}
		first, _, _ := strings.Cut(word, "-")
		if u, found := unitCanon[first]; found {
			q.Unit = u // 14-year-old
		} else if !isLetters(first) {
			return Quantity{}, false // 3-2-1, 2-3b
		}
	}
	if q.Unit == "" && q.Kind == Cardinal && v >= 1000 && v < 3000 && v == math.Trunc(v) && !strings.Contains(m[1], ",") && m[2] == "" {
		q.Kind = Year
	}
	return q, true
}

// hasDigitOrFraction reports a token that may hold a number: a digit or a
// vulgar fraction.
func hasDigitOrFraction(s string) bool {
	for _, r := range s {
		if r >= '0' && r <= '9' || vulgar[r] > 0 {
			return true
		}
	}
	return false
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

// splitPair splits a token holding two numbers joined by a dash or "to"
// (a score, a range, years) into the two; ok is false for anything else,
// ISO dates and phone-like runs of three or more parts included.
func splitPair(tok string) (a, b string, ok bool) {
	if !hasDigitOrFraction(tok) {
		return "", "", false
	}
	m := pairRe.FindStringSubmatch(tok)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// shortYear reads the two-digit end of a span of years as the year it
// names: "2018–19" is 2018 to 2019, "1999–00" 1999 to 2000.
func shortYear(first Quantity, end string) (Quantity, bool) {
	if first.Kind != Year || len(end) != 2 || end[0] < '0' || end[0] > '9' || end[1] < '0' || end[1] > '9' {
		return Quantity{}, false
	}
	year := int(first.Value)/100*100 + int(end[0]-'0')*10 + int(end[1]-'0')
	if year <= int(first.Value) {
		year += 100
	}
	return ParseNumber(strconv.Itoa(year))
}

// Quantities finds the numbers a text states, in order: digits, spelled-out
// numbers, fractions, ordinals, scores and ranges (each side a quantity),
// with a unit after them or written onto them. Dates' days and years are
// among them (a year is of Kind Year); Dates reads the dates themselves.
func Quantities(s string) []Quantity { return quantitiesIn(s, Tokens(s)) }

func quantitiesIn(s string, toks []Token) []Quantity {
	var out []Quantity
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.InCode {
			continue
		}
		if a, b, ok := splitPair(t.Text); ok {
			var first Quantity
			for k, side := range []struct {
				text string
				at   int
			}{{a, t.Start}, {b, t.Start + len(t.Text) - len(b)}} {
				q, ok := ParseNumber(side.text)
				if !ok {
					continue
				}
				if k == 0 {
					first = q
				} else if full, ok := shortYear(first, side.text); ok {
					q = full
				}
				q.Start, q.End = side.at, side.at+len(side.text)
				q.Text = side.text
				out = append(out, q)
			}
			continue
		}
		text := t.Text
		if strings.HasSuffix(text, "분의") && i+1 < len(toks) && isDigitStart(toks[i+1].Text) {
			if q, ok := ParseNumber(text + toks[i+1].Text); ok {
				q.Start, q.End = t.Start, toks[i+1].End()
				q.Text = s[q.Start:q.End]
				out = append(out, q)
				i++
				continue
			}
		}
		q, ok := ParseNumber(text)
		used := 0
		if !ok {
			q, used, ok = spelledNumber(toks, i)
			if !ok {
				continue
			}
			i += used
		}
		q.Start, q.End = t.Start, t.Start+len(q.Text)
		if used > 0 {
			q.End = toks[i].End()
			q.Text = s[q.Start:q.End]
		}
		// "3 million", then "3 million people"; "200 MB"; "14 years old".
		if q.Kind == Cardinal && i+1 < len(toks) && q.Unit != "%" {
			if mul := multipliers[strings.ToLower(toks[i+1].Text)]; mul > 0 && used == 0 {
				i++
				q.Value *= mul
				q.End = toks[i].End()
				q.Text = s[q.Start:q.End]
			}
		}
		if q.Unit == "" && q.Kind != Ordinal && i+1 < len(toks) {
			next := toks[i+1].Text
			lower := strings.ToLower(next)
			if u, isUnit := unitCanon[lower]; isUnit && !toks[i+1].Initial && unitAfterNumber(lower, next) {
				i++
				q.Unit = u
				q.End = toks[i].End()
				q.Text = s[q.Start:q.End]
			}
		}
		if q.Unit != "" && q.Kind == Year {
			q.Kind = Cardinal
		}
		out = append(out, q)
	}
	return out
}

// unitAfterNumber reports whether a unit spelling written after a number
// names the unit: single letters only as symbols ("5 m", "5 A"), never
// "a" or "in" spelled as words.
func unitAfterNumber(lower, written string) bool {
	switch lower {
	case "a":
		return written == "A"
	case "in", "t", "x":
		return false
	}
	return true
}

// spelledNumber reads a spelled-out number starting at toks[i]: "twenty
// one", "twenty-one", "two hundred", "two thirds", "a dozen" is left to its
// word; it returns the quantity and how many tokens after i it used.
func spelledNumber(toks []Token, i int) (Quantity, int, bool) {
	word := func(k int) string {
		if k >= len(toks) || toks[k].InCode {
			return ""
		}
		w := strings.ToLower(StripHangulTail(toks[k].Text))
		if IsHangulString(w) {
			w = lexical.KoreanStem(w) // 절반을 → 절반
		}
		return w
	}
	w := word(i)
	if n, ok := timesWords[w]; ok {
		return Quantity{Value: n, Unit: "x", Text: toks[i].Text}, 0, true // twice = 2 times
	}
	if d := fractionWords[w]; d > 0 && i > 0 && strings.Contains(" a an one ", " "+word(i-1)+" ") && !ordinalBeforeNoun(toks, i, w) {
		return Quantity{Value: 1 / d, Text: toks[i].Text}, 0, true // a third
	}
	if v, ok := ordinalWords[w]; ok {
		if w == "second" && (i > 0 && isDigitStart(toks[i-1].Text)) {
			return Quantity{}, 0, false // "30 second" is a unit
		}
		return Quantity{Value: v, Kind: Ordinal, Text: toks[i].Text}, 0, true
	}
	v, ok := compoundWord(w)
	if !ok {
		return Quantity{}, 0, false
	}
	used := 0
	for {
		next := word(i + used + 1)
		if n, ok := compoundWord(next); ok && v >= 20 && n < 10 && math.Mod(v, 10) == 0 && v < 100 {
			v += n // twenty one
			used++
			continue
		}
		if mul := multipliers[next]; mul > 0 {
			v *= mul
			used++
			continue
		}
		if d := fractionWords[next]; d > 0 && v >= 1 && v < d && w != "half" {
			v /= d // two thirds
			used++
		}
		break
	}
	if w == "one" && used == 0 {
		// "one" alone is a pronoun or an article ("one of them", "one page
		// at a time"); only "one hundred", "one third" are numbers.
		return Quantity{}, 0, false
	}
	return Quantity{Value: v, Text: toks[i].Text}, used, true
}

// ordinalBeforeNoun reports "a fifth season", "a third party": after
// "a", a word that is both a fraction and an ordinal is the ordinal when
// the next word of its phrase follows it (one space, no punctuation
// between) and is not "of" ("a fifth of the votes" is a fraction).
func ordinalBeforeNoun(toks []Token, i int, lower string) bool {
	if _, ok := ordinalWords[lower]; !ok || i+1 >= len(toks) || toks[i+1].InCode {
		return false
	}
	next := toks[i+1]
	return next.Start == toks[i].End()+1 && !strings.EqualFold(next.Text, "of")
}

// compoundWord reads "twenty-one" as well as the plain number words.
func compoundWord(w string) (float64, bool) {
	if v, ok := numberWords[w]; ok {
		return v, true
	}
	if a, b, ok := strings.Cut(w, "-"); ok {
		va, oka := numberWords[a]
		vb, okb := numberWords[b]
		if oka && okb && va >= 20 && vb < 10 {
			return va + vb, true
		}
	}
	return 0, false
}

func isDigitStart(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }
