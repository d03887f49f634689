package verify

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Facts are the parts of a sentence a supporting passage must repeat
// exactly: numbers (with their units), dates, codes and identifiers, named
// entities and negations. Words can be paraphrased; these cannot.

// rawToken is a whitespace-separated token with surrounding punctuation
// trimmed.
type rawToken struct {
	text    string
	start   int  // bytes in the analysed text
	inCode  bool // inside an inline code span
	initial bool // first token of a sentence or clause
}

const (
	leadTrim  = "\"'([{<“‘*_«「"
	trailTrim = "\"')]}>”’.,;:!?*_»」"
)

// rawTokens splits s on whitespace, trimming punctuation around each token.
// Backticks are removed and mark the tokens inside them as code.
func rawTokens(s string) []rawToken {
	var out []rawToken
	inCode, initial := false, true
	i := 0
	for i < len(s) {
		r, sz := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += sz
			continue
		}
		j := i
		for j < len(s) {
			r, sz := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += sz
		}
		tok := s[i:j]
		codeHere := inCode || strings.HasPrefix(tok, "`")
		if n := strings.Count(tok, "`"); n%2 == 1 {
			inCode = !inCode
		}
		tok = strings.ReplaceAll(tok, "`", "")
		lead := len(tok) - len(strings.TrimLeft(tok, leadTrim))
		body := strings.TrimRight(tok[lead:], trailTrim)
		if body != "" {
			out = append(out, rawToken{text: body, start: i + lead, inCode: codeHere, initial: initial})
		}
		last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(tok, "\"')]}>”’*_»」"))
		initial = last == '.' || last == ':' || last == ';' || last == '!' || last == '?' || last == '。'
		i = j
	}
	return out
}

// quantity is a number with an optional unit.
type quantity struct {
	value      float64
	unit       string // normalised: "mb", "token", "%", "개", … or ""
	text       string // as written, for reasons
	start, end int    // bytes in the sentence, unit included
	anchors    []term // content words next to it in the sentence
}

func (q quantity) String() string { return q.text }

var (
	numberRe  = regexp.MustCompile(`^[+-]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?`)
	isoDateRe = regexp.MustCompile(`^\d{4}-\d{1,2}-\d{1,2}$|^\d{1,2}/\d{1,2}/\d{2,4}$`)
)

// units maps unit spellings to one name.
var unitNames = func() map[string]string {
	m := map[string]string{}
	for canon, spellings := range map[string]string{
		"b": "b byte bytes", "kb": "kb kib kilobyte kilobytes", "mb": "mb mib megabyte megabytes",
		"gb": "gb gib gigabyte gigabytes", "tb": "tb tib terabyte terabytes",
		"ms": "ms millisecond milliseconds", "s": "s sec secs second seconds", "min": "min mins minute minutes",
		"h": "h hr hrs hour hours", "day": "day days", "week": "week weeks", "month": "month months",
		"year": "year years", "token": "token tokens", "%": "% percent per-cent", "page": "page pages",
		"x": "x times", "core": "core cores", "file": "file files", "passage": "passage passages",
		"바이트": "바이트", "메가바이트": "메가바이트 mb", "기가바이트": "기가바이트", "초": "초", "분": "분",
		"시간": "시간", "일": "일", "주": "주", "개월": "개월", "월": "월", "년": "년", "개": "개", "번": "번",
		"토큰": "토큰", "퍼센트": "퍼센트", "배": "배", "쪽": "쪽", "페이지": "페이지", "명": "명", "단계": "단계",
	} {
		for _, s := range strings.Fields(spellings) {
			m[s] = canon
		}
	}
	return m
}()

// koreanUnits are unit names that may be followed by a particle (20MB의,
// 6개의), longest first so 메가바이트 wins over 바이트.
var koreanUnits = []string{"메가바이트", "기가바이트", "페이지", "퍼센트", "바이트", "개월", "시간", "토큰", "단계",
	"초", "분", "일", "주", "월", "년", "개", "번", "배", "쪽", "명"}

