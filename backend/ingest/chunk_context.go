package ingest

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/corpus"
)

// A chunk is indexed and embedded with its context (corpus.Chunk.Context):
// the document title and the headings above it, so a passage under
// "Troubleshooting › Index errors" is found by a question about index
// errors even when its own sentences never say so; and, when it starts in
// the middle of a table, the table's header row, so its numbers keep their
// column names. The context is counted in the chunk's token budget and is
// never part of the chunk's text or offsets.

// contextSep separates the parts of a heading path.
const contextSep = " › "

// maxContextRunes bounds a heading path: a context is a label, not text.
const maxContextRunes = 200

// maxContextShare is the largest share of a chunk's token budget a context
// may take; a longer one (a very wide table header) is dropped for that
// chunk rather than leave no room for the text.
const maxContextShare = 4 // one quarter

// headingPath follows the headings enclosing the current section.
type headingPath struct {
	titles []string
	levels []int
}

// enter moves to a section with the given title and level (0: no heading,
// e.g. a preamble or a whole text file) and returns its path.
func (h *headingPath) enter(title string, level int) []string {
	if level <= 0 {
		return nil
	}
	for len(h.levels) > 0 && h.levels[len(h.levels)-1] >= level {
		h.titles, h.levels = h.titles[:len(h.titles)-1], h.levels[:len(h.levels)-1]
	}
	h.titles, h.levels = append(h.titles, strings.TrimSpace(title)), append(h.levels, level)
	return h.titles
}

// sectionContext is "title › heading › subheading": the document title
// first unless the first heading repeats it (a Markdown file's # title).
func sectionContext(docTitle string, path []string) string {
	var parts []string
	if t := strings.TrimSpace(docTitle); t != "" {
		parts = append(parts, t)
	}
	for _, p := range path {
		if p != "" && (len(parts) == 0 || !strings.EqualFold(p, parts[len(parts)-1])) {
			parts = append(parts, p)
		}
	}
	return clipRunes(strings.Join(parts, contextSep), maxContextRunes)
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return strings.TrimSpace(s[:k]) + "…"
		}
		i++
	}
	return s
}

// chunkContext is the context of a chunk starting at byte offset start:
// the section's context, and the header row (with its separator row) of a
// table the chunk starts inside of without holding its header.
func (c *chunker) chunkContext(start int) string {
	ctx := c.secContext
	// A header longer than a context's share of the chunk's bytes is
	// dropped before it is copied or counted (a sheet whose header is one
	// huge cell would otherwise be copied into every chunk's context).
	if h := c.rows.headerBefore(c.text, start); h != "" && len(h)*maxContextShare <= c.maxBytes {
		if ctx != "" {
			ctx += "\n"
		}
		ctx += h
	}
	return ctx
}

// contextTokens is what a context adds to a chunk's token count, or -1
// when it would take more than its share of the budget.
func (c *chunker) contextTokens(ctx string) int {
	if ctx == "" {
		return 0
	}
	if len(ctx)*maxContextShare > c.maxBytes {
		return -1
	}
	n := c.count(corpus.IndexText(ctx, "")) - c.base
	if n*maxContextShare > c.limit-c.base {
		return -1
	}
	return n
}

// headerBefore returns the header row of the table whose rows continue up
// to the row at byte offset start, with the separator row under it, when
// that header lies before start; "" when start is not at a table row or
// the chunk starts with the header itself.
func (rl rowLines) headerBefore(text string, start int) string {
	i := rl.rowAt(start)
	if i < 0 {
		return ""
	}
	first := rl.first[i]
	if first == i {
		return ""
	}
	header := text[rl.starts[first]:rl.ends[first]]
	if first+1 < i && isSeparatorRow(text[rl.starts[first+1]:rl.ends[first+1]]) {
		header = text[rl.starts[first]:rl.ends[first+1]]
	}
	return strings.TrimSpace(header)
}

// rowAt is the index of the row holding byte offset off, or -1.
func (rl rowLines) rowAt(off int) int {
	i := sort.SearchInts(rl.ends, off+1) // first row ending after off
	if i < len(rl.ends) && rl.starts[i] <= off {
		return i
	}
	return -1
}

// isSeparatorRow reports a Markdown table's |---|:--:| line.
func isSeparatorRow(line string) bool {
	line = strings.TrimSpace(line)
	return strings.Trim(line, "|-: ") == "" && strings.Contains(line, "-")
}
