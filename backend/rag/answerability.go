package rag

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/facts"
	"github.com/footnote-app/footnote/backend/lexical"
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

// usedElsewhereWeight is how much a rare word the best passage lacks but
// the library uses elsewhere counts as held, against a word the library
// never uses, which counts as missing in full: a question about something
// the library never names cannot be answered from it, while a question
// worded otherwise than its passage ("What does Obersee mean?" against 'the
// Obersee ("upper lake")') lacks a word other passages use. In a small
// library nearly every word of a question is rare, so counting the second
// kind in full refused a third of the answerable questions of the SQuAD 2.0
// held-out extract (231 passages: 98 of 302, 60 with their gold passage
// first). Measured with a reader that answers whenever a passage overlaps
// (bench/answerability, tiny test model, lexical mode; answerable /
// unanswerable questions answered), a quarter moves the sample set from
// 0.950 / 0.086 to 0.950 / 0.143, the SQuAD 2.0 dev extract from 0.798 /
// 0.729 to 0.878 / 0.850 and the held-out one from 0.669 / 0.682 to 0.844 /
// 0.811; at a half the gate refused next to nothing on SQuAD 2.0 (10 of
// its 608 dev questions, measured without the "which" focus rule), where no
// word signal tells the unanswerable questions apart (docs/evaluation.md).
const usedElsewhereWeight = 0.25

// minStatsChunks is the smallest index whose term statistics say which
// words are rare: in a handful of passages every word is rare, so the
// answerability gate does not refuse there (the score gate does: a
// question no passage shares a word with is unanswerable at any size).
const minStatsChunks = 20

