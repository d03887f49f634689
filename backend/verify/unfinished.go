package verify

import (
	"strings"
	"unicode/utf8"
)

// NotUnfinished: the last sentence of an answer cut at its length limit
// that stops before its end; half a sentence states nothing to check.
const NotUnfinished = "unfinished"

// MarkUnfinished marks the last segment of an answer that was cut off as
// not a claim (NotUnfinished) unless it ends like a finished sentence
// (".", "!", "?" or "…", optionally followed by markers, closing quotes or
// brackets and Markdown emphasis). Call it only for an answer that was cut.
func MarkUnfinished(claims []Claim) {
	if len(claims) == 0 {
		return
	}
	last := &claims[len(claims)-1]
	if last.NonClaim != "" || endsFinished(last.Text) {
		return
	}
	last.NonClaim = NotUnfinished
}

func endsFinished(s string) bool {
	for {
		s = strings.TrimRight(s, " \t\r\n")
		trimmed := s
		if loc := markerRe.FindAllStringIndex(s, -1); len(loc) > 0 && loc[len(loc)-1][1] == len(s) {
			trimmed = s[:loc[len(loc)-1][0]]
		} else {
			trimmed = strings.TrimRight(s, `"')]}*_”’»`)
		}
		if trimmed == s {
			break
		}
		s = trimmed
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?…。！？", r)
}
