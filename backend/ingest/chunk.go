package ingest

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/corpus"
)

// chunker packs a section's words into chunks. Counting every candidate
// chunk with a real tokenizer is slow, so each word ("piece") is counted once
// (cached), chunk sizes are estimated by summing, and only the final chunk
// text is counted exactly — and shrunk if the estimate was optimistic.
type chunker struct {
	done    context.Context // stops chunking when it ends: checked every chunk and every 4,096 words
	text    string
	docID   string
	now     time.Time
	counter TokenCounter
	limit   int // max tokens of a chunk, special tokens included
	base    int // tokens of the empty string (special tokens)
	budget  int // limit - base: what the pieces of one chunk may sum to
	// maxBytes bounds a chunk's text in bytes as well as in tokens
	// (limit·maxBytesPerToken), so no text the tokenizer is given is long.
	maxBytes int
	overlap  int
	cache    map[string]int
	runes    *runeIndex
	rows     rowLines // Markdown table rows, which chunks do not cut (chunk_table.go)
	// secContext is the current section's title and heading path
	// (chunk_context.go).
	secContext string
	chunks     []corpus.Chunk
	// occurrences counts identical chunk texts per section, so repeated text
	// gets distinct ids even when a section is chunked in several spans.
	occurrences map[string]int
}

// piece is a word (or a cut part of an over-long word) in byte offsets, with
// its estimated token contribution.
type piece struct{ start, end, est int }

func newChunker(ctx context.Context, text, docID string, counter TokenCounter, opts Options, now time.Time) (*chunker, error) {
	c := &chunker{
		done:    ctx,
		text:    text,
		docID:   docID,
		now:     now,
		counter: counter,
		limit:   min(opts.ChunkTokens, opts.MaxTokens),
		base:    counter.CountTokens(""),
		overlap: opts.overlap(),
		cache:   map[string]int{},
		runes:   newRuneIndex(text),
		rows:    tableRowLines(text),

		occurrences: map[string]int{},
	}
	c.budget = c.limit - c.base
	c.maxBytes = c.limit * maxBytesPerToken
	if c.budget < 1 {
		return nil, fmt.Errorf("a chunk size of %d tokens leaves no room for text after the tokenizer's %d special tokens; raise the chunk size", c.limit, c.base)
	}
	return c, nil
}

func (c *chunker) count(s string) int {
	if n, ok := c.cache[s]; ok {
		return n
	}
	n := c.counter.CountTokens(s)
	c.cache[s] = n
	return n
}

// section appends the chunks of one span of a section whose code-point
// bounds are secStart and secEnd (used for the context window).
func (c *chunker) section(sp span, secStart, secEnd int) error {
	ps, err := c.pieces(sp.start, sp.end)
	if err != nil || len(ps) == 0 {
		return err
	}
	i, prevEnd := 0, 0 // prevEnd: piece index where the previous chunk ended
	for {
		// The overlap plus at least one new piece must fit in the budget
		// left by the chunk's context.
		ctx, ctxTokens := c.contextAt(ps[i].start)
		if i < prevEnd && (sumEst(ps[i:prevEnd+1]) > c.budget || ps[prevEnd].end-ps[i].start > c.maxBytes) {
			i = prevEnd
			ctx, ctxTokens = c.contextAt(ps[i].start)
		}
		j := c.pickEnd(ps, i, prevEnd)
		if i < prevEnd && j < len(ps) && c.rows.insideRow(ps[j-1].end) {
			// The overlap leaves no room to end at a table row's edge:
			// whole rows matter more than the overlap.
			i = prevEnd
			ctx, ctxTokens = c.contextAt(ps[i].start)
			j = c.pickEnd(ps, i, prevEnd)
		}
		limit := c.limit - ctxTokens
		var tokens int
		for {
			tokens = c.counter.CountTokens(corpus.IndexText(ctx, c.text[ps[i].start:ps[j-1].end]))
			if tokens <= c.limit {
				break
			}
			lo := max(i, prevEnd) + 1
			if j == lo && i >= prevEnd {
				// One piece always fits alone, but not always with its
				// context: keep the text, drop the context.
				if ctx == "" {
					break
				}
				ctx, ctxTokens = "", 0
				continue
			}
			// Estimate was optimistic: shrink proportionally, dropping the
			// overlap before giving up new text.
			nj := min(i+(j-i)*limit/max(tokens-ctxTokens, 1), j-1)
			if nj < lo && i < prevEnd {
				i = prevEnd
				lo = i + 1
				ctx, ctxTokens = c.contextAt(ps[i].start)
				limit = c.limit - ctxTokens
			}
			j = max(nj, lo)
		}
		c.emit(sp, ps[i].start, ps[j-1].end, tokens, secStart, secEnd, ctx)
		if j == len(ps) {
			return nil
		}
		if err := c.done.Err(); err != nil {
			return err
		}
		prevEnd = j
		i = c.overlapStart(ps, i, j)
	}
}

