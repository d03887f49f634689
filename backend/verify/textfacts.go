package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/facts"
)

// textFacts are the parts of a text a supporting passage must state as
// written: numbers with their units, dates, codes and identifiers, names,
// negations and comparison words. Words can be paraphrased; these cannot.
// backend/facts reads and compares them; this file picks them out of a
// claim or a passage sentence.
type textFacts struct {
	tokens  []facts.Token
	numbers []quantity
	// years are the years inside dates ("June 28, 2019"): a claim checks
	// them through its dates, a passage offers them as years too.
	years    []quantity
	dates    []facts.Date
	codes    []phrase
	names    []phrase
	negation []negScope
	polar    map[string]bool // comparison words (opposites.go)
}

// quantity is a number of a text and the words that say what it counts.
type quantity struct {
	facts.Quantity
	anchors []term // content words next to it in the sentence
	// nextTo are the nearest content word before it and the one after it
	// (each may be missing): what the number is most plainly bound to.
	nextTo [2]*term
}

// phrase is a name (a run of capitalised words) or a code as a text writes
// it, with the words around it, which say what role it plays: "linebacker
// Von Miller was" puts Von Miller between "linebacker" and "was".
type phrase struct {
	text       string // as written
	start, end int    // bytes in the text
	// left, right: the lower-case neighbouring words; a comma, semicolon or
	// colon that ends the phrase; "^" for a sentence's start and "$" for its
	// end; "" for any other break.
	left, right string
	// left2, right2: the two words before and after it, when no break
	// parts them ("such as", "at 23:15").
	left2, right2 string
	// initial: the run starts the sentence, so its first word is capitalised
	// anyway; it is a name only if the passage capitalises it mid-sentence.
	initial bool
}

// words are the phrase's words, connectors ("of", "the") left out.
func (n phrase) words() []string {
	ws := strings.Fields(n.text)
	out := ws[:0:0]
	for k, w := range ws {
		if k == 0 || !nameConnectors[w] && w != "the" {
			out = append(out, w)
		}
	}
	return out
}

// extractFacts finds the facts of s; terms are its content terms
// (analyze(s)), which anchor its numbers.
func extractFacts(s string, terms []term) textFacts {
	var f textFacts
	read := facts.Read(s)
	f.dates = read.Dates
	inDate := func(start int) bool {
		for _, d := range f.dates {
			if start >= d.Start && start < d.End {
				return true
			}
		}
		return false
	}
	for _, q := range read.Quantities {
		switch {
		case !inDate(q.Start):
			f.numbers = append(f.numbers, quantity{Quantity: q})
		case q.Kind == facts.Year:
			f.years = append(f.years, quantity{Quantity: q})
		}
	}
	toks := read.Tokens
	f.tokens = toks
	isNumberTok := map[int]bool{}
	for _, q := range f.numbers {
		isNumberTok[q.Start] = true
	}
	nameAt := make([]bool, len(toks))
	for i, t := range toks {
		body := facts.StripHangulTail(t.Text)
		lower := strings.ToLower(body)
		code := func() {
			c := phrase{text: body, start: t.Start, end: t.Start + len(body), initial: t.Initial}
			c.left, c.right = neighbours(s, toks, i, i)
			c.left2, c.right2 = farNeighbours(s, toks, i, i)
			f.codes = append(f.codes, c)
		}
		switch {
		case isNumberTok[t.Start] || inDate(t.Start):
		case t.InCode && utf8.RuneCountInString(body) >= 2 && !stopWords[lower]:
			code()
		case isCode(body):
			if _, number := facts.ParseNumber(body); !number {
				code()
			}
		case t.InCode:
		case strings.Contains(body, "-") && !t.Initial && !isEntity(body, false):
			// OpenAI-compatible: the name is the part that looks like one.
			for _, part := range strings.Split(body, "-") {
				if isEntity(part, false) {
					at := t.Start + strings.Index(body, part)
					f.names = append(f.names, phrase{text: part, start: at, end: at + len(part)})
				}
			}
		case isEntity(body, t.Initial):
			nameAt[i] = true
		case t.Initial && isCapitalised(body) && !stopWords[lower] && !framingWords[matchKey(lower)] && !facts.IsNegation(lower):
			nameAt[i] = true // decided against the passage (name.initial)
		}
	}
	f.names = append(f.names, nameRuns(s, toks, nameAt)...)

	f.negation = negationScopes(s)
	f.polar = polarWords(s)
	if len(f.numbers)+len(f.years) > 0 {
		anchorNumbers(f.numbers, terms)
		anchorNumbers(f.years, terms)
	}
	return f
}