// numberWords are spelled-out numbers a claim may use for a passage's
// digits. "one" is left out: it is mostly a pronoun ("choose one").
var numberWords = map[string]float64{
	"zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "hundred": 100, "thousand": 1000, "dozen": 12,
	"half": 0.5, "third": 1.0 / 3, "thirds": 1.0 / 3, "quarter": 0.25, "절반": 0.5,
}

var monthNames = func() map[string]string {
	m := map[string]string{}
	for _, mo := range []string{"january", "february", "march", "april", "may", "june", "july", "august",
		"september", "october", "november", "december"} {
		m[mo] = mo
		m[mo[:3]] = mo
	}
	m["sept"] = "september"
	delete(m, "may") // "may" is mostly a verb; "May 5" is caught by its day number
	delete(m, "mar")
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
		m[d] = d
	}
	return m
}()

// facts are the exact-match parts of a text.
type facts struct {
	numbers  []quantity
	dates    []string // month and weekday names, ISO dates
	codes    []string // as written
	entities []string // as written
	initial  string   // a capitalised first word: an entity if the passage capitalises it mid-sentence
	negation []negScope
	polar    map[string]bool // comparison words (opposites.go)
}

// multipliers scale the number before them: "two hundred", "3 million".
var multipliers = map[string]float64{"hundred": 100, "thousand": 1000, "million": 1e6, "billion": 1e9}

// extractFacts finds the exact-match parts of s.
func extractFacts(s string) facts {
	var f facts
	toks := rawTokens(s)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		body := t.text
		q, ok := parseNumber(body)
		if !ok && !t.inCode {
			var v float64
			v, ok = numberWords[koreanStem(strings.ToLower(stripHangulTail(body)))]
			q = quantity{value: v, text: body}
		}
		if ok {
			q.start, q.end = t.start, t.start+len(body)
			if i+1 < len(toks) && q.unit == "" {
				if m, isMul := multipliers[strings.ToLower(toks[i+1].text)]; isMul {
					i++
					q.value *= m
					q.text += " " + toks[i].text
					q.end = toks[i].start + len(toks[i].text)
				}
			}
			if i+1 < len(toks) && q.unit == "" {
				if u, isUnit := unitNames[strings.ToLower(toks[i+1].text)]; isUnit {
					i++
					q.unit, q.text = u, q.text+" "+toks[i].text
					q.end = toks[i].start + len(toks[i].text)
				}
			}
			f.numbers = append(f.numbers, q)
			continue
		}
		if isoDateRe.MatchString(body) {
			f.dates = append(f.dates, body)
			continue
		}
		body = stripHangulTail(body)
		lower := strings.ToLower(body)
		if mo, ok := monthNames[strings.TrimSuffix(lower, ".")]; ok && !t.inCode {
			f.dates = append(f.dates, mo)
			continue
		}
		switch {
		case t.inCode && utf8.RuneCountInString(body) >= 2 && !stopWords[lower]:
			f.codes = append(f.codes, body)
		case isCode(body):
			f.codes = append(f.codes, body)
		case strings.Contains(body, "-") && !t.initial:
			// OpenAI-compatible: the name is the part that looks like one.
			for _, part := range strings.Split(body, "-") {
				if isEntity(part, false) {
					f.entities = append(f.entities, part)
				}
			}
		case isEntity(body, t.initial):
			f.entities = append(f.entities, body)
		case t.initial && i == 0 && isCapitalised(body) && !stopWords[lower] && !framingWords[matchKey(lower)]:
			f.initial = body
		}
	}
	f.negation = negationScopes(s)
	f.polar = polarWords(s)
	if len(f.numbers) > 0 {
		anchorNumbers(f.numbers, toks, analyze(s))
	}
	return f
}

// anchorWords is how many content words on each side of a number tie it to
// what it counts.
const anchorWords = 2

// anchorNumbers records, for each number, the content words nearest to it
// in the sentence (numbers and their own unit left out): "send at most 100
// requests per minute" anchors 100 to send, requests and minute, so a
// passage's "100 orders per page" in another sentence does not back it.
//
// Parts of a date (a day next to a month name, a year) need no anchor: the
// date is what they are about.
func anchorNumbers(qs []quantity, toks []rawToken, ts []term) {
	for k := range qs {
		q := &qs[k]
		if isDatePart(*q, toks) {
			continue
		}
		var left []term
		for _, t := range ts {
			if isNumericKey(t.key) {
				continue
			}
			switch {
			case t.pos < q.start:
				left = append(left, t)
			case t.pos >= q.end && len(q.anchors) < anchorWords:
				q.anchors = append(q.anchors, t)
			}
		}
		if len(left) > anchorWords {
			left = left[len(left)-anchorWords:]
		}
		q.anchors = append(q.anchors, left...)
	}
}

