package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/footnote-app/footnote/backend/corpus"
)

// maxWindow caps Chunk.Window: callers only need to know whether a little
// context exists around a chunk, not how much of a long section does.
const maxWindow = 200

// Split parses text already in memory into sections and chunks. format is
// "md"/"markdown" or "txt"/"text"; path is only used for the file-name slug
// and fallback titles. Chunk offsets count code points of text, which is
// never modified.
func Split(docID, path, format string, text string, counter TokenCounter, opts Options, now time.Time) ([]corpus.Section, []corpus.Chunk, error) {
	res, err := split(context.Background(), docID, path, format, text, counter, opts.WithDefaults(), now)
	return res.sections, res.chunks, err
}

type splitResult struct {
	title    string
	sections []corpus.Section
	chunks   []corpus.Chunk
}

// span is a section in byte offsets, before conversion to code points.
type span struct {
	start, end int
	id, title  string
	level      int
	page       int // 1-based PDF page, 0 when the format has no pages
}

func split(ctx context.Context, docID, path, format, text string, counter TokenCounter, opts Options, now time.Time) (splitResult, error) {
	if counter == nil {
		return splitResult{}, fmt.Errorf("split %s: no token counter", path)
	}
	if i := invalidUTF8At([]byte(text)); i >= 0 {
		return splitResult{}, fmt.Errorf("split %s: not valid UTF-8 at byte %d", path, i)
	}
	stem := fileStem(path)
	fileSlug := slugify(stem)
	if fileSlug == "" {
		fileSlug = "doc"
	}
	res := splitResult{title: stem}
	var spans []span
	switch strings.ToLower(format) {
	case "md", "markdown":
		var h1 string
		spans, h1 = markdownSpans(text, fileSlug, stem)
		if h1 != "" {
			res.title = h1
		}
	case "txt", "text":
		spans = []span{{start: 0, end: len(text), id: fileSlug, title: stem}}
	default:
		return splitResult{}, fmt.Errorf("split %s: unsupported format %q", path, format)
	}

	var err error
	res.sections, res.chunks, err = chunkSpans(ctx, docID, res.title, text, spans, counter, opts, now)
	if err != nil {
		return splitResult{}, fmt.Errorf("split %s: %w", path, err)
	}
	return res, nil
}

// chunkSpans turns spans into sections and chunks. Consecutive spans with the
// same id form one section (a PDF section split at page breaks); chunks never
// cross a span, so they never straddle a section or a page. Each chunk
// carries the document title and its heading path as context
// (chunk_context.go).
func chunkSpans(ctx context.Context, docID, title, text string, spans []span, counter TokenCounter, opts Options, now time.Time) ([]corpus.Section, []corpus.Chunk, error) {
	c, err := newChunker(ctx, text, docID, counter, opts, now)
	if err != nil {
		return nil, nil, err
	}
	spans = joinHeadingOnly(text, spans)
	var sections []corpus.Section
	var path headingPath
	for i := 0; i < len(spans); {
		j := i + 1
		for j < len(spans) && spans[j].id == spans[i].id {
			j++
		}
		sec := corpus.Section{
			SectionID: spans[i].id,
			Title:     spans[i].title,
			Level:     spans[i].level,
			Start:     c.runes.at(spans[i].start),
			End:       c.runes.at(spans[j-1].end),
		}
		sections = append(sections, sec)
		c.secContext = sectionContext(title, path.enter(sec.Title, sec.Level))
		for _, sp := range spans[i:j] {
			if err := c.section(sp, sec.Start, sec.End); err != nil {
				return nil, nil, fmt.Errorf("section %s: %w", sp.id, err)
			}
		}
		i = j
	}
	return sections, c.chunks, nil
}

// joinHeadingOnly folds every section that holds nothing but its heading
// into the section that follows it on the same page, so no chunk is a bare
// heading ("# Troubleshooting" followed at once by "## Ollama is not
// reachable"): the following section starts at the folded heading's line
// and its first chunk carries both headings and the text. The folded
// section stays in the outline, empty, at its heading's position. A heading-only
// section at the end of the document (or of a page) stays: it is all there is.
func joinHeadingOnly(text string, spans []span) []span {
	bare := make([]bool, len(spans)) // decided before any start moves
	for i, sp := range spans {
		bare[i] = sp.level > 0 && headingOnly(text[sp.start:sp.end])
	}
	out := make([]span, 0, len(spans))
	for i := 0; i < len(spans); i++ {
		sp := spans[i]
		if bare[i] && i+1 < len(spans) && spans[i+1].id != sp.id && spans[i+1].page == sp.page {
			spans[i+1].start = sp.start
			sp.end = sp.start // kept as an empty section at its heading, for the outline
		}
		out = append(out, sp)
	}
	return out
}

// headingOnly reports whether a section's text is its heading line alone
// (a setext underline of '=' or '-' counts as part of the heading).
func headingOnly(section string) bool {
	_, body, _ := strings.Cut(strings.TrimLeftFunc(section, isSpace), "\n")
	return strings.TrimFunc(body, func(r rune) bool { return isSpace(r) || r == '=' || r == '-' }) == ""
}