// nameRuns groups adjacent name tokens into names, with their neighbours.
func nameRuns(s string, toks []facts.Token, nameAt []bool) []phrase {
	var out []phrase
	for i := 0; i < len(toks); i++ {
		if !nameAt[i] {
			continue
		}
		j := i
		for {
			next := j + 1
			// "Duke of Cambridge", "House of the Dragon", "Ludwig van
			// Beethoven": a name goes on across "of", "of the" and the like
			// when a capitalised word follows.
			if next < len(toks) && nameConnectors[toks[next].Text] {
				next++
				if toks[next-1].Text == "of" && next < len(toks) && toks[next].Text == "the" {
					next++
				}
			}
			if next >= len(toks) || !nameAt[next] || toks[next].Initial || !spaced(s, toks[next-1], toks[next]) || next > j+1 && !spaced(s, toks[j], toks[j+1]) {
				break
			}
			j = next
		}
		n := phrase{start: toks[i].Start, end: toks[j].End(), initial: toks[i].Initial}
		n.text = s[n.start:n.end]
		n.left, n.right = neighbours(s, toks, i, j)
		n.left2, n.right2 = farNeighbours(s, toks, i, j)
		out = append(out, n)
		i = j
	}
	return out
}

// nameConnectors join the words of one name ("Bank of America").
var nameConnectors = map[string]bool{"of": true, "de": true, "von": true, "van": true, "der": true, "del": true, "da": true}

// spaced reports two tokens with only spaces between them.
func spaced(s string, a, b facts.Token) bool { return strings.TrimSpace(s[a.End():b.Start]) == "" }

// joined reports two tokens with nothing between them but spaces, brackets
// and quotes: "Conference (AFC) champion" puts AFC between Conference and
// champion.
func joined(s string, a, b facts.Token) bool {
	return strings.Trim(s[a.End():b.Start], " \t\n\"'()[]“”‘’") == ""
}

// neighbours are the words around tokens i..j (see phrase).
func neighbours(s string, toks []facts.Token, i, j int) (left, right string) {
	switch {
	case toks[i].Initial:
		left = "^"
	case i > 0 && joined(s, toks[i-1], toks[i]):
		left = strings.ToLower(toks[i-1].Text)
	}
	after := strings.TrimLeft(s[toks[j].End():], "\"'()[]“”‘’*_")
	switch {
	case j+1 < len(toks) && joined(s, toks[j], toks[j+1]) && !toks[j+1].Initial:
		right = strings.ToLower(toks[j+1].Text)
	case j+1 == len(toks) || toks[j+1].Initial:
		right = "$"
	case strings.HasPrefix(after, ","), strings.HasPrefix(after, ";"), strings.HasPrefix(after, ":"):
		right = after[:1]
	}
	return left, right
}

// farNeighbours are the two words before tokens i..j and the two after,
// when nothing but spaces parts them.
func farNeighbours(s string, toks []facts.Token, i, j int) (left2, right2 string) {
	if i >= 2 && !toks[i].Initial && !toks[i-1].Initial && joined(s, toks[i-2], toks[i-1]) && joined(s, toks[i-1], toks[i]) {
		left2 = strings.ToLower(toks[i-2].Text + " " + toks[i-1].Text)
	}
	if j+2 < len(toks) && !toks[j+1].Initial && !toks[j+2].Initial && joined(s, toks[j], toks[j+1]) && joined(s, toks[j+1], toks[j+2]) {
		right2 = strings.ToLower(toks[j+1].Text + " " + toks[j+2].Text)
	}
	return left2, right2
}

// anchorWords is how many content words on each side of a number tie it to
// what it counts.
const anchorWords = 2

// anchorNumbers records, for each number, the content words nearest to it
// in the sentence (numbers left out): "send at most 100 requests per
// minute" anchors 100 to send, requests and minute.
func anchorNumbers(qs []quantity, ts []term) {
	for k := range qs {
		q := &qs[k]
		var left []term
		for _, t := range ts {
			if isNumericKey(t.key) {
				continue
			}
			switch {
			case t.pos < q.Start:
				left = append(left, t)
			case t.pos >= q.End && len(q.anchors) < anchorWords:
				q.anchors = append(q.anchors, t)
			}
		}
		if len(q.anchors) > 0 {
			q.nextTo[1] = &q.anchors[0]
		}
		if len(left) > anchorWords {
			left = left[len(left)-anchorWords:]
		}
		q.anchors = append(q.anchors, left...)
		if len(left) > 0 {
			q.nextTo[0] = &q.anchors[len(q.anchors)-1]
		}
	}
}

func isNumericKey(k string) bool {
	for _, r := range k {
		if r < '0' || r > '9' {
			return false
		}
	}
	return k != ""
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
			return !isAbbreviation(s)
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

// isAbbreviation reports letters joined by dots: U.S., D.C., e.g.
func isAbbreviation(s string) bool {
	for i, r := range s {
		if i%2 == 1 && r != '.' || i%2 == 0 && !unicode.IsLetter(r) {
			return false
		}
	}
	return true
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
		if !unicode.IsLetter(r) && r != '-' && r != '\'' && r != '’' && r != '.' {
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
		_, unit := facts.Unit(lower)
		return !unit
	case inner && !isAbbreviation(s):
		return true
	}
	return isCapitalised(s) && !initial
}
