package verify

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence segmentation of Markdown and plain text, used for answers (to
// find claims) and for passages (to find supporting sentences).
//
// A text is first cut into blocks by lines: paragraphs (consecutive
// non-blank lines, so hard-wrapped text stays one paragraph), list items,
// table rows, headings and fenced code. Paragraphs and list items are then
// cut into sentences; rows, headings and code blocks are one unit each.
// A sentence ends at . ! ? (or 。！？) followed by whitespace, after any
// closing quotes, brackets or emphasis, except after an abbreviation (e.g.,
// i.e., vs., Dr.) or before a lowercase word. Decimals (3.5), versions
// (v1.2.3), file names and URLs have no space after their dots, so they never
// end a sentence. Inline code spans are never split. Citation markers that
// follow a sentence's end ("… 200 MB. [#1]") belong to that sentence.

// Block and unit kinds.
const (
	KindSentence = "sentence" // a sentence of a paragraph
	KindItem     = "item"     // a sentence of a list item
	KindRow      = "row"      // a table row
	KindHeading  = "heading"  // a Markdown heading
	KindCode     = "code"     // a fenced code block
)

// unit is one sentence-level piece of a text.
type unit struct {
	start, end int // bytes, whitespace trimmed
	kind       string
	block      int // index of the paragraph, item, row, heading or code block
}

type block struct {
	start, end int
	kind       string // KindSentence for a paragraph
}

var (
	listItemRe = regexp.MustCompile(`^\s{0,6}(?:[-*+•]|\d{1,3}[.)])\s+`)
	headingRe  = regexp.MustCompile(`^\s{0,3}#{1,6}(?:\s|$)`)
	ruleRe     = regexp.MustCompile(`^\s{0,3}(?:[-=*_]\s*){3,}$`)
	tableSepRe = regexp.MustCompile(`^\s*\|?[\s:|-]*-[\s:|-]*$`)
)

// blocks cuts text into Markdown blocks by lines.
func blocks(text string) []block {
	var out []block
	cur := block{start: -1}
	flush := func() {
		if cur.start >= 0 {
			out = append(out, cur)
		}
		cur = block{start: -1}
	}
	fence := ""
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		next := len(text)
		if le < 0 {
			le = len(text)
		} else {
			le += ls
			next = le + 1
		}
		line := text[ls:le]
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			cur.end = le
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
				flush()
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			flush()
			fence = trimmed[:3]
			cur = block{start: ls, end: le, kind: KindCode}
		case trimmed == "":
			flush()
		case headingRe.MatchString(line):
			flush()
			out = append(out, block{start: ls, end: le, kind: KindHeading})
		case ruleRe.MatchString(line):
			// A setext underline turns the paragraph above into a heading.
			if cur.start >= 0 && cur.kind == KindSentence && (trimmed[0] == '=' || trimmed[0] == '-') {
				cur.kind = KindHeading
			}
			flush()
		case strings.HasPrefix(trimmed, "|"):
			flush()
			switch {
			case !tableSepRe.MatchString(line):
				out = append(out, block{start: ls, end: le, kind: KindRow})
			case len(out) > 0 && out[len(out)-1].kind == KindRow:
				// The row above a separator is the table's header.
				out[len(out)-1].kind = KindHeading
			}
		case listItemRe.MatchString(line):
			flush()
			cur = block{start: ls + len(listItemRe.FindString(line)), end: le, kind: KindItem}
		default:
			if cur.start < 0 {
				cur = block{start: ls, end: le, kind: KindSentence}
			} else {
				cur.end = le
			}
		}
		ls = next
	}
	flush()
	return out
}

// units cuts text into sentence-level units.
func units(text string) []unit {
	var out []unit
	for bi, b := range blocks(text) {
		switch b.kind {
		case KindSentence, KindItem:
			for _, r := range splitSentences(text, b.start, b.end) {
				out = append(out, unit{start: r[0], end: r[1], kind: b.kind, block: bi})
			}
		default:
			if s, e := trimRange(text, b.start, b.end); s < e {
				out = append(out, unit{start: s, end: e, kind: b.kind, block: bi})
			}
		}
	}
	return out
}