// contextAt returns the context of a chunk starting at byte offset start
// and the tokens it adds, and sets the budget its text may use.
func (c *chunker) contextAt(start int) (string, int) {
	ctx := c.chunkContext(start)
	n := c.contextTokens(ctx)
	if n < 0 {
		ctx, n = c.secContext, c.contextTokens(c.secContext) // drop a too-wide header row first
		if n < 0 {
			ctx, n = "", 0
		}
	}
	c.budget = c.limit - c.base - n
	return ctx, n
}

func (c *chunker) emit(sp span, start, end, tokens, secStart, secEnd int, context string) {
	sectionID := sp.id
	text := c.text[start:end]
	key := sectionID + "\x00" + text
	occ := c.occurrences[key]
	c.occurrences[key]++
	rs, re := c.runes.at(start), c.runes.at(end)
	c.chunks = append(c.chunks, corpus.Chunk{
		SnippetID: corpus.SnippetID(c.docID, sectionID, text, occ),
		DocID:     c.docID,
		SectionID: sectionID,
		Ordinal:   len(c.chunks),
		Text:      text,
		Context:   context,
		Offsets:   corpus.Offsets{Start: rs, End: re, Unit: corpus.UnitChar},
		Tokens:    tokens,
		Window:    corpus.Window{Pre: min(maxWindow, rs-secStart), Post: min(maxWindow, secEnd-re)},
		Page:      sp.page,
		Source:    corpus.SourceCorpus,
		CreatedAt: c.now,
	})
}

func sumEst(ps []piece) int {
	n := 0
	for _, p := range ps {
		n += p.est
	}
	return n
}

// pickEnd chooses where a chunk starting at piece i ends (exclusive). It
// must include at least one piece after prevEnd, and stays within the
// token budget and maxBytes. Among ends that fill at least half the budget
// it prefers the strongest boundary (paragraph, then sentence or line,
// then word), and the latest one of that strength.
func (c *chunker) pickEnd(ps []piece, i, prevEnd int) int {
	lo := max(i, prevEnd) + 1
	sum, j := 0, i
	for j < len(ps) && (j < lo || sum+ps[j].est <= c.budget && ps[j].end-ps[i].start <= c.maxBytes) {
		sum += ps[j].est
		j++
	}
	if j == len(ps) {
		return j
	}
	best, bestQ := j, -1
	cum := 0
	for k := i + 1; k <= j; k++ {
		cum += ps[k-1].est
		if k < lo || 2*cum < c.budget && 2*(ps[k-1].end-ps[i].start) < c.maxBytes {
			continue
		}
		if q := c.boundary(ps[k-1], ps[k]); q >= bestQ {
			best, bestQ = k, q
		}
	}
	return c.rowBoundaryEnd(ps, lo, best)
}

// overlapStart picks where the next chunk starts so it repeats up to
// c.overlap tokens of the chunk ps[i:j], preferring to start at a paragraph
// or sentence. It returns j when no overlap fits.
func (c *chunker) overlapStart(ps []piece, i, j int) int {
	if c.overlap == 0 {
		return j
	}
	best, bestQ := j, -1
	sum := 0
	for k := j - 1; k > i; k-- {
		sum += ps[k].est
		if sum > c.overlap {
			break
		}
		if q := c.boundary(ps[k-1], ps[k]); q >= bestQ {
			best, bestQ = k, q
		}
	}
	return c.rowBoundaryStart(ps, best, j)
}

// boundary rates the break between two adjacent pieces: 3 paragraph,
// 2 sentence end or line break, 1 between words, 0 inside a word.
func (c *chunker) boundary(a, b piece) int {
	gap := c.text[a.end:b.start]
	switch {
	case c.rows.insideRow(a.end):
		return 0 // between cells of one table row

	case strings.Count(gap, "\n") >= 2:
		return 3
	case endsSentence(c.text[a.start:a.end]) || strings.Contains(gap, "\n"):
		return 2
	case gap != "":
		return 1
	}
	return 0
}

func endsSentence(word string) bool {
	word = strings.TrimRight(word, "\"')]}*_»”’」』")
	r, _ := utf8.DecodeLastRuneInString(word)
	return strings.ContainsRune(".!?…。！？", r)
}

// cjkStop ends a piece even without following whitespace, so scripts written
// without spaces still break at sentences.
func cjkStop(r rune) bool { return r == '。' || r == '！' || r == '？' }

