package verify

import (
	"strconv"
	"strings"
)

// Marker is one citation marker in a text.
type Marker struct {
	N     int `json:"n"`
	Start int `json:"start"` // bytes
	End   int `json:"end"`
}

// echoContextWords is how many words beside a marker must equal the words
// beside the same marker in evidence text for it to count as copied. Three
// words ("limit is 40 MB [#1]") are rarely shared by chance, while a model
// that reproduces a passage carries its markers along with longer runs.
const echoContextWords = 3

// echoWindow is how many words on each side are compared.
const echoWindow = 6

// EchoedMarkers returns the markers in answer that were copied out of the
// evidence: evidence text contains the same marker, and the answer
// reproduces at least three of the words right before it, or right after
// it. Such a marker is part of quoted text, not a citation; a passage that
// itself says "[#1]" cannot make the answer cite passage 1. Markers are
// returned in answer order.
func EchoedMarkers(answer string, evidence []string) []Marker {
	type site struct{ before, after []string }
	sites := map[int][]site{}
	for _, ev := range evidence {
		masked := maskMarkers(ev)
		for _, loc := range markerRe.FindAllStringSubmatchIndex(ev, -1) {
			n, _ := strconv.Atoi(ev[loc[2]:loc[3]])
			sites[n] = append(sites[n], site{lastWords(masked[:loc[0]]), firstWords(masked[loc[1]:])})
		}
	}
	if len(sites) == 0 {
		return nil
	}
	var out []Marker
	masked := maskMarkers(answer)
	for _, loc := range markerRe.FindAllStringSubmatchIndex(answer, -1) {
		n, _ := strconv.Atoi(answer[loc[2]:loc[3]])
		before, after := lastWords(masked[:loc[0]]), firstWords(masked[loc[1]:])
		for _, s := range sites[n] {
			if commonSuffix(before, s.before) >= echoContextWords || commonPrefix(after, s.after) >= echoContextWords {
				out = append(out, Marker{N: n, Start: loc[0], End: loc[1]})
				break
			}
		}
	}
	return out
}

// maskMarkers blanks markers out (keeping byte offsets), so the digits of
// a neighbouring marker are not taken for words.
func maskMarkers(s string) string {
	return markerRe.ReplaceAllStringFunc(s, func(m string) string { return strings.Repeat(" ", len(m)) })
}

func lastWords(s string) []string {
	ws := splitWords(s)
	if len(ws) > echoWindow {
		ws = ws[len(ws)-echoWindow:]
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ToLower(w.text)
	}
	return out
}

func firstWords(s string) []string {
	ws := splitWords(s)
	if len(ws) > echoWindow {
		ws = ws[:echoWindow]
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ToLower(w.text)
	}
	return out
}

func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
