package facts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is one whitespace-separated token of a text with the punctuation
// around it trimmed.
type Token struct {
	Text    string
	Start   int  // byte offset of Text in the analysed text
	InCode  bool // inside an inline code span (backticks are removed)
	Initial bool // the first token of a sentence or clause
}

// End is the byte offset just past the token.
func (t Token) End() int { return t.Start + len(t.Text) }

const (
	leadTrim  = "\"'([{<“‘*_«「"
	trailTrim = "\"')]}>”’.,;:!?*_»」"
)

// Tokens splits s on whitespace, trimming punctuation around each token.
// Backticks are removed and mark the tokens inside them as code.
func Tokens(s string) []Token {
	var out []Token
	inCode, initial := false, true
	for i := 0; i < len(s); {
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
		if strings.Count(tok, "`")%2 == 1 {
			inCode = !inCode
		}
		start := i
		if strings.Contains(tok, "`") {
			// Offsets stay exact only for the part before the first backtick.
			lead := strings.IndexByte(tok, '`')
			if lead == 0 {
				start, tok = start+1, tok[1:]
			}
			tok = strings.ReplaceAll(tok, "`", "")
		}
		lead := len(tok) - len(strings.TrimLeft(tok, leadTrim))
		body := strings.TrimRight(tok[lead:], trailTrim)
		if body != "" {
			out = append(out, Token{Text: body, Start: start + lead, InCode: codeHere, Initial: initial})
		}
		last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(tok, "\"')]}>”’*_»」"))
		initial = last == '.' || last == ':' || last == ';' || last == '!' || last == '?' || last == '。'
		i = j
	}
	return out
}

// IsHangul reports a Hangul rune.
func IsHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// IsHangulString reports a non-empty string of Hangul only.
func IsHangulString(s string) bool {
	for _, r := range s {
		if !IsHangul(r) {
			return false
		}
	}
	return s != ""
}

// StripHangulTail removes a Korean particle written onto a Latin word or
// code (Footnote는, FOOTNOTE_HOME을, 200MB의 keeps 200MB).
func StripHangulTail(s string) string {
	first, _ := utf8.DecodeRuneInString(s)
	if IsHangul(first) {
		return s
	}
	for i, r := range s {
		if IsHangul(r) {
			return s[:i]
		}
	}
	return s
}
