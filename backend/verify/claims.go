package verify

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// markerRe is the only citation form Footnote accepts (the same pattern as
// the answer pipeline's): look-alikes such as "[1]" are not citations.
var markerRe = regexp.MustCompile(`\[#(\d{1,3})\]`)

// Why a sentence of an answer is not a claim (Claim.NonClaim).
const (
	NotHeading      = "heading"           // a Markdown heading
	NotCode         = "code"              // an uncited fenced code block
	NotLeadIn       = "lead_in"           // an uncited sentence ending in ":" or made only of framing words
	NotRestatement  = "restates_question" // an uncited sentence that only repeats the question's words
	NotQuestion     = "question"          // an uncited sentence ending in "?"
	NotRefusal      = "refusal"           // "I don't know …"
	NotCitationList = "citation_list"     // only markers and framing words ("Sources: [#1], [#2]")
)

// Claim is one sentence-level segment of an answer.
//
// Marker coverage: a marker covers the sentence it is written in or that it
// directly follows ("… 200 MB [#1]." and "… 200 MB. [#1]"). An uncited
// sentence is covered by the markers of the next cited sentence in the same
// paragraph (or list item): models cite a run of sentences once, at its
// end. So in "A. B [#1]. C. D [#2]." A and B are checked against [#1], C and
// D against [#2]; a marker closing the paragraph covers every uncited
// sentence before it. Uncited sentences after the paragraph's last marker
// stay uncited. An uncited list item is covered by the markers of the cited
// lead-in that introduces its list ("To install it [#1]:" then "1. …").
// Markers inside code, and markers copied from evidence text (see
// EchoedMarkers), never count; a sentence carrying only copied markers
// does not inherit others and stays uncited.
type Claim struct {
	Text      string `json:"text"`       // the segment as written, markers included
	Plain     string `json:"plain"`      // what is checked: markers, Markdown and a leading "According to the documents," removed
	Start     int    `json:"start"`      // byte offsets in the answer: answer[Start:End] == Text
	End       int    `json:"end"`        //
	CharStart int    `json:"char_start"` // the same range in code points
	CharEnd   int    `json:"char_end"`   //
	Kind      string `json:"kind"`       // KindSentence, KindItem, KindRow, KindHeading or KindCode
	Markers   []int  `json:"markers"`    // passages the claim is checked against, in order of first appearance
	Inherited bool   `json:"inherited"`  // Markers come from a later sentence or a lead-in, by the coverage rule
	Echoed    []int  `json:"echoed"`     // markers written here but copied from evidence text; never citations
	NonClaim  string `json:"non_claim"`  // "" for a checkable claim, otherwise why it is not one
}

// Checkable reports whether the segment states something to verify.
func (c Claim) Checkable() bool { return c.NonClaim == "" }

// Uncited reports a checkable claim that no marker covers.
func (c Claim) Uncited() bool { return c.NonClaim == "" && len(c.Markers) == 0 }

// Claims splits a Markdown answer into claims. question (may be empty) is
// used to recognise sentences that only restate it; evidence are the texts
// of the passages the model was given, so markers the model copied out of
// them are not counted (see EchoedMarkers).
func Claims(answer, question string, evidence ...string) []Claim {
	echoes := map[int]bool{}
	for _, m := range EchoedMarkers(answer, evidence) {
		echoes[m.Start] = true
	}
	var qkeys map[string]bool
	if strings.TrimSpace(question) != "" {
		qkeys = map[string]bool{}
		for _, t := range analyze(question) {
			qkeys[t.key] = true
		}
	}
	us := units(answer)
	claims := make([]Claim, 0, len(us))
	runeAt := runeCounter(answer)
	for _, u := range us {
		c := Claim{
			Text: answer[u.start:u.end], Start: u.start, End: u.end,
			CharStart: runeAt(u.start), CharEnd: runeAt(u.end), Kind: u.kind,
		}
		if u.kind != KindCode {
			c.Markers, c.Echoed = ownMarkers(answer, u.start, u.end, echoes)
		}
		c.Plain = plainText(c.Text, u.kind)
		claims = append(claims, c)
	}
	for i := range claims {
		claims[i].NonClaim = nonClaim(claims[i], qkeys)
	}
	applyCoverage(claims, us)
	return claims
}

