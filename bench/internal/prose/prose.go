// Package prose generates deterministic English-like passages of a given
// token length for the embedding benchmarks, so every engine measured is
// given the same text.
package prose

import (
	"math/rand/v2"
	"strings"
)

// TokenCounter counts tokens as the embedding model's tokenizer does.
type TokenCounter interface{ CountTokens(text string) int }

var words = strings.Fields(`the report describes how the team installed the new database server and
configured backups for every project folder while the budget review moved to the next quarter and
customers asked for an offline search of their documents notes manuals and papers with citations that
point at the exact passage used in each answer including tables figures and appendix sections written
in plain language by engineers analysts doctors lawyers and students who keep years of records`)

// Words returns n words drawn from a small office vocabulary.
func Words(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = words[rng.IntN(len(words))]
	}
	return out
}

// Passage returns sentences of at most tokens tokens (special tokens
// included), within a few tokens of it.
func Passage(c TokenCounter, rng *rand.Rand, tokens int) string {
	var b strings.Builder
	for c.CountTokens(b.String()) < tokens {
		s := Words(rng, 6+rng.IntN(10))
		s[0] = strings.ToUpper(s[0][:1]) + s[0][1:]
		b.WriteString(strings.Join(s, " "))
		b.WriteString(". ")
	}
	w := strings.Fields(b.String())
	for len(w) > 1 && c.CountTokens(strings.Join(w, " ")) > tokens {
		w = w[:len(w)-1]
	}
	return strings.Join(w, " ")
}
