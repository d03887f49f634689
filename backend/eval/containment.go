package eval

import (
	"strings"
	"unicode"
)

// Claim containment comes in three strengths, each a metric of its own:
//
//   - containment (ContainsGoldRun) is the conventional scorer's, to the
//     letter: a maximal run of the gold claim made of ASCII letters, digits,
//     hyphens and white space, at least five characters long, appears in the
//     answer.
//   - word_containment (ContainsClaimWord) is looser: any single run of five
//     or more letters or digits of the claim will do.
//   - phrase_containment (ContainsClaim, answers.go) counts whole words only.

// ContainsGoldRun is the conventional scorer's claim containment. Both texts
// are lower-cased; the claim's phrases are what the regular expression
// [a-z0-9][a-z0-9\-\s]{4,} finds in it, left to right and greedily, each
// trimmed of white space; the answer contains the claim when it contains one
// of them of five or more characters. White space is Python's (str.isspace),
// as in the reference scorer, so a claim splits into the same phrases. An
// empty claim is never contained.
func ContainsGoldRun(answer, claim string) bool {
	hay := pyLower(answer)
	for _, p := range goldRuns(claim) {
		if strings.Contains(hay, p) {
			return true
		}
	}
	return false
}

// goldRuns lists the phrases ContainsGoldRun looks for.
func goldRuns(claim string) []string {
	gold := []rune(pyLower(claim))
	var out []string
	for i := 0; i < len(gold); {
		if !isASCIIAlnum(gold[i]) {
			i++
			continue
		}
		// A match starting here runs as far as the class allows; a shorter
		// one cannot start later in the same run, as it would end at the
		// same place.
		j := i + 1
		for j < len(gold) && (isASCIIAlnum(gold[j]) || gold[j] == '-' || pySpace(gold[j])) {
			j++
		}
		if j-i >= 5 {
			if p := strings.TrimFunc(string(gold[i:j]), pySpace); len([]rune(p)) >= 5 {
				out = append(out, p)
			}
		}
		i = j
	}
	return out
}

func isASCIIAlnum(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }

// pySpace is Python's str.isspace: Go's white space plus the information
// separators U+001C..U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// pyLower lower-cases like Python's str.lower where it matters for ASCII
// phrases: U+0130 (İ) becomes "i" and a combining dot, not a bare "i".
func pyLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// ContainsClaimWord is the looser word containment: the gold claim is split
// at every character that is not a letter or a digit, and the answer
// contains it when some resulting word at least five characters long
// appears in the answer, ignoring case. An empty claim is never contained.
func ContainsClaimWord(answer, claim string) bool {
	hay := strings.ToLower(answer)
	runs := strings.FieldsFunc(strings.ToLower(claim), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, run := range runs {
		if len([]rune(run)) >= 5 && strings.Contains(hay, run) {
			return true
		}
	}
	return false
}
