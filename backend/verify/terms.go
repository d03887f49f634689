package verify

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/facts"
	"github.com/footnote-app/footnote/backend/lexical"
)

// Lexical analysis for matching a claim's words against a passage's words.
//
// Words are split the way the full-text index splits them (on anything that
// is not a letter, digit or combining mark) and lowercased, so their
// document frequencies can be looked up in the index's own statistics.
// For matching, English words are reduced to a light stem and a few common
// paraphrase pairs share a key ("requires" and "needs"); Korean words drop
// their trailing particle or verb ending (학교에서 → 학교, 설치합니다 → 설치)
// and match by prefix, as the index's Korean analyzer does; Chinese and
// Japanese runs become character bigrams.

// term is one content word of a text.
type term struct {
	key    string // what is compared: stem, Korean stem or CJK bigram
	word   string // lowercase surface word (Korean: its stem), for TermStats
	hangul bool   // Korean stems match by prefix
	pos    int    // byte offset of the word in the analysed text
}

// wordSpan is one word of a text as the index tokenizer splits it.
type wordSpan struct {
	text       string
	start, end int // bytes
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) }

// splitWords returns the words of s with their byte ranges.
func splitWords(s string) []wordSpan {
	var out []wordSpan
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, wordSpan{s[start:i], start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, wordSpan{s[start:], start, len(s)})
	}
	return out
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

