package facts

import (
	"slices"
	"strconv"
	"strings"
)

// Spellings returns the other ways a number, an ordinal or a month written
// as one word is also written as one word: "fourteen" ↔ "14", "third" ↔
// "3rd", "sept" ↔ "september", "dozen" → "12". lower is one lower-case word;
// words with no other spelling, and words too ambiguous to rewrite ("one"
// is mostly a pronoun, "second" a unit of time, "may" a verb), give nil.
// Search uses it so a question and a text that write a value differently
// still find each other; the spellings come from the same tables the
// verifier reads numbers and dates with.
func Spellings(lower string) []string { return spellings[lower] }

// ambiguousSpellings are number, ordinal and month words left as written.
var ambiguousSpellings = map[string]bool{"one": true, "half": true, "second": true, "may": true}

var spellings = func() map[string][]string {
	m := map[string][]string{}
	// same records that every word of group is spelled by the others.
	same := func(group ...string) {
		for _, a := range group {
			for _, b := range group {
				if a != b && !slices.Contains(m[a], b) {
					m[a] = append(m[a], b)
				}
			}
		}
	}
	for w, v := range numberWords {
		if !ambiguousSpellings[w] && w != "dozen" && v == float64(int(v)) && !strings.ContainsFunc(w, IsHangul) {
			same(w, strconv.Itoa(int(v)))
		}
	}
	m["dozen"] = []string{"12"} // "12" reads back as "twelve"
	for w, v := range ordinalWords {
		if !ambiguousSpellings[w] {
			same(w, ordinalDigits(int(v)))
		}
	}
	for _, mo := range monthNames {
		if !ambiguousSpellings[mo] {
			same(mo, mo[:3])
		}
	}
	same("september", "sep", "sept")
	for _, s := range m {
		slices.Sort(s) // one query, one expression
	}
	return m
}()

// ordinalDigits writes n as "1st", "2nd", "3rd", "4th", "11th", "22nd".
func ordinalDigits(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
