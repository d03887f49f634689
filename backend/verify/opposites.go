package verify

import (
	"sort"
	"strings"
)

// Opposites: "packs more passages" against "packs fewer passages", "newest
// first" against "oldest first". Comparison and order words are stop words
// for coverage (they carry no topic), so the claim's words all match while
// the passage says the opposite. A claim's comparison word that the span
// lacks while it has the word's opposite fails the claim, as a negation
// does.

// oppositePairs are comparison, order and direction words and their
// opposites (English, and Korean surface forms).
var oppositePairs = [][2]string{
	{"more", "fewer"}, {"more", "less"}, {"most", "fewest"}, {"most", "least"},
	{"larger", "smaller"}, {"largest", "smallest"}, {"bigger", "smaller"}, {"biggest", "smallest"},
	{"higher", "lower"}, {"highest", "lowest"}, {"longer", "shorter"}, {"longest", "shortest"},
	{"faster", "slower"}, {"fastest", "slowest"}, {"older", "newer"}, {"oldest", "newest"},
	{"earlier", "later"}, {"earliest", "latest"}, {"first", "last"}, {"before", "after"},
	{"above", "below"}, {"over", "under"}, {"increase", "decrease"}, {"increases", "decreases"},
	{"maximum", "minimum"}, {"ascending", "descending"},
	{"많은", "적은"}, {"많이", "적게"}, {"큰", "작은"}, {"높은", "낮은"}, {"긴", "짧은"},
	{"이전", "이후"}, {"최신순", "오래된순"},
}

// oppositesOf maps each word to its opposites.
var oppositesOf = func() map[string][]string {
	m := map[string][]string{}
	for _, p := range oppositePairs {
		m[p[0]] = append(m[p[0]], p[1])
		m[p[1]] = append(m[p[1]], p[0])
	}
	return m
}()

// polarWords are the comparison words of s (lowercase).
func polarWords(s string) map[string]bool {
	var out map[string]bool
	for _, w := range splitWords(strings.ToLower(s)) {
		if _, ok := oppositesOf[w.text]; ok {
			if out == nil {
				out = map[string]bool{}
			}
			out[w.text] = true
		}
	}
	return out
}

// checkOpposites fails each comparison word of the claim that the span
// (its lower-case words) does not use while it uses an opposite.
func checkOpposites(claimPolar map[string]bool, spanWords map[string]bool) []Check {
	words := make([]string, 0, len(claimPolar))
	for w := range claimPolar {
		words = append(words, w)
	}
	sort.Strings(words)
	var out []Check
	for _, w := range words {
		if spanWords[w] {
			continue
		}
		for _, o := range oppositesOf[w] {
			if spanWords[o] {
				out = append(out, Check{Kind: CheckOpposite, Claim: w, Passage: o})
				break
			}
		}
	}
	return out
}
