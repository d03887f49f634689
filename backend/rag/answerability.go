package rag

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/search"
)

// RefusalUnanswerable: the question's rare words are missing from the best
// passages, so they cannot answer it; the LLM was not called.
const RefusalUnanswerable = "unanswerable"

// rareTermMaxShare is the largest share of the index's chunks a word may
// occur in and still count as rare: a word in more than a tenth of the
// passages ("footnote" in its own manual) says little about which passage
// answers a question.
const rareTermMaxShare = 0.1

// minStatsChunks is the smallest index whose term statistics say which
// words are rare: in a handful of passages every word is rare, so the
// check does not refuse there.
const minStatsChunks = 20

// questionWords are function and question words, rare in documents but
// never what a question is about.
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with from into are was were been being does did done can could should
		would will shall may might must has have had you your our what which who whom whose when where why how than then
		that this these those there here not any some all each every about after before over under also only same other
		such own get got make use used using`) {
		questionWords[w] = true
	}
}

// TermStats is the index's term statistics the answerability check reads.
type TermStats interface {
	// TermDocFreq counts the chunks whose keyword entry holds word.
	TermDocFreq(ctx context.Context, word string, prefix bool) (int, error)
	// Counts returns the number of documents and chunks in the index.
	Counts(ctx context.Context) (docs, chunks int, err error)
}

// Answerability is the absolute relevance check next to the rank-based
// score gate: the share of the question's rare words (by the index's term
// statistics) that the best passages contain. Fused scores are rank-based,
// so the score gate passes any question sharing a word with the library;
// a question about something the library never mentions ("licence",
// "Android") has rare words no passage holds.
type Answerability struct {
	Stats TermStats
	// MinRareShare refuses a question when fewer than this share of its
	// rare words occur in the best passages; 0 turns the check off.
	MinRareShare float64
}

// RareTermShare returns the largest share of question's rare words one of
// the passages holds, and the rare words; a question without rare words shares 1 (the
// statistics cannot tell, so they do not refuse it).
func (a *Answerability) RareTermShare(ctx context.Context, question string, passages []search.Hit) (float64, []string, error) {
	_, chunks, err := a.Stats.Counts(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("answerability: count chunks: %w", err)
	}
	if chunks < minStatsChunks {
		return 1, nil, nil
	}
	var rare []string
	seen := map[string]bool{}
	for _, w := range indexWords(question) {
		if len([]rune(w)) < 3 || seen[w] || questionWords[w] {
			continue
		}
		seen[w] = true
		df, err := a.Stats.TermDocFreq(ctx, w, false)
		if err != nil {
			return 0, nil, fmt.Errorf("answerability: %w", err)
		}
		if float64(df) <= rareTermMaxShare*float64(chunks) {
			rare = append(rare, w)
		}
	}
	if len(rare) == 0 {
		return 1, nil, nil
	}
	focus := askedFor(question, rare)
	// The share is that of the best single passage: rare words scattered
	// over several unrelated passages ("release" in a changelog, "EPUB" in
	// the format list) do not make a passage that answers the question.
	found := 0
	for _, h := range passages {
		have := map[string]bool{}
		for _, w := range indexWords(h.Title + " " + h.SectionID + " " + h.Text) {
			have[wordStem(w)] = true
		}
		n := 0
		for _, w := range rare {
			if have[wordStem(w)] {
				n++
			}
		}
		if focus != "" && !have[wordStem(focus)] {
			continue // this passage does not name what the question asks for
		}
		found = max(found, n)
	}
	return float64(found) / float64(len(rare)), rare, nil
}

// indexWords splits text into lower-case letter-and-digit words, the way
// the keyword index does for Latin scripts.
func indexWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// wordStem folds word forms together (name, named, names; install,
// installing) so a passage that says "named" holds the question's "name".
func wordStem(w string) string {
	for _, suffix := range []string{"ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 3 {
			w = strings.TrimSuffix(w, suffix)
			break
		}
	}
	if len(w) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	if r := []rune(w); len(r) > 5 {
		w = string(r[:5])
	}
	return w
}

// askedFor returns the question's focus when it is one of its rare words:
// the first content word after a leading "which" ("Which release …",
// "Which licence …") names the kind of thing the answer must be. A
// passage that never mentions it cannot answer, however many other words
// it shares ("Which release first supported EPUB?" against the format list).
// "" when the question has no such focus or the focus is a common word.
func askedFor(question string, rare []string) string {
	words := indexWords(question)
	if len(words) < 2 || words[0] != "which" { // "what" is as often followed by a verb ("what happens")
		return ""
	}
	for _, w := range words[1:] {
		if questionWords[w] || len([]rune(w)) < 3 || w == "kind" || w == "type" || w == "sort" {
			continue
		}
		for _, r := range rare {
			if r == w {
				return w
			}
		}
		return ""
	}
	return ""
}
