package cache

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// keyKind says what a key of a question names. Every kind but kindWord is
// an anchor: it must appear, exactly, in the other question.
type keyKind int

const (
	kindWord        keyKind = iota // an ordinary content word; a typo of it still matches
	kindEntity                     // a name: a capitalised word inside a sentence
	kindNumber                     // 52, 4.2, three, #2 (second)
	kindIdentifier                 // A-100, E-04, max_workers, --verbose, PDF, settings.json
	kindUnit                       // kg, °C, minutes, GB
	kindTime                       // 2023-03-01, March, Monday, yesterday, last (month), before
	kindComparative                // faster, most, than, maximum
	kindScope                      // all, each, only, total, per
	kindModal                      // should, must
	kindQuestion                   // who, when, where, why, how, how many, how much
	kindDirection                  // who or what goes where: PDF to Word, A than B, 서울에서 부산까지
)

var kindNames = [...]string{"word", "name", "number", "identifier", "unit", "date or time", "comparative",
	"scope", "modal", "question word", "direction"}

func (k keyKind) String() string { return kindNames[k] }

type askKey struct {
	kind    keyKind
	display string // as written, for explanations
}

// askForm is a question reduced to what it asks: canonical keys for its
// content words and anchors, how often it negates, and its quoted phrases.
type askForm struct {
	keys      map[string]askKey
	negations int
	quoted    []string // quoted phrases, flattened
	flat      string   // the whole question flattened, to find quoted phrases in
}

func (f *askForm) add(key string, kind keyKind, display string) {
	if key == "" {
		return
	}
	if old, ok := f.keys[key]; ok && old.kind >= kind {
		return // a word written once as a name and once plainly stays a name
	}
	f.keys[key] = askKey{kind: kind, display: display}
}

// parsedAsks remembers the forms of cached questions: every lookup compares
// the new question with each cached one above the similarity threshold, and
// with a weak embedding model that is most of them, every time.
var parsedAsks = struct {
	sync.Mutex
	forms map[string]askForm
}{forms: map[string]askForm{}}

const parsedAsksMax = 4096

// parseAskCached is parseAsk through parsedAsks. Forms are never modified
// once built, so they are shared.
func parseAskCached(q string) askForm {
	parsedAsks.Lock()
	f, ok := parsedAsks.forms[q]
	parsedAsks.Unlock()
	if ok {
		return f
	}
	f = parseAsk(q)
	parsedAsks.Lock()
	if len(parsedAsks.forms) >= parsedAsksMax {
		parsedAsks.forms = map[string]askForm{}
	}
	parsedAsks.forms[q] = f
	parsedAsks.Unlock()
	return f
}

var apostrophes = strings.NewReplacer("’", "'", "‘", "'", "`", "'", "´", "'")

// parseAsk normalises a question: Unicode (NFKC), politeness frames,
// multi-word expressions, case, punctuation, inflection and synonyms.
func parseAsk(q string) askForm {
	s := norm.NFKC.String(q)
	f := askForm{keys: map[string]askKey{}, quoted: quotedPhrases(s), flat: flatten(s)}
	s = apostrophes.Replace(s)
	if shouted(s) {
		s = strings.ToLower(s) // capitals no longer mark names or acronyms
	}
	s = applyRewrites(s, frames)
	s = applyRewrites(s, koreanFrames)
	s = applyRewrites(s, phrases)
	p := parser{form: &f, pieces: piecesOf(splitWords(s))}
	p.run()
	return f
}

// shouted reports text written mostly in capitals (WHAT IS THE PORT?).
func shouted(s string) bool {
	upper, lower := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			lower++
		}
	}
	return upper > 3 && upper > lower
}

var quoteRe = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|«([^»]+)»|「([^」]+)」|『([^』]+)』|‘([^’]+)’|(?:^|\s)'([^']+)'(?:[\s?.!,;:]|$)`)

func quotedPhrases(s string) []string {
	if !strings.ContainsAny(s, "\"“«「『‘'") {
		return nil
	}
	var out []string
	for _, m := range quoteRe.FindAllStringSubmatch(s, -1) {
		for _, g := range m[1:] {
			if f := flatten(g); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// flatten lowercases s and turns every run of non-letters and non-digits
// into one space.
func flatten(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}), " ")
}

// rawWord is a whitespace- or punctuation-delimited word; initial marks the
// first word of a sentence, whose capital letter says nothing.
type rawWord struct {
	text    string
	initial bool
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_'
}

