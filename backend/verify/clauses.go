package verify

import "regexp"

// A claim joining several statements ("Footnote runs on Linux and updates
// itself") is supported only when each statement is, and partly supported
// when one is. Clauses are cut at coordinating conjunctions and semicolons;
// a piece with fewer than two content words is not a statement of its own
// ("Linux, macOS | and Windows") and stays with the piece before it.

var clauseBreakRe = regexp.MustCompile(`(?i),?\s+(?:and|but|while|whereas|so)\s+|;\s*|,\s*(?:which|then)\s+`)

// minClauseTerms is the fewest content words a clause must have.
const minClauseTerms = 2

// clauses groups the indexes of terms (analysed from text) by clause, or
// returns nil when the claim is one statement.
func clauses(text string, terms []term) [][]int {
	cuts := clauseBreakRe.FindAllStringIndex(text, -1)
	if len(cuts) == 0 {
		return nil
	}
	var groups [][]int
	cur, k := []int{}, 0
	for i, t := range terms {
		for k < len(cuts) && t.pos >= cuts[k][1] {
			groups = append(groups, cur)
			cur = []int{}
			k++
		}
		cur = append(cur, i)
	}
	groups = append(groups, cur)
	var out [][]int
	for _, g := range groups {
		switch {
		case len(g) >= minClauseTerms || len(out) == 0:
			out = append(out, g)
		default:
			out[len(out)-1] = append(out[len(out)-1], g...)
		}
	}
	if len(out) > 1 && len(out[0]) < minClauseTerms {
		out[1] = append(out[0], out[1]...)
		out = out[1:]
	}
	if len(out) < 2 {
		return nil
	}
	return out
}