// questionWords are function and question words, rare in documents but
// never what a question is about.
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with from into are was were been being does did done can could should
		would will shall may might must has have had you your our what which who whom whose when where why how than then
		that this these those there here not any some all each every about after before over under also only same other
		such own get got make use used using much many kind another`) {
		questionWords[w] = true
	}
}

// TermStats is the index's term statistics the answerability checks read.
type TermStats interface {
	// TermDocFreq counts the chunks whose keyword entry holds word (prefix:
	// words starting with it).
	TermDocFreq(ctx context.Context, word string, prefix bool) (int, error)
	// Counts returns the number of documents and chunks in the index.
	Counts(ctx context.Context) (docs, chunks int, err error)
}

// Answerability reads the question's words in the best passages, by the
// index's term statistics: how much of the question the best passage holds
// (WordEvidence.Match, what the score gate reads) and the share of its rare
// words (RareShare, what the answerability gate reads). Both look at the
// passages' words, not at how retrievers ranked them, so they mean the
// same in every retrieval mode.
type Answerability struct {
	Stats TermStats
	// MinRareShare refuses a question when fewer than this share of its
	// rare words occur in the best passage; 0 turns the check off.
	MinRareShare float64
}

// WordEvidence is what the question's words say of a set of passages.
type WordEvidence struct {
	// Judged is false when the index is empty or the question has no key
	// word: nothing is refused on words then.
	Judged bool
	// KeyWords are the question's content words in question order, each
	// weighted by how rare it is in the index (BM25's idf): a name that
	// occurs in three passages says more than "year". Rare are the key
	// words in at most a tenth of the passages, in an index large enough
	// to tell (minStatsChunks; in a handful of passages every word is rare).
	KeyWords []string
	Weights  []float64
	Rare     []string
	// Best is the passage (index into the passages given) holding the
	// largest weighted share of the key words, Match that share and Matched
	// the key words it holds; -1, 0 and none when no passage holds one.
	Best    int
	Match   float64
	Matched []string
	// RareShare is the largest share of Rare one passage holds, RareMatched
	// those words; 1 when the question has no rare word. A rare word the
	// passage lacks but the library uses elsewhere counts usedElsewhereWeight
	// of a held one; Unused are the rare words the library never uses.
	// Focus is what a "which" question asks for (askedFor): a passage that
	// does not name it counts as holding none; FocusMissed says the best
	// passage for rare words was passed over for that reason.
	RareShare   float64
	RareMatched []string
	Unused      []string
	Focus       string
	FocusMissed bool
	// Cues are what the passages say to the question's negation and the
	// years and ranks it names (questioncues.go).
	Cues cueEvidence
	// shares are each passage's weighted share of the key words.
	shares []float64
}

// Missing returns the key words of words not in have, in question order.
func missing(words, have []string) []string {
	in := map[string]bool{}
	for _, w := range have {
		in[w] = true
	}
	var out []string
	for _, w := range words {
		if !in[w] {
			out = append(out, w)
		}
	}
	return out
}

// Words measures question against passages.
func (a *Answerability) Words(ctx context.Context, question string, passages []search.Hit) (WordEvidence, error) {
	ev := WordEvidence{Best: -1, RareShare: 1}
	_, chunks, err := a.Stats.Counts(ctx)
	if err != nil {
		return ev, fmt.Errorf("answerability: count chunks: %w", err)
	}
	if chunks == 0 {
		return ev, nil
	}
	terms := keyTerms(question)
	for _, t := range terms {
		df := 0
		for _, lookup := range t.lookups() {
			n, err := a.Stats.TermDocFreq(ctx, lookup, t.prefix)
			if err != nil {
				return ev, fmt.Errorf("answerability: %w", err)
			}
			df += n // a bound on the passages holding any spelling
		}
		df = min(df, chunks)
		if df == 0 && chunks >= minStatsChunks {
			ev.Unused = append(ev.Unused, t.word)
		}
		ev.KeyWords = append(ev.KeyWords, t.word)
		ev.Weights = append(ev.Weights, math.Log(1+(float64(chunks-df)+0.5)/(float64(df)+0.5)))
		if chunks >= minStatsChunks && float64(df) <= rareTermMaxShare*float64(chunks) {
			ev.Rare = append(ev.Rare, t.word)
		}
	}
	if len(ev.KeyWords) == 0 {
		return ev, nil
	}
	ev.Judged = true
	var total float64
	for _, w := range ev.Weights {
		total += w
	}
	rare := map[string]bool{}
	for _, w := range ev.Rare {
		rare[w] = true
	}
	// The shares are those of the best single passage: words scattered
	// over several unrelated passages ("release" in a changelog, "EPUB" in
	// the format list) do not make a passage that answers the question.
	ev.Focus = askedFor(question, ev.Rare)
	qwords := indexWords(question)
	bestRare, bestAny := -1, 0
	texts, wordLists := make([]string, len(passages)), make([][]string, len(passages))
	for i, h := range passages {
		texts[i] = h.Title + " " + h.Context + " " + h.Text
		words := passageWords(texts[i])
		wordLists[i] = words.words
		var got float64
		var matched, rareMatched []string
		for j, t := range terms {
			if !t.in(words) {
				continue
			}
			got += ev.Weights[j]
			matched = append(matched, t.word)
			if rare[t.word] {
				rareMatched = append(rareMatched, t.word)
			}
		}
		ev.shares = append(ev.shares, got/total)
		if share := got / total; share > ev.Match || ev.Best < 0 && share > 0 {
			ev.Best, ev.Match, ev.Matched = i, share, matched
		}
		bestAny = max(bestAny, len(rareMatched))
		if ev.Focus != "" && !slices.Contains(rareMatched, ev.Focus) && !namesFocus(ev.Focus, h.Text, qwords) {
			rareMatched = nil // this passage does not name what the question asks for
		}
		if len(ev.Rare) > 0 && len(rareMatched) > bestRare {
			bestRare, ev.RareMatched = len(rareMatched), rareMatched
		}
	}
	if len(ev.Rare) > 0 {
		elsewhere := len(missing(missing(ev.Rare, ev.RareMatched), ev.Unused))
		ev.RareShare = (float64(len(ev.RareMatched)) + usedElsewhereWeight*float64(elsewhere)) / float64(len(ev.Rare))
		ev.FocusMissed = bestAny > max(bestRare, 0)
	}
	ev.Cues = checkCues(question, texts, wordLists, ev.shares, ev.Best)
	return ev, nil
}

// keyTerm is one key word of a question and how it is looked up and
// matched: Latin-script words by a light stem, Korean words by their stem
// without the trailing particle as a prefix, Chinese and Japanese by
// character bigrams (the keyword index's own analysis, backend/lexical).
type keyTerm struct {
	word   string // as shown: the word (a Korean stem, a CJK bigram)
	lookup string // what the index's term statistics are asked for
	prefix bool
	kind   termKind
}

type termKind int

const (
	termWord   termKind = iota // matched by wordStem
	termPrefix                 // Korean stem: a passage word starts with it
	termGram                   // CJK bigram: a substring of the passage
)

// keyTerms returns the question's distinct content words: not a function,
// stop or question word (nor the word after "how": how long, how often),
// and at least three letters or holding a digit ("50" in "Super Bowl 50").
func keyTerms(question string) []keyTerm {
	var out []keyTerm
	seen := map[string]bool{}
	add := func(t keyTerm) {
		if !seen[t.word] {
			seen[t.word] = true
			out = append(out, t)
		}
	}
	words := indexWords(question)
	for i, w := range words {
		switch {
		case strings.IndexFunc(w, isCJK) >= 0:
			for _, g := range strings.Fields(lexical.CJKGrams(w)) {
				add(keyTerm{word: g, lookup: g, kind: termGram})
			}
		case strings.IndexFunc(w, isHangul) >= 0:
			if stem := koreanStem(w); len([]rune(stem)) >= 2 && !koreanQuestionWord(stem) {
				add(keyTerm{word: stem, lookup: stem, prefix: true, kind: termPrefix})
			}
		case questionWords[w] || lexical.IsStopWord(w) || len([]rune(w)) < 3 && strings.IndexFunc(w, unicode.IsDigit) < 0:
		case i > 0 && words[i-1] == "how": // what is asked: how long, how often, how old
		default:
			add(keyTerm{word: w, lookup: w, kind: termWord})
		}
	}
	return out
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// koreanParticles are the keyword index's (lexical.KoreanParticles),
// longest first.
var koreanParticles = lexical.KoreanParticles()

// koreanStem strips one trailing particle when at least two syllables stay,
// as the keyword index's query analysis does (backend/lexical), so the stem
// prefixes every inflected form of the word in a passage.
func koreanStem(word string) string {
	for _, p := range koreanParticles {
		if stem, ok := strings.CutSuffix(word, p); ok && len([]rune(stem)) >= 2 {
			return stem
		}
	}
	return word
}

// koreanQuestionWord reports Korean interrogatives (무엇, 누구, 언제, 어디,
// 어느, 어떤, 어떻게, 얼마, 무슨, 몇): what a question asks, never what it is about.
func koreanQuestionWord(stem string) bool {
	for _, q := range []string{"무엇", "누구", "언제", "어디", "어느", "어떤", "어떻", "얼마", "무슨", "몇"} {
		if strings.HasPrefix(stem, q) {
			return true
		}
	}
	return false
}

// wordSet is a passage's words, stemmed, with its text for the
// substring and prefix matches.
type wordSet struct {
	stems map[string]bool
	words []string
	text  string
}

func passageWords(text string) wordSet {
	s := wordSet{stems: map[string]bool{}, text: strings.ToLower(text)}
	s.words = indexWords(text)
	for _, w := range s.words {
		s.stems[wordStem(w)] = true
	}
	return s
}

func (t keyTerm) in(s wordSet) bool {
	switch t.kind {
	case termGram:
		return strings.Contains(s.text, t.word)
	case termPrefix:
		for _, w := range s.words {
			if strings.HasPrefix(w, t.word) {
				return true
			}
		}
		return false
	}
	for _, w := range t.lookups() {
		if s.stems[wordStem(w)] {
			return true
		}
	}
	return false
}

// lookups are the spellings of the term the index and a passage may hold:
// a number, ordinal or month word also in its other one-word form
// ("fourteen" and "14"), as search matches them (facts.Spellings).
func (t keyTerm) lookups() []string {
	if t.kind != termWord {
		return []string{t.lookup}
	}
	return append([]string{t.lookup}, facts.Spellings(t.lookup)...)
}

// indexWords splits text into lower-case letter-and-digit words, the way
// the keyword index does for Latin scripts, accents dropped as the index
// drops them ("Rély" is "rely").
func indexWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(facts.FoldMarks(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// wordStem folds word forms together (name, named, names; install,
// installing) so a passage that says "named" holds the question's "name".
func wordStem(w string) string {
	if stem, ok := strings.CutSuffix(w, "ies"); ok && len(stem) >= 3 { // empties, empty
		w = stem + "y"
	} else if stem, ok := strings.CutSuffix(w, "ied"); ok && len(stem) >= 3 { // emptied
		w = stem + "y"
	}
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
// the content word right after a leading "which" ("Which release …",
// "Which licence …") names the kind of thing the answer must be. A
// passage that never mentions it cannot answer, however many other words
// it shares ("Which release first supported EPUB?" against the format list).
// A name before the kind qualifies it ("Which Louisiana venue": venue);
// "Which is older …", "Which two courts …" ask for no kind. "" when the
// question has no such focus or the focus is a common word.
func askedFor(question string, rare []string) string {
	words := indexWords(question)
	if len(words) < 2 || words[0] != "which" { // "what" is as often followed by a verb ("what happens")
		return ""
	}
	// Split as indexWords splits, so cased[i] is words[i] as written.
	cased := strings.FieldsFunc(facts.FoldMarks(question), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	for i, w := range words[1:] {
		switch {
		case w == "kind" || w == "type" || w == "sort" || w == "of":
			continue
		case i+1 < len(cased) && unicode.IsUpper([]rune(cased[i+1])[0]):
			continue // a name qualifying the kind
		case questionWords[w] || lexical.IsStopWord(w) || len([]rune(w)) < 3 || isNumberWord(w):
			return ""
		case slices.Contains(rare, w):
			return w
		}
		return ""
	}
	return ""
}

// isNumberWord reports a number in digits or words ("two", "1990").
func isNumberWord(w string) bool {
	_, spelled := facts.NumberWord(w)
	return spelled || strings.ContainsFunc(w, unicode.IsDigit)
}

// nameKinds are kinds of thing a passage names without the kind's word:
// it says "Gerald Ford", not "the president Gerald Ford"; valueKinds are
// kinds a passage states as a number or date ("in 1973").
var nameKinds, valueKinds = map[string]bool{}, map[string]bool{}

func init() {
	for _, w := range strings.Fields(`actor actress army artist author band bishop building church city club company
		composer country county director dynasty emperor empire family film general group hotel king leader man
		manufacturer minister network newspaper organisation organization party person philosopher place player
		poet politician pope president prince province queen region river ruler scientist ship singer song state
		station team town tribe university venue woman writer`) {
		nameKinds[w] = true
	}
	for _, w := range strings.Fields(`year years month day date century decade season age number amount percentage`) {
		valueKinds[w] = true
	}
}

// namesFocus reports whether a passage's text names what a "which"
// question asks for (focus): its word, or for a kind a passage names
// without it, a name the question does not hold (nameKinds) or a number
// or date (valueKinds).
func namesFocus(focus, passage string, question []string) bool {
	switch {
	case nameKinds[focus]:
		return namesOtherThan(passage, question)
	case valueKinds[focus]:
		return len(facts.Quantities(passage)) > 0
	}
	return false
}

// namesOtherThan reports whether text holds a capitalised word, not the
// first of a sentence, that is not among words (lower-case).
func namesOtherThan(text string, words []string) bool {
	fields := strings.Fields(text)
	for i, f := range fields {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if w == "" || !unicode.IsUpper([]rune(w)[0]) || i == 0 || strings.HasSuffix(fields[i-1], ".") {
			continue
		}
		if !slices.Contains(words, strings.ToLower(facts.FoldMarks(w))) { // words are indexWords: folded
			return true
		}
	}
	return false
}
