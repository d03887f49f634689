package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

// TermDocFreq counts the chunks whose full-text entry contains word, as the
// keyword index splits text; prefix counts every word starting with it
// (Korean stems, as the index's Korean prefix queries do). It is the
// document frequency the claim verifier weighs words by.
func (s *Store) TermDocFreq(ctx context.Context, word string, prefix bool) (int, error) {
	word = strings.TrimSpace(word)
	if word == "" || strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) >= 0 {
		return 0, nil // not one index word: nothing to look up
	}
	q := `"` + word + `"`
	if prefix {
		q += "*"
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, q).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks containing %q: %w", word, err)
	}
	return n, nil
}
