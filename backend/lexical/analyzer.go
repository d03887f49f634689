package lexical

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Lexical analysis for scripts FTS5's unicode61 tokenizer handles badly.
//
// Korean writes space-separated words (eojeol) made of a stem followed by
// particles: 학교에서 = 학교 + 에서. unicode61 indexes the whole eojeol, so a
// plain term query 학교 misses it. Because the stem always comes first, a
// prefix query "학교"* finds every inflected form from the ordinary word
// index (about 1.5 ms at 1M chunks), with no second index. The query side
// strips a trailing particle or verb ending (학교에서 → 학교, 설치합니다 →
// 설치; see KoreanStem) so a question written with a particle finds text
// written with another one. A trigram index was rejected:
// it cannot find 2-syllable words (the most common Korean noun length) and is
// about six times larger.
//
// Chinese and Japanese write no spaces, so unicode61 turns a whole clause
// into one token. Their Han and Kana runs are also indexed as overlapping
// character bigrams in a second, contentless FTS5 table (chunks_cjk), the
// classic CJK analyzer: a query's runs become bigram terms, so 東京 is found
// inside 東京大学に行きました.

// Analyzer describes how lexical search tokenizes and folds text: SQLite
// FTS5's unicode61 tokenizer with diacritics removed, case-insensitive,
// wrapped in its porter stemmer (English words indexed and queried by stem);
// text compatibility-normalised (NFKC: ligatures, full-width forms) on both
// sides; chunks indexed with their title and heading context;
// English stop words dropped from queries (not from the index); Korean query words as prefix queries on their particle-stripped stem; Han
// and Kana runs as character bigrams in a second FTS5 index. The index's
// tables (backend/store) are created with the matching tokenizer options.
const Analyzer = "fts5:porter(unicode61(remove_diacritics=2));nfkc;context;casefold;en:stopwords-query;ko:stem-prefix;cjk:bigram"

// MaxQueryTerms bounds the terms of one query per index, keeping it cheap.
const MaxQueryTerms = 64

// bigramScript reports runes of scripts written without spaces.
func bigramScript(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// CJKGrams returns the overlapping character bigrams of every Han/Kana run
// in text, space separated; a run of one character is kept as a unigram.
// Text without such runs yields "".
func CJKGrams(text string) string {
	var b strings.Builder
	var run []rune
	flush := func() {
		switch {
		case len(run) == 1:
			b.WriteString(string(run))
			b.WriteByte(' ')
		case len(run) > 1:
			for i := 0; i+1 < len(run); i++ {
				b.WriteString(string(run[i : i+2]))
				b.WriteByte(' ')
			}
		}
		run = run[:0]
	}
	for _, r := range text {
		if bigramScript(r) {
			run = append(run, r)
			continue
		}
		flush()
	}
	flush()
	return strings.TrimSuffix(b.String(), " ")
}

// Query holds the FTS5 terms of one user query: words for chunks_fts,
// grams for chunks_cjk. Each term is a quoted FTS5 string (Korean stems with
// a trailing *), so user text can never be parsed as FTS5 syntax; how terms
// are combined is decided in planner.go.
type Query struct {
	Words []string
	Grams []string
}

// Analyze turns free text into FTS5 terms, each distinct term once.
// Words are split the way unicode61 splits them (on anything that is not a
// letter, digit or combining mark); Korean words become prefix queries on
// their stem; Han/Kana runs become bigram terms for chunks_cjk.
func Analyze(text string) Query {
	text = norm.NFKC.String(text) // as the index is (backend/store: footnote_index_text)
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
	})
	seenWord, seenGram := map[string]bool{}, map[string]bool{}
	var words, grams []string
	addWord := func(term string) {
		if key := strings.ToLower(term); !seenWord[key] && len(words) < MaxQueryTerms {
			seenWord[key] = true
			words = append(words, term)
		}
	}
	for _, w := range fields {
		hangul, cjk := false, false
		for _, r := range w {
			hangul = hangul || isHangul(r)
			cjk = cjk || bigramScript(r)
		}
		switch {
		case hangul:
			// Words hold no quotes after the split; quoting keeps FTS5
			// keywords such as AND, OR, NOT and NEAR literal.
			addWord(`"` + KoreanStem(w) + `"*`)
		case cjk:
			for _, g := range strings.Fields(CJKGrams(w)) {
				if !seenGram[g] && len(grams) < MaxQueryTerms {
					seenGram[g] = true
					grams = append(grams, `"`+g+`"`)
				}
			}
			// Latin letters or digits inside the same field (e.g. "v2の")
			// still go to the word index.
			if rest := strings.TrimSpace(strings.Map(func(r rune) rune {
				if bigramScript(r) {
					return ' '
				}
				return r
			}, w)); rest != "" {
				for _, part := range strings.Fields(rest) {
					addWord(`"` + part + `"`)
				}
			}
		default:
			addWord(`"` + w + `"`)
		}
	}
	return Query{Words: dropStopWords(words), Grams: grams}
}

