package facts

import "strings"

// negationWords turn a statement into its opposite.
var negationWords = map[string]bool{"not": true, "no": true, "never": true, "none": true, "nothing": true,
	"nobody": true, "nowhere": true, "neither": true, "nor": true, "cannot": true}

// IsNegation reports an English negation word (lower-case): not, no,
// never, none, nothing, nobody, nowhere, neither, nor, cannot. "n't" is
// written as a separate "t" by most tokenizers; callers pair it with the
// word before it (see ContractionStem).
func IsNegation(lower string) bool { return negationWords[lower] }

// contractionStems are what "don't", "isn't" … leave before the split-off t.
var contractionStems = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`don doesn isn aren wasn weren didn hasn haven hadn won wouldn shouldn couldn mustn can ain`) {
		contractionStems[w] = true
	}
}

// ContractionStem reports the part of a negative contraction before "'t"
// (don, isn, can …).
func ContractionStem(lower string) bool { return contractionStems[lower] }

// IsKoreanNegation reports a Korean word that negates its predicate: 안,
// 못, 없이, and any form of 않다, 없다, 아니다, 못하다 (지원하지 않나요,
// 없는, 필요없는, 아닌), but not 없애다 (to remove).
func IsKoreanNegation(w string) bool {
	switch {
	case w == "안" || w == "못" || w == "없이":
		return true
	case strings.Contains(w, "않") || strings.Contains(w, "없") && !strings.Contains(w, "없애") || strings.HasPrefix(w, "아니") ||
		strings.HasPrefix(w, "아닌") || strings.HasPrefix(w, "아닙") || strings.HasPrefix(w, "못하"):
		return true
	}
	return false
}