// ownMarkers returns the markers written inside answer[start:end] outside
// code spans, split into citations and echoes.
func ownMarkers(answer string, start, end int, echoes map[int]bool) (cited, echoed []int) {
	code := codeRanges(answer[start:end])
	for _, loc := range markerRe.FindAllStringSubmatchIndex(answer[start:end], -1) {
		if inRanges(code, loc[0]) {
			continue
		}
		n, _ := strconv.Atoi(answer[start+loc[2] : start+loc[3]])
		if echoes[start+loc[0]] {
			echoed = appendOnce(echoed, n)
		} else {
			cited = appendOnce(cited, n)
		}
	}
	return cited, echoed
}

// applyCoverage gives uncited claims the markers of the next cited
// sentence of their block, or of their list's cited lead-in.
func applyCoverage(claims []Claim, us []unit) {
	var leadIn []int // markers of a cited lead-in ending in ':' that opens a list
	prevBlock := -1
	for i := range claims {
		c := &claims[i]
		if us[i].block != prevBlock && c.Kind != KindItem {
			leadIn = nil
		}
		prevBlock = us[i].block
		if len(c.Markers) > 0 && c.NonClaim == "" {
			if strings.HasSuffix(strings.TrimSpace(c.Plain), ":") && isLastOfBlock(us, i) {
				leadIn = c.Markers
			}
			continue
		}
		if !c.Checkable() || c.Kind == KindRow || c.Kind == KindCode || len(c.Echoed) > 0 {
			// A sentence whose only markers were copied from evidence is
			// the model reproducing a passage: it stays uncited.
			continue
		}
		for j := i + 1; j < len(claims) && us[j].block == us[i].block; j++ {
			if len(claims[j].Markers) > 0 && claims[j].NonClaim == "" {
				c.Markers, c.Inherited = claims[j].Markers, true
				break
			}
		}
		if len(c.Markers) == 0 && c.Kind == KindItem && leadIn != nil {
			c.Markers, c.Inherited = leadIn, true
		}
	}
}

func isLastOfBlock(us []unit, i int) bool { return i+1 == len(us) || us[i+1].block != us[i].block }

// framingWords make up lead-ins and sign-offs; a sentence of only these
// (and stop words) states nothing checkable.
var framingWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range setOf(`according based provided given document documents passage passages evidence source sources
		context information info summary summarize answer answers question questions following below above say says
		state states mention mentions hope helps let know note notes overview short brief briefly conclusion
		sure happy glad feel free ask further detail details additional relevant describe describes explain
		explains text cited cite citation citations reference references look see please like want wonder
		here key point points main things thing find found available`) {
		m[matchKey(w)] = true
	}
	return m
}()

var (
	refusalRe  = regexp.MustCompile(`(?i)^\W*i\s+(?:don['’]?t|do\s+not|cannot|can['’]?t)\s+(?:know|answer|tell|find)\b`)
	leadClause = regexp.MustCompile(`(?i)^(?:according\s+to|based\s+on|as\s+(?:stated|described|mentioned)\s+in|per)\s+(?:the\s+)?(?:provided\s+|given\s+|cited\s+)?(?:documents?|passages?|evidence|sources?|notes?|context)\s*[,:]\s*`)
)

// nonClaim says why a segment is not a checkable claim, or "". Cited
// segments are always claims: the model presented them as facts.
func nonClaim(c Claim, qkeys map[string]bool) string {
	plain := strings.TrimSpace(c.Plain)
	keys := analyze(plain)
	cited := len(c.Markers) > 0
	switch {
	case c.Kind == KindHeading:
		return NotHeading
	case refusalRe.MatchString(plain):
		return NotRefusal
	case cited && allFraming(keys):
		return NotCitationList
	case cited:
		return ""
	case c.Kind == KindCode:
		return NotCode
	case len(c.Echoed) > 0:
		// Echoed markers are not citations, but the text still claims something.
		return ""
	case strings.HasSuffix(plain, ":") || allFraming(keys):
		return NotLeadIn
	case strings.HasSuffix(plain, "?"):
		return NotQuestion
	case qkeys != nil && restates(keys, qkeys):
		return NotRestatement
	}
	return ""
}

