package verify

import "math"

// TermStats gives document frequencies, so a claim's rare words (a setting's
// name, a product) weigh more than words every passage uses. The engine can
// answer from the full-text index's own vocabulary; CountStats counts a
// list of texts.
type TermStats interface {
	// DocCount is the number of passages the frequencies were counted over.
	DocCount() int
	// DocFreq is how many of those passages contain word: a lowercase word
	// as the full-text index splits text. Korean words are passed as their
	// stem (particles and endings removed) and count every word that
	// starts with it, as the index's Korean prefix queries do.
	DocFreq(word string) int
}

// CountStats counts word document frequencies over a fixed list of texts.
type CountStats struct {
	docs int
	df   map[string]int
}

var _ TermStats = (*CountStats)(nil)

// NewCountStats counts each text as one passage.
func NewCountStats(texts ...string) *CountStats {
	s := &CountStats{docs: len(texts), df: map[string]int{}}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, tm := range analyze(t) {
			if !seen[tm.word] {
				seen[tm.word] = true
				s.df[tm.word]++
			}
		}
	}
	return s
}

// DocCount is the number of texts counted.
func (s *CountStats) DocCount() int { return s.docs }

// DocFreq is the number of texts containing word.
func (s *CountStats) DocFreq(word string) int { return s.df[word] }

// lightWords are general English words that frame a statement rather than
// state it: time adverbs, light verbs, "year" and "time". A claim written
// from a passage adds them freely ("later", "eventually", "became"); the
// passage's not repeating one says little. They weigh lightWeight of
// what their rarity gives.
var lightWords = setOf(`later eventually finally originally previously initially currently recently subsequently
	ultimately reportedly officially formally actually especially particularly mainly mostly largely generally
	usually typically already together respectively instead otherwise soon early year years time times
	became become becomes becoming called known including include includes included well main certain various
	several number part due prior following followed began begun begin begins went come came way ways
	day days period role roles`)

// lightWeight scales a light word's weight.
const lightWeight = 0.4

// minTermWeight keeps words that occur everywhere from counting for nothing:
// a claim that drops the library's most common word still lost something.
const minTermWeight = 0.15

// termWeight is a word's BM25-style inverse document frequency scaled to
// (0,1]: 1 for a word no passage contains, minTermWeight at the least.
// Without statistics every content word weighs 1.
func termWeight(stats TermStats, word string) float64 {
	if stats == nil {
		return 1
	}
	n := float64(stats.DocCount())
	if n <= 0 {
		return 1
	}
	df := min(float64(stats.DocFreq(word)), n)
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	top := math.Log(1 + (n+0.5)/0.5)
	return max(idf/top, minTermWeight)
}