// pieces splits text[start:end] into words, cutting words that alone exceed
// the chunk limit.
func (c *chunker) pieces(start, end int) ([]piece, error) {
	var ps []piece
	wordStart := -1
	flush := func(at int) error {
		if wordStart < 0 {
			return nil
		}
		var err error
		ps, err = c.addWord(ps, wordStart, at)
		wordStart = -1
		return err
	}
	for off, r := range c.text[start:end] {
		at := start + off
		if isSpace(r) {
			if err := flush(at); err != nil {
				return nil, err
			}
			if len(ps)%4096 == 0 && c.done.Err() != nil {
				return nil, c.done.Err()
			}
			continue
		}
		if wordStart < 0 {
			wordStart = at
		}
		if cjkStop(r) {
			if err := flush(at + utf8.RuneLen(r)); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(end); err != nil {
		return nil, err
	}
	return ps, nil
}

// maxBytesPerToken bounds a chunk's text, and every text the chunker
// counts, to this many bytes per token of the limit (1,600 bytes at 200
// tokens; English prose takes 5 to 6 bytes a token). The tokenizer
// library's pre-tokenizer is quadratic in the length of the text it is
// given, and a run without spaces is one word: a WordPiece tokenizer
// counts a word over 100 characters as a single unknown token, so by
// tokens alone a 40 KB hex dump fit one chunk, and counting it took 16 s.
const maxBytesPerToken = 8

// addWord appends text[a:b] as one piece, or as several when it alone
// exceeds the chunk's token or byte limit.
func (c *chunker) addWord(ps []piece, a, b int) ([]piece, error) {
	if b-a <= c.maxBytes {
		if n := c.count(c.text[a:b]); n <= c.limit {
			return append(ps, piece{a, b, max(n-c.base, 0)}), nil
		}
	}
	for a < b {
		end, n, err := c.cut(a, b)
		if err != nil {
			return nil, err
		}
		ps = append(ps, piece{a, end, max(n-c.base, 0)})
		a = end
	}
	return ps, nil
}

// cut finds a prefix text[a:end] of the long word text[a:b] that fits the
// limit, holds at least one character and at most maxBytes bytes,
// returning end and the prefix's token count. The prefix need not be the
// longest that fits, only close to it: every text given to the tokenizer
// is at most maxBytes long, and a cut costs a handful of tokenizer calls,
// so a word costs time linear in its length.
func (c *chunker) cut(a, b int) (end, tokens int, err error) {
	if most := a + c.maxBytes; most < b {
		if b = runeStart(c.text, most); b <= a {
			_, size := utf8.DecodeRuneInString(c.text[a:])
			b = a + size
		}
	}
	fitEnd, fitN := a, c.base // longest prefix known to fit
	overEnd, overN := b, 0    // shortest prefix known not to fit
	for w := 2 * c.limit; ; w *= 2 {
		e := runesAfter(c.text, a, b, w)
		n := c.counter.CountTokens(c.text[a:e])
		if n > c.limit {
			overEnd, overN = e, n
			break
		}
		fitEnd, fitN = e, n
		if e == b {
			return e, n, nil
		}
	}
	// Tokens grow about linearly with characters: aim a little under the
	// limit, and accept the first guess that fits.
	for range 4 {
		guess := runeStart(c.text, a+(overEnd-a)*c.limit*15/(overN*16))
		if guess <= fitEnd {
			break
		}
		n := c.counter.CountTokens(c.text[a:guess])
		if n <= c.limit {
			return guess, n, nil
		}
		overEnd, overN = guess, n
	}
	// Bisect what is left (rare: very uneven token lengths).
	for {
		mid := runeStart(c.text, (fitEnd+overEnd)/2)
		if mid <= fitEnd {
			// Rounding down to a rune start fell back to fitEnd; the
			// rune right after it may still be untested.
			_, size := utf8.DecodeRuneInString(c.text[fitEnd:overEnd])
			if mid = fitEnd + size; mid >= overEnd {
				break
			}
		}
		if n := c.counter.CountTokens(c.text[a:mid]); n <= c.limit {
			fitEnd, fitN = mid, n
		} else {
			overEnd = mid
		}
	}
	if fitEnd == a {
		_, size := utf8.DecodeRuneInString(c.text[a:b])
		return 0, 0, fmt.Errorf("the character %q alone exceeds the %d-token chunk limit", c.text[a:a+size], c.limit)
	}
	return fitEnd, fitN, nil
}

// runesAfter returns the byte offset n runes after a in text, at most b.
func runesAfter(text string, a, b, n int) int {
	for off := range text[a:b] {
		if n == 0 {
			return a + off
		}
		n--
	}
	return b
}

// runeStart moves the byte offset i back to the start of its rune.
func runeStart(text string, i int) int {
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}