func isTerminator(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？', '…':
		return true
	}
	return false
}

func isFullWidthTerminator(r rune) bool { return r == '。' || r == '！' || r == '？' }

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '”', '’', '»', '*', '_', '」', '』', '）':
		return true
	}
	return false
}

// splitSentences returns the trimmed sentence ranges of text[a:b].
func splitSentences(text string, a, b int) [][2]int {
	var out [][2]int
	emit := func(s, e int) {
		if s, e = trimRange(text, s, e); s < e {
			out = append(out, [2]int{s, e})
		}
	}
	start, inCode := a, false
	for i := a; i < b; {
		r, size := utf8.DecodeRuneInString(text[i:b])
		switch {
		case r == '`':
			inCode = !inCode
			i += size
			continue
		case inCode:
			i += size
			continue
		case r == '\n' && koreanLineEnd(text[start:i]):
			emit(start, i)
			start = i + size
			i += size
			continue
		case !isTerminator(r):
			i += size
			continue
		}
		j := i + size
		for j < b {
			r2, sz := utf8.DecodeRuneInString(text[j:b])
			if !isTerminator(r2) && !isCloser(r2) {
				break
			}
			j += sz
		}
		if !isFullWidthTerminator(r) {
			if j < b {
				if nr, _ := utf8.DecodeRuneInString(text[j:b]); !unicode.IsSpace(nr) {
					i = j
					continue
				}
			}
			if r == '.' && !periodEnds(text, i, j, b) {
				i = j
				continue
			}
		}
		j = attachMarkers(text, j, b)
		emit(start, j)
		start, i = j, j
	}
	emit(start, b)
	return out
}

// koreanLineEnd reports a Korean sentence written without a final period at
// the end of a line (…설치합니다⏎).
func koreanLineEnd(s string) bool {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(s)
	return r == '다' || r == '요' || r == '까'
}

// abbreviations never end a sentence.
var abbreviations = setOf(`mr mrs ms dr prof sr jr st vs cf fig figs no nos vol approx incl ca al eg ie resp dept est op ed eds pp sec ch`)

// periodEnds decides whether the period at text[i] ends a sentence; j is
// just past the period and any closing punctuation, b the end of the block.
func periodEnds(text string, i, j, b int) bool {
	ws := i
	for ws > 0 {
		r, sz := utf8.DecodeLastRuneInString(text[:ws])
		if !unicode.IsLetter(r) {
			break
		}
		ws -= sz
	}
	word := strings.ToLower(text[ws:i])
	if word != "" && abbreviations[word] {
		return false
	}
	// "e.g." and "U.S.": a letter run preceded by another period.
	if word != "" && utf8.RuneCountInString(word) <= 2 && ws > 0 && text[ws-1] == '.' {
		return false
	}
	// A lowercase word after the period means the sentence goes on
	// ("approx. five", "etc. and").
	k := j
	for k < b {
		r, sz := utf8.DecodeRuneInString(text[k:b])
		if !unicode.IsSpace(r) {
			return !unicode.IsLower(r)
		}
		k += sz
	}
	return true
}

// attachMarkers extends a sentence end j over citation markers that follow
// it ("… 200 MB. [#1] [#2]"), and over one terminator after them.
func attachMarkers(text string, j, b int) int {
	k := j
	for k < b && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	end := j
	for {
		loc := markerRe.FindStringIndex(text[k:b])
		if loc == nil || loc[0] != 0 {
			break
		}
		k += loc[1]
		end = k
		for k < b && (text[k] == ' ' || text[k] == ',' || text[k] == '\t') {
			k++
		}
	}
	if end > j && end < b && (text[end] == '.' || text[end] == '!' || text[end] == '?') {
		end++
	}
	return end
}

// trimRange shrinks text[s:e] by surrounding whitespace.
func trimRange(text string, s, e int) (int, int) {
	for s < e {
		r, sz := utf8.DecodeRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		s += sz
	}
	for e > s {
		r, sz := utf8.DecodeLastRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= sz
	}
	return s, e
}