func isBigramScript(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

// analyze returns the content terms of s: stop words are dropped, and
// negation words too (negation is checked as a hard constraint instead).
func analyze(s string) []term {
	var out []term
	words := splitWords(s)
	for i, w := range words {
		lw := strings.ToLower(w.text)
		if valueIntroducers[lw] && i+1 < len(words) && startsValue(words[i+1].text) {
			continue // "dated 9 January": the date is checked as a fact
		}
		hangul, cjk := false, false
		for _, r := range lw {
			hangul = hangul || isHangul(r)
			cjk = cjk || isBigramScript(r)
		}
		switch {
		case hangul:
			st := lexical.KoreanStem(lw)
			if koreanStop[st] || koreanStop[lw] {
				continue
			}
			out = append(out, term{key: st, word: st, hangul: true, pos: w.start})
		case cjk:
			rs := []rune(lw)
			if len(rs) == 1 {
				out = append(out, term{key: lw, word: lw, pos: w.start})
				continue
			}
			for i := 0; i+1 < len(rs); i++ {
				g := string(rs[i : i+2])
				out = append(out, term{key: g, word: g, pos: w.start})
			}
		default:
			if stopWords[lw] || facts.IsNegation(lw) {
				continue
			}
			out = append(out, term{key: matchKey(lw), word: lw, pos: w.start})
		}
	}
	return out
}

// matchKey is the key an English word is compared by: irregular forms are
// mapped to their base, the base is stemmed, and members of a paraphrase
// group share the group's first member.
func matchKey(lw string) string {
	if base, ok := irregular[lw]; ok {
		lw = base
	}
	if v, ok := facts.NumberWord(lw); ok && v == float64(int(v)) {
		return strconv.Itoa(int(v)) // "six" matches "6"
	}
	st := stem(lw)
	if g, ok := synonymOf[st]; ok {
		return g
	}
	return st
}

// stem strips common English inflections. It only has to be consistent:
// both sides of a comparison go through it. Words with digits are codes or
// numbers and stay as they are.
func stem(w string) string {
	for _, r := range w {
		if unicode.IsDigit(r) || r >= utf8.RuneSelf {
			return w
		}
	}
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ly") && len(w) >= 6:
		w = w[:len(w)-2]
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	if strings.HasSuffix(w, "y") && len(w) > 3 {
		w = w[:len(w)-1] + "i"
	}
	return w
}

// undouble turns "stopp" (from "stopped") into "stop"; "ll" and "ss" stay.
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("lsaeiou", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// termMatches reports whether claim term c is matched by passage term p.
// Korean stems match when one is a prefix of the other and they share at
// least two syllables, since a stem may keep part of an ending.
func termMatches(c, p term) bool {
	if c.key == p.key {
		return true
	}
	if !c.hangul || !p.hangul {
		return false
	}
	short, long := c.key, p.key
	if len(short) > len(long) {
		short, long = long, short
	}
	return utf8.RuneCountInString(short) >= 2 && strings.HasPrefix(long, short)
}

// nearTerms reports two English words of one family that the stemmer
// keeps apart: the shorter (of six letters or more) and the longer share
// all but its last two letters, and at least six ("acquired" and
// "acquisition" share "acqui"…; "renovated", "renovations"). Words with
// digits never match this way.
func nearTerms(c, p term) bool {
	a, b := c.word, p.word
	if c.hangul || p.hangul || a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) < 6 {
		return false
	}
	n := max(6, len(a)-2)
	for i := 0; i < len(a); i++ {
		if a[i] >= '0' && a[i] <= '9' || a[i] >= utf8.RuneSelf {
			return false
		}
	}
	return strings.HasPrefix(b, a[:n])
}

// stopWords carry no checkable content. Approximation words are here too:
// "about 200 MB" and "roughly 200 MB" say the same.
var stopWords = setOf(`a an the and or but if then else so as of at by for from in into on onto to up
	with within without over under about above below after before between through during than too very
	is are was were be been being am do does did done doing have has had having will would shall should
	can could may might must i me my we our us you your yours he him his she her it its they them their
	this that these those there here what which who whom whose when where why how all any both each every
	few more most other some such only own same just also again further once still even ever yet
	s t d ll m re ve don doesn isn aren wasn weren didn hasn haven hadn won wouldn shouldn couldn mustn
	roughly approximately around nearly almost circa just about per via etc eg ie e g let lets
	one's whether either because while until unless though although whereas however therefore thus
	any anything anywhere anyone anybody everything everywhere everyone something somewhere someone now`)

// valueIntroducers say only that a value follows ("dated Tuesday 9
// January", "numbered 12", "aged 14", "priced at"): before a date or number
// they carry nothing the value, checked as a fact, does not. A passage's
// dateline ("Meeting notes, Tuesday 9 January 2024") states the date
// without them.
var valueIntroducers = setOf(`dated numbered aged priced timed`)

// startsValue reports whether a word opens a date or a number: a digit, a
// month or a weekday name.
func startsValue(word string) bool {
	if word == "" {
		return false
	}
	if word[0] >= '0' && word[0] <= '9' {
		return true
	}
	lw := strings.ToLower(word)
	_, month := facts.MonthName(lw)
	_, weekday := facts.WeekdayName(lw)
	return month || weekday
}

// koreanStop are Korean function words and bound nouns.
var koreanStop = setOf(`어디 아무 무엇 누구 언제 것 수 등 및 그 이 저 때 더 또 또는 그리고 하지만 그러나 또한 있습니다 있다 있는 있으며 있고
	있어 합니다 한다 하는 하고 하면 할 해 된다 됩니다 되는 됩 이다 입니다 경우 위해 대한 대해 통해 같은 같이 모든 각 약`)

// irregular maps irregular verb forms to their base.
var irregular = map[string]string{
	"written": "write", "wrote": "write", "ran": "run", "made": "make", "found": "find", "gave": "give",
	"given": "give", "took": "take", "taken": "take", "kept": "keep", "sent": "send", "shown": "show",
	"chosen": "choose", "chose": "choose", "built": "build", "began": "begin", "begun": "begin",
	"held": "hold", "told": "tell", "said": "say", "got": "get", "gotten": "get", "brought": "bring",
	"bought": "buy", "thought": "think", "known": "know", "knew": "know", "seen": "see", "saw": "see",
	"went": "go", "gone": "go", "left": "leave", "lost": "lose", "met": "meet", "paid": "pay",
	"fed":    "feed",
	"larger": "large", "largest": "large", "smaller": "small", "smallest": "small", "bigger": "big",
	"faster": "fast", "slower": "slow", "longer": "long", "shorter": "short", "higher": "high",
	"lower": "low", "fewer": "few", "better": "good", "best": "good", "worse": "bad", "worst": "bad",
	"indices": "index", "children": "child",
}

// synonymGroups are general English paraphrase pairs that models use when
// restating a passage. The first member is the group's key.
var synonymGroups = [][]string{
	{"need", "require", "requirement"},
	{"show", "display", "present"},
	{"start", "launch", "begin"},
	{"stop", "halt", "cancel", "interrupt", "abort"},
	{"remove", "delete", "erase", "drop"},
	{"download", "fetch"},
	{"use", "utilize", "employ"},
	{"folder", "directory"},
	{"file", "document"},
	{"passage", "chunk", "snippet", "excerpt"},
	{"answer", "reply", "response", "respond"},
	{"question", "query"},
	{"app", "application", "program", "software"},
	{"computer", "machine", "device"},
	{"large", "big", "huge"},
	{"small", "little", "tiny"},
	{"fast", "quick", "rapid"},
	{"max", "maximum"},
	{"min", "minimum", "least"},
	{"store", "save", "keep", "retain", "persist"},
	{"mark", "flag", "label"},
	{"find", "locate"},
	{"check", "verify", "validate"},
	{"make", "create", "generate", "produce"},
	{"say", "state", "tell", "mention"},
	{"cite", "reference"},
	{"change", "modify", "alter", "edit"},
	{"choose", "select", "pick"},
	{"run", "execute"},
	{"disk", "storage"},
	{"merge", "fuse", "combine"},
	{"split", "divide"},
	{"contain", "include", "hold"},
	{"skip", "ignore", "omit"},
	{"get", "obtain", "receive"},
	{"local", "offline"},
	{"entire", "whole", "complete"},
	{"default", "standard"},
	{"error", "failure"},
	{"fail", "break"},
	{"write", "compose"},
	{"ask", "request"},
	{"return", "give"},
	{"support", "handle"},
	{"enough", "sufficient"},
	{"send", "transmit", "upload"},
	{"allow", "let", "permit", "enable"},
	{"help", "assist"},
	{"look", "search", "seek"},
}

// synonymOf maps each member's stem to its group key's stem.
var synonymOf = func() map[string]string {
	m := map[string]string{}
	for _, g := range synonymGroups {
		key := stem(g[0])
		for _, w := range g {
			m[stem(w)] = key
		}
	}
	return m
}()

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