// WithSpellings returns q with each plain word that spell says is also
// written another way as one word ("fourteen" and "14", "3rd" and "third",
// "Sept" and "September": facts.Spellings, which the store passes, as facts
// itself stands on this package's Korean stemmer) turned into the OR of its
// spellings in parentheses, so a question and a text that write a value
// differently find each other. Hyphenated forms need nothing: "14-year-old"
// is indexed as the words 14, year and old.
func (q Query) WithSpellings(spell func(lower string) []string) Query {
	words := make([]string, len(q.Words))
	for i, term := range q.Words {
		words[i] = term
		w, plain := strings.CutPrefix(term, `"`)
		if !plain || !strings.HasSuffix(w, `"`) {
			continue // a Korean prefix term
		}
		w = strings.TrimSuffix(w, `"`)
		alts := spell(strings.ToLower(w))
		if len(alts) == 0 {
			continue
		}
		phrases := []string{term}
		for _, a := range alts {
			phrases = append(phrases, `"`+a+`"`)
		}
		words[i] = "(" + strings.Join(phrases, " OR ") + ")"
	}
	q.Words = words
	return q
}

// Phrases returns the quoted FTS5 phrases of one term Analyze made: the term
// itself, or each spelling of a term WithSpellings grouped. The store counts
// each phrase's rows, since bm25 weighs phrases, not terms.
func Phrases(term string) []string {
	inner, ok := strings.CutPrefix(term, "(")
	if !ok {
		return []string{term}
	}
	return strings.Split(strings.TrimSuffix(inner, ")"), " OR ")
}

// englishStopWords are function words that carry no topic: in a question
// they only add rows to score and, under bm25 over the OR of the terms,
// pull up chunks that share them (bench: -0.010 recall@1 when kept). They
// stay in the index, so a phrase still matches the text as written.
var englishStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down during each
		few for from further had has have having he her here hers herself him himself his how i if in into
		is it its itself just me more most my myself no nor not now of off on once only or other our ours
		ourselves out over own same she should so some such than that the their theirs them themselves then
		there these they this those through to too under until up very was we were what when where which
		while who whom why will with would you your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()

// IsStopWord reports whether w (any case) is one of the English stop words
// queries drop, so other packages (the answer gates) skip the same words.
func IsStopWord(w string) bool { return englishStopWords[strings.ToLower(w)] }

// dropStopWords removes quoted English stop words from words, unless that
// would leave nothing (a query such as "to be or not to be" still searches).
func dropStopWords(words []string) []string {
	kept := make([]string, 0, len(words))
	for _, w := range words {
		if !englishStopWords[strings.ToLower(strings.Trim(w, `"`))] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return words
	}
	return kept
}

// ftsQuery is the word-index part of Analyze as one OR expression.
func ftsQuery(text string) string { return strings.Join(Analyze(text).Words, " OR ") }
