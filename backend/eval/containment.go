package eval

import (
	"strings"
	"unicode"
)

// ContainsClaimRun is conventional claim containment: the gold claim is
// split at every character that is not a letter or a digit, and the answer
// contains it when some resulting run at least five characters long appears
// in the answer, ignoring case. An empty claim is never contained.
func ContainsClaimRun(answer, claim string) bool {
	hay := strings.ToLower(answer)
	runs := strings.FieldsFunc(strings.ToLower(claim), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, run := range runs {
		if len([]rune(run)) >= 5 && strings.Contains(hay, run) {
			return true
		}
	}
	return false
}