func allFraming(ts []term) bool {
	for _, t := range ts {
		if !framingWords[t.key] {
			return false
		}
	}
	return true
}

// restates reports a sentence whose every non-framing word is a word of the
// question: it adds nothing the question did not already say.
func restates(ts []term, qkeys map[string]bool) bool {
	n := 0
	for _, t := range ts {
		if framingWords[t.key] {
			continue
		}
		n++
		if !qkeys[t.key] {
			return false
		}
	}
	return n > 0
}

var (
	linkRe     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	emphasisRe = regexp.MustCompile(`\*\*|\*|~~`)
	spaceRe    = regexp.MustCompile(`\s+`)
	// A space before punctuation that ends a word is dropped (a removed
	// marker leaves one); "./run.sh" or ".deb" starts a word and keeps it.
	spacePunct = regexp.MustCompile(`\s+([.,;:!?])(\s|$)`)
)

// plainText is the checkable text of a segment: markers, Markdown syntax
// and a leading "According to the documents," removed, whitespace collapsed.
func plainText(s, kind string) string {
	s = markerRe.ReplaceAllString(s, "")
	switch kind {
	case KindHeading:
		s = strings.TrimLeft(strings.TrimSpace(s), "#")
	case KindRow:
		cells := strings.Split(strings.Trim(strings.TrimSpace(s), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		s = strings.Join(cells, "; ")
	case KindCode:
		lines := strings.Split(s, "\n")
		if len(lines) >= 2 {
			lines = lines[1 : len(lines)-1]
		}
		s = strings.Join(lines, "\n")
	}
	if kind != KindCode {
		s = linkRe.ReplaceAllString(s, "$1")
		s = emphasisRe.ReplaceAllString(s, "")
		s = dropUnderscoreEmphasis(s)
		s = strings.ReplaceAll(s, "`", "")
		s = strings.TrimLeft(strings.TrimSpace(s), "> ")
		s = spaceRe.ReplaceAllString(s, " ")
		s = spacePunct.ReplaceAllString(s, "$1$2")
		s = leadClause.ReplaceAllString(strings.TrimSpace(s), "")
	}
	return strings.TrimSpace(s)
}

// codeRanges are the byte ranges of inline code spans in s.
func codeRanges(s string) [][2]int {
	var out [][2]int
	open := -1
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			continue
		}
		if open < 0 {
			open = i
		} else {
			out = append(out, [2]int{open, i + 1})
			open = -1
		}
	}
	return out
}

func inRanges(rs [][2]int, i int) bool {
	for _, r := range rs {
		if i >= r[0] && i < r[1] {
			return true
		}
	}
	return false
}

func appendOnce(xs []int, n int) []int {
	for _, x := range xs {
		if x == n {
			return xs
		}
	}
	return append(xs, n)
}

// runeCounter converts increasing byte offsets of s to code-point offsets
// without rescanning from the start each time.
func runeCounter(s string) func(int) int {
	lastByte, lastRune := 0, 0
	return func(b int) int {
		if b < lastByte {
			lastByte, lastRune = 0, 0
		}
		lastRune += utf8.RuneCountInString(s[lastByte:b])
		lastByte = b
		return lastRune
	}
}

// dropUnderscoreEmphasis removes "__" emphasis markers but keeps the
// underscores inside identifiers: as in CommonMark, underscores between word
// characters never make emphasis, so "window.__pwned" or "MAX__SIZE" stay as
// written and still match the passage's text.
func dropUnderscoreEmphasis(s string) string {
	if !strings.Contains(s, "__") {
		return s
	}
	inWord := func(b byte) bool {
		return b == '_' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+1 < len(s) && s[i+1] == '_' {
			before := i > 0 && inWord(s[i-1])
			after := i+2 < len(s) && inWord(s[i+2])
			if !(before && after) {
				i++ // an emphasis marker: drop both underscores
				continue
			}
			b.WriteString("__")
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