// isDatePart reports a year (1000–2999, no unit) or a number written next
// to a month name ("2 May", "May 2").
func isDatePart(q quantity, toks []rawToken) bool {
	if q.unit == "" && q.value >= 1000 && q.value < 3000 && q.value == float64(int(q.value)) && !strings.Contains(q.text, ",") {
		return true
	}
	for i, t := range toks {
		if t.start < q.start || t.start >= q.end {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(toks) {
				lw := strings.ToLower(toks[j].text)
				if _, ok := monthNames[lw]; ok || lw == "may" {
					return true
				}
			}
		}
	}
	return false
}

func isNumericKey(k string) bool {
	for _, r := range k {
		if r < '0' || r > '9' {
			return false
		}
	}
	return k != ""
}

// parseNumber reads a number with an attached unit ("20MB", "1800-token",
// "6개의"). ok is false for tokens that are codes ("llama3.2:3b", "v2").
func parseNumber(tok string) (q quantity, ok bool) {
	m := numberRe.FindStringSubmatch(tok)
	if m == nil {
		return q, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "")+m[2], 64)
	if err != nil {
		return q, false
	}
	rest := tok[len(m[0]):]
	q = quantity{value: v, text: tok}
	switch {
	case rest == "":
		return q, true
	case isHangulString(rest):
		for _, u := range koreanUnits {
			if strings.HasPrefix(rest, u) {
				q.unit = unitNames[u]
				q.text = tok[:len(m[0])+len(u)]
				return q, true
			}
		}
		q.text = m[0] // a particle: 0.6보다
		return q, true
	}
	if u, found := unitNames[strings.ToLower(strings.TrimPrefix(rest, "-"))]; found {
		q.unit = u
		return q, true
	}
	return quantity{}, false
}

func isHangulString(s string) bool {
	for _, r := range s {
		if !isHangul(r) {
			return false
		}
	}
	return s != ""
}

// stripHangulTail removes a Korean particle written onto a Latin word or
// code (Footnote는, FOOTNOTE_HOME을).
func stripHangulTail(s string) string {
	first, _ := utf8.DecodeRuneInString(s)
	if isHangul(first) {
		return s
	}
	for i, r := range s {
		if isHangul(r) {
			return s[:i]
		}
	}
	return s
}

// isCode reports identifiers, commands, paths, versions and file names:
// letters mixed with digits, inner _ . / : + = @ # $ ~ \, a leading - or /
// or ~, or a hyphenated token with a one-letter or numeric part (Ctrl-C).
func isCode(s string) bool {
	if utf8.RuneCountInString(s) < 2 {
		return false
	}
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$") {
		return true
	}
	letter, digit := false, false
	for i, r := range s {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r):
			digit = true
		case strings.ContainsRune("_./:+=@#$~\\", r) && i > 0 && i < len(s)-1:
			return true
		}
	}
	if letter && digit {
		return true
	}
	if strings.Contains(s, "-") {
		for _, part := range strings.Split(s, "-") {
			if utf8.RuneCountInString(part) == 1 {
				return true
			}
		}
	}
	return false
}

func isCapitalised(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// isEntity reports a name: a word with an inner capital (macOS, WebKitGTK),
// an acronym (PDF, EPUB) that is not a unit, or a capitalised word that
// does not start a sentence.
func isEntity(s string, initial bool) bool {
	letters, uppers, inner := 0, 0, false
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
		if unicode.IsUpper(r) {
			uppers++
			if i > 0 {
				inner = true
			}
		}
	}
	lower := strings.ToLower(s)
	switch {
	case letters < 2 || stopWords[lower]:
		return false
	case uppers == letters:
		_, unit := unitNames[lower]
		return !unit
	case inner:
		return true
	}
	return isCapitalised(s) && !initial
}
