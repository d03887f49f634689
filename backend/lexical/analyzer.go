package store

import (
	"context"
	"database/sql"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lexical analysis for scripts FTS5's unicode61 tokenizer handles badly.
//
// Korean writes space-separated words (eojeol) made of a stem followed by
// particles: 학교에서 = 학교 + 에서. unicode61 indexes the whole eojeol, so a
// plain term query 학교 misses it. Because the stem always comes first, a
// prefix query "학교"* finds every inflected form from the ordinary word
// index (about 1.5 ms at 1M chunks), with no second index. The query side
// strips a trailing particle (학교에서 → 학교) so a question written with a
// particle finds text written with another one. A trigram index was rejected:
// it cannot find 2-syllable words (the most common Korean noun length) and is
// about six times larger.
//
// Chinese and Japanese write no spaces, so unicode61 turns a whole clause
// into one token. Their Han and Kana runs are also indexed as overlapping
// character bigrams in a second, contentless FTS5 table (chunks_cjk), the
// classic CJK analyzer: a query's runs become bigram terms, so 東京 is found
// inside 東京大学に行きました.

const (
	// createCJK is a contentless table: the bigrams are derived from
	// chunks.text by footnote_cjk_grams, so there is nothing worth storing.
	createCJK = `CREATE VIRTUAL TABLE chunks_cjk USING fts5(
		grams,
		content = '',
		contentless_delete = 1,
		tokenize = 'unicode61 remove_diacritics 2'
	)`
	createCJKTriggers = `
	CREATE TRIGGER chunks_cjk_ai AFTER INSERT ON chunks
	WHEN footnote_cjk_grams(new.text) != '' BEGIN
		INSERT INTO chunks_cjk(rowid, grams) VALUES (new.id, footnote_cjk_grams(new.text));
	END;
	CREATE TRIGGER chunks_cjk_ad AFTER DELETE ON chunks BEGIN
		DELETE FROM chunks_cjk WHERE rowid = old.id;
	END;
	CREATE TRIGGER chunks_cjk_au AFTER UPDATE OF text ON chunks BEGIN
		DELETE FROM chunks_cjk WHERE rowid = old.id;
		INSERT INTO chunks_cjk(rowid, grams)
			SELECT new.id, footnote_cjk_grams(new.text) WHERE footnote_cjk_grams(new.text) != '';
	END;`
)

// migrateRetrieval (schema version 2) adds the CJK bigram index and fills it
// from the chunks already indexed.
func migrateRetrieval(ctx context.Context, tx *sql.Tx) error {
	stmts := []string{
		createCJK,
		createCJKTriggers,
		`INSERT INTO chunks_cjk(rowid, grams)
			SELECT id, footnote_cjk_grams(text) FROM chunks WHERE footnote_cjk_grams(text) != ''`,
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, upsertMeta, metaAnalyzer, Analyzer)
	return err
}

// bigramScript reports runes of scripts written without spaces.
func bigramScript(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// cjkGrams returns the overlapping character bigrams of every Han/Kana run
// in text, space separated; a run of one character is kept as a unigram.
// Text without such runs yields "".
func cjkGrams(text string) string {
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

// koreanParticles are postpositions and common endings stripped from the end
// of a query word, longest first so 에서부터 wins over 부터.
var koreanParticles = func() []string {
	ps := []string{
		"에서부터", "으로부터", "에게서", "한테서", "으로서", "으로써", "이라고", "에서는", "에게는",
		"에서", "에게", "한테", "께서", "으로", "로서", "로써", "부터", "까지", "처럼", "보다",
		"마다", "조차", "만큼", "이나", "이랑", "하고", "라고", "에는", "와", "과", "은", "는",
		"이", "가", "을", "를", "의", "에", "도", "로", "만", "랑", "요",
	}
	sort.SliceStable(ps, func(i, j int) bool {
		return utf8.RuneCountInString(ps[i]) > utf8.RuneCountInString(ps[j])
	})
	return ps
}()

// KoreanParticles returns the particles and endings the analyzer strips from
// Korean words, longest first, so other packages (the answer cache) split
// Korean words the same way.
func KoreanParticles() []string { return slices.Clone(koreanParticles) }

// koreanStem strips one trailing particle when at least two syllables stay,
// so short nouns such as 아이 or 나라 are not cut down to a single syllable
// that would prefix-match half the index.
func koreanStem(word string) string {
	for _, p := range koreanParticles {
		if stem, ok := strings.CutSuffix(word, p); ok && utf8.RuneCountInString(stem) >= 2 {
			return stem
		}
	}
	return word
}

// lexQuery holds the FTS5 terms of one user query: words for chunks_fts,
// grams for chunks_cjk. Each term is a quoted FTS5 string (Korean stems with
// a trailing *), so user text can never be parsed as FTS5 syntax; how terms
// are combined is decided in lexical.go.
type lexQuery struct {
	words []string
	grams []string
}

// analyzeQuery turns free text into FTS5 terms, each distinct term once.
// Words are split the way unicode61 splits them (on anything that is not a
// letter, digit or combining mark); Korean words become prefix queries on
// their stem; Han/Kana runs become bigram terms for chunks_cjk.
func analyzeQuery(text string) lexQuery {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
	})
	seenWord, seenGram := map[string]bool{}, map[string]bool{}
	var words, grams []string
	addWord := func(term string) {
		if key := strings.ToLower(term); !seenWord[key] && len(words) < maxQueryTerms {
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
			addWord(`"` + koreanStem(w) + `"*`)
		case cjk:
			for _, g := range strings.Fields(cjkGrams(w)) {
				if !seenGram[g] && len(grams) < maxQueryTerms {
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
	return lexQuery{words: words, grams: grams}
}

// ftsQuery is the word-index part of analyzeQuery as one OR expression.
func ftsQuery(text string) string { return strings.Join(analyzeQuery(text).words, " OR ") }