func fileStem(path string) string {
	base := filepath.Base(path)
	if base == "." || base == string(filepath.Separator) {
		return "untitled"
	}
	if stem := strings.TrimSuffix(base, filepath.Ext(base)); stem != "" {
		return stem
	}
	return base
}

// markdownSpans finds the document's top-level headings with goldmark (so
// "#" lines inside code fences are not headings) and turns them into
// sections that run from a heading's line to the next heading of any level.
// It also returns the text of the first level-1 heading.
func markdownSpans(text, fileSlug, stem string) ([]span, string) {
	src := []byte(text)
	// goldmark does not strip a byte-order mark; three spaces of the same
	// length keep a heading on the first line recognisable and offsets intact.
	if strings.HasPrefix(text, "\uFEFF") {
		copy(src, "   ")
	}
	doc := goldmark.DefaultParser().Parse(gmtext.NewReader(src))

	var hs []heading
	h1 := ""
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		pos := h.Pos()
		if pos < 0 && h.Lines().Len() > 0 {
			pos = h.Lines().At(0).Start
		}
		if pos < 0 {
			continue
		}
		pos = min(pos, len(text))
		start := strings.LastIndexByte(text[:pos], '\n') + 1
		if len(hs) > 0 && start <= hs[len(hs)-1].start {
			continue
		}
		title := headingText(h, src)
		if h1 == "" && h.Level == 1 {
			h1 = title
		}
		hs = append(hs, heading{start: start, level: h.Level, title: title})
	}

	return sectionSpans(text, fileSlug, stem, hs), h1
}

// heading is a heading found by a format parser: start is the byte offset of
// the start of its line in the document text.
type heading struct {
	start, level int
	title        string
}

// sectionSpans turns headings into sections running from a heading's line to
// the next heading of any level. A section's id is its parent's id plus the
// slug of its title (parents are the nearest preceding headings of a lower
// level; the file slug is the root), made unique with "-2", "-3"... Text
// before the first heading becomes a section named after the file when it is
// not blank or when there are no headings. Heading starts must increase.
func sectionSpans(text, fileSlug, stem string, hs []heading) []span {
	var spans []span
	used := map[string]bool{fileSlug: true}
	firstHeading := len(text)
	if len(hs) > 0 {
		firstHeading = hs[0].start
	}
	if len(hs) == 0 || strings.TrimFunc(text[:firstHeading], isSpace) != "" {
		spans = append(spans, span{start: 0, end: firstHeading, id: fileSlug, title: stem})
	}
	type level struct {
		level int
		path  string // section id of this heading
	}
	var stack []level
	for i, h := range hs {
		end := len(text)
		if i+1 < len(hs) {
			end = hs[i+1].start
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		parent := fileSlug
		if len(stack) > 0 {
			parent = stack[len(stack)-1].path
		}
		slug := slugify(h.title)
		if slug == "" {
			slug = "section"
		}
		id := parent + "/" + slug
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("%s/%s-%d", parent, slug, n)
		}
		used[id] = true
		stack = append(stack, level{level: h.level, path: id})
		spans = append(spans, span{start: h.start, end: end, id: id, title: h.title, level: h.level})
	}
	return spans
}

// headingText is the heading's visible text with inline markup removed.
func headingText(h ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch v := c.(type) {
			case *ast.Text:
				b.Write(v.Segment.Value(src))
				if v.SoftLineBreak() || v.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(v.Value)
			case *ast.AutoLink:
				b.Write(v.Label(src))
			case *ast.RawHTML:
			default:
				walk(c)
			}
		}
	}
	walk(h)
	return strings.Join(strings.FieldsFunc(b.String(), isSpace), " ")
}

// maxSlugRunes keeps ids readable when a "heading" is a whole paragraph.
const maxSlugRunes = 80

// slugify lowercases s and keeps Unicode letters, digits and combining marks
// (so Korean or Hindi headings keep their text); every other run becomes "-".
func slugify(s string) string {
	var b strings.Builder
	n := 0
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
				n++
			}
			dash = false
			if n >= maxSlugRunes {
				break
			}
			b.WriteRune(r)
			n++
			continue
		}
		dash = true
	}
	return strings.Trim(b.String(), "-")
}

// isSpace treats a byte-order mark as whitespace so no chunk starts with one.
func isSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// runeIndex converts byte offsets of a text to code-point offsets without
// keeping one entry per byte: it stores a checkpoint every runeStep bytes.
type runeIndex struct {
	text  string
	marks []runeMark
}

type runeMark struct{ byteOff, runeOff int }

const runeStep = 4096

func newRuneIndex(text string) *runeIndex {
	x := &runeIndex{text: text, marks: []runeMark{{0, 0}}}
	b, r := 0, 0
	for next := runeStep; next < len(text); next += runeStep {
		nb := next
		for nb < len(text) && !utf8.RuneStart(text[nb]) {
			nb++
		}
		r += utf8.RuneCountInString(text[b:nb])
		b = nb
		x.marks = append(x.marks, runeMark{b, r})
	}
	return x
}

// at returns the code-point offset of byte offset b (a rune boundary).
func (x *runeIndex) at(b int) int {
	i := min(b/runeStep, len(x.marks)-1)
	for x.marks[i].byteOff > b {
		i--
	}
	m := x.marks[i]
	return m.runeOff + utf8.RuneCountInString(x.text[m.byteOff:b])
}
