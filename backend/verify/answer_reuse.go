package verify

import (
	"hash/maphash"
	"strings"
	"unicode"
)

// Recognising a document that reproduces one of Footnote's stored answers
// (an answer pasted into a note, a saved chat page): a long verbatim run of
// an answer's words. Runs the answer itself copied from the passages it was
// given are not counted, or the documents an answer quotes would look like
// copies of the answer.

// ReuseShingle is the number of consecutive words hashed together; a run
// is found as consecutive matching shingles.
const ReuseShingle = 8

// MinReuseWords is the shortest verbatim run of an answer that marks a
// document as a copy: about two sentences, more than a quotation.
const MinReuseWords = 24

// StoredAnswer is what the reuse check needs of a stored answer.
type StoredAnswer struct {
	ID   string
	Text string
	// Passages are the texts the answer was given as evidence; runs the
	// answer shares with them are the documents' words, not the model's.
	Passages []string
}

// AnswerPrints holds hashed word runs of stored answers. Build it once per
// ingest run with NewAnswerPrints; Reproduces is safe for concurrent use.
type AnswerPrints struct {
	seed   maphash.Seed
	owners map[uint64]int // shingle hash → index into ids
	ids    []string
}

// maxAnswerBytes bounds the text taken from one answer, so a pathological
// stored answer cannot make every ingest slow.
const maxAnswerBytes = 32 << 10

// NewAnswerPrints hashes the word runs of answers (newest first is best:
// a shingle keeps the first answer that has it).
func NewAnswerPrints(answers []StoredAnswer) *AnswerPrints {
	p := &AnswerPrints{seed: maphash.MakeSeed(), owners: map[uint64]int{}}
	for _, a := range answers {
		text := a.Text
		if len(text) > maxAnswerBytes {
			text = text[:maxAnswerBytes]
		}
		words := reuseWords(text)
		if len(words) < MinReuseWords {
			continue // too short to be copied recognisably (a refusal, a one-liner)
		}
		quoted := map[uint64]bool{}
		for _, ps := range a.Passages {
			p.eachShingle(reuseWords(ps), func(_ int, h uint64) { quoted[h] = true })
		}
		idx := len(p.ids)
		added := false
		p.eachShingle(words, func(_ int, h uint64) {
			if quoted[h] {
				return
			}
			if _, ok := p.owners[h]; !ok {
				p.owners[h] = idx
				added = true
			}
		})
		if added {
			p.ids = append(p.ids, a.ID)
		}
	}
	return p
}

// Len is the number of answers whose words are held.
func (p *AnswerPrints) Len() int {
	if p == nil {
		return 0
	}
	return len(p.ids)
}

// Reproduces reports the longest verbatim run (in words, at least
// MinReuseWords) that text shares with one stored answer, and that
// answer's id; ok is false when there is none.
func (p *AnswerPrints) Reproduces(text string) (answerID string, words int, ok bool) {
	if p == nil || len(p.owners) == 0 {
		return "", 0, false
	}
	run, runOwner := 0, -1
	best, bestOwner := 0, -1
	p.eachShingle(reuseWords(text), func(_ int, h uint64) {
		owner, hit := p.owners[h]
		if !hit || (run > 0 && owner != runOwner) {
			run, runOwner = 0, -1
		}
		if !hit {
			return
		}
		run++
		runOwner = owner
		if run > best {
			best, bestOwner = run, owner
		}
	})
	if best == 0 {
		return "", 0, false
	}
	words = best + ReuseShingle - 1
	if words < MinReuseWords {
		return "", 0, false
	}
	return p.ids[bestOwner], words, true
}

func (p *AnswerPrints) eachShingle(words []string, fn func(i int, h uint64)) {
	if len(words) < ReuseShingle {
		return
	}
	// Each word is hashed once; a shingle's hash mixes its words' hashes
	// in order, so a word costs one string hash, not eight.
	wh := make([]uint64, len(words))
	for i, w := range words {
		wh[i] = maphash.String(p.seed, w)
	}
	for i := 0; i+ReuseShingle <= len(wh); i++ {
		var h uint64
		for _, x := range wh[i : i+ReuseShingle] {
			h = (h^x)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
			h ^= h >> 29
		}
		fn(i, h)
	}
}

// reuseWords lowercases text into its words, dropping citation markers (an
// answer pasted without them is the same answer).
func reuseWords(text string) []string {
	text = markerRe.ReplaceAllString(text, " ")
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