// splitWords cuts s into words. Connectors stay inside a word when word
// characters surround them (A-100, 4.2, settings.json, km/h, don't), a
// leading dash stays on a flag (--verbose), and °/% stay on a number.
func splitWords(s string) []rawWord {
	rs := []rune(s)
	var out []rawWord
	initial := true
	for i := 0; i < len(rs); {
		r := rs[i]
		start := i
		switch {
		case r == '-' && (i == 0 || unicode.IsSpace(rs[i-1])) && i+1 < len(rs) && (rs[i+1] == '-' || unicode.IsLetter(rs[i+1])):
			for i < len(rs) && rs[i] == '-' {
				i++
			}
		case r == '°' || r == '%' || isWordRune(r):
		default:
			if strings.ContainsRune(".!?:;", r) {
				initial = true
			}
			i++
			continue
		}
		i = wordEnd(rs, start, i)
		if i == start { // a lone connector
			i++
			continue
		}
		out = append(out, rawWord{text: string(rs[start:i]), initial: initial})
		initial = false
	}
	return out
}

// wordEnd returns where the word that starts at start ends, scanning on
// from i.
func wordEnd(rs []rune, start, i int) int {
	for ; i < len(rs); i++ {
		c := rs[i]
		inner := i > start && isWordRune(rs[i-1]) && i+1 < len(rs) && isWordRune(rs[i+1])
		switch {
		case isWordRune(c), c == '°', c == '%':
		case inner && strings.ContainsRune("-./:'+#", c):
		default:
			return i
		}
	}
	return i
}

// piece is a word or a part of one: English contractions are split
// (doesn't → does not) and a word mixing scripts is cut where the script
// changes (A-100이 → A-100 + 이, 오류52는 → 오류 + 52 + 는).
type piece struct {
	text    string
	hangul  bool
	initial bool
	first   bool // the first piece of its word (not glued to the one before)
}

func piecesOf(words []rawWord) []piece {
	var out []piece
	for _, w := range words {
		for k, part := range expandContraction(w.text) {
			for j, run := range scriptRuns(part) {
				out = append(out, piece{text: run, hangul: isHangulRun(run), initial: w.initial && k == 0 && j == 0, first: j == 0})
			}
		}
	}
	return out
}

func expandContraction(w string) []string {
	l := strings.ToLower(w)
	switch {
	case l == "can't" || l == "cannot":
		return []string{w[:3], "not"}
	case l == "won't":
		return []string{"will", "not"}
	case strings.HasSuffix(l, "n't"):
		return []string{w[:len(w)-3], "not"}
	case strings.HasSuffix(l, "'ll") && len(l) > 3:
		return []string{w[:len(w)-3], "will"}
	}
	for _, suf := range []string{"'s", "'d", "'re", "'ve", "'m"} {
		if strings.HasSuffix(l, suf) && len(l) > len(suf) {
			return []string{w[:len(w)-len(suf)]}
		}
	}
	return []string{w}
}

// scriptRuns cuts w where Hangul meets any other script, and where Hangul
// meets digits.
func scriptRuns(w string) []string {
	var out []string
	start, prev := 0, -1
	for i, r := range w {
		cls := 0
		if isHangul(r) {
			cls = 1
		}
		if prev >= 0 && cls != prev {
			out = append(out, w[start:i])
			start = i
		}
		prev = cls
	}
	return append(out, w[start:])
}

func isHangulRun(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isHangul(r)
}

// isCapitalised reports a word written with a capital and then lowercase
// letters (Linux, Berlin), the way names are written inside a sentence.
func isCapitalised(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && strings.IndexFunc(w[size:], unicode.IsLower) >= 0
}

var (
	numberRe     = regexp.MustCompile(`^\d+(?:[.,]\d+)*$`)
	thousandsRe  = regexp.MustCompile(`^\d{1,3}(?:,\d{3})+$`)
	ordinalRe    = regexp.MustCompile(`^(\d+)(?:st|nd|rd|th)$`)
	numberUnitRe = regexp.MustCompile(`^(\d+(?:\.\d+)?)([\p{L}°%/]+)$`)
	dateRe       = regexp.MustCompile(`^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$`)
)

func canonNumber(l string) string {
	if thousandsRe.MatchString(l) {
		return strings.ReplaceAll(l, ",", "")
	}
	return strings.ReplaceAll(l, ",", ".")
}

// isIdentifier reports codes and names written like code: letters mixed
// with digits (A-100, B12, Q3), snake_case, camelCase (getUserById,
// iPhone), file names (settings.json), flags (--verbose) and acronyms (PDF).
func isIdentifier(w string) bool {
	var letters, digits, upper int
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	switch {
	case letters > 0 && digits > 0, strings.Contains(w, "_"), strings.HasPrefix(w, "-"):
		return true
	case letters >= 2 && upper == letters:
		return true
	}
	rs := []rune(w)
	for i := 1; i < len(rs); i++ {
		if unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i]) {
			return true
		}
		if rs[i-1] == '.' && i >= 2 && unicode.IsLetter(rs[i-2]) && unicode.IsLetter(rs[i]) {
			return true
		}
	}
	return false
}

// identifierKey drops case and the separators people write either way
// (A-100 = A100, E-04 = E04, --verbose = verbose).
func identifierKey(l string) string { return identifierSeparators.Replace(l) }

var identifierSeparators = strings.NewReplacer("-", "", "_", "")
