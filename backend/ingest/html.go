package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// extractHTMLFile decodes an HTML file's bytes to UTF-8 and extracts its
// text. Valid UTF-8 is used as is; otherwise a byte-order mark or <meta>
// charset decides; without either the charset is detected. Bytes that still
// do not decode become U+FFFD. The fallbacks are reported as notes.
func extractHTMLFile(data []byte, lim limits) (extracted, error) {
	src, charsetName, note := decodeHTML(data)
	page, err := extractHTML(src, lim.maxText, lim.maxDepth)
	if err != nil {
		return extracted{}, err
	}
	ex := extracted{text: page.text, title: page.title, headings: page.headings, charset: charsetName}
	if note != "" {
		ex.notes = append(ex.notes, note)
	}
	return ex, nil
}

// charsetDeclaration finds a charset declared in an HTML file's first bytes
// (<meta charset>, http-equiv or an XML declaration's encoding).
var charsetDeclaration = regexp.MustCompile(`(?i)(charset|encoding)\s*=\s*["']?\s*[a-z0-9_-]`)

func declaresCharset(data []byte) bool {
	return charsetDeclaration.Match(data[:min(len(data), 4096)])
}

// decodeHTML returns the page as UTF-8, the charset it was decoded from
// ("" for UTF-8) and a note for the ingest report.
func decodeHTML(data []byte) (text, charsetName, note string) {
	enc, name, certain := charset.DetermineEncoding(data, "")
	if !certain && utf8.Valid(data) {
		return string(data), "", ""
	}
	if enc == encoding.Nop || name == "utf-8" {
		bad := invalidUTF8At(data)
		if bad < 0 {
			return strings.TrimPrefix(string(data), "\uFEFF"), "", ""
		}
		return strings.ToValidUTF8(string(data), "\uFFFD"), "", fmt.Sprintf("not valid UTF-8 at byte %d; invalid bytes were replaced with \uFFFD", bad)
	}
	if !certain && !declaresCharset(data) {
		// No declaration: the charset is detected, not assumed to be
		// Windows-1252 (Korean pages are often EUC-KR, Russian KOI8-R).
		how := "detected"
		if detected, denc := detectCharset(data); denc != nil {
			enc, name = denc, detected
		} else {
			how = "not recognised with confidence; assumed" // the HTML standard's default
		}
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil {
			return strings.ToValidUTF8(string(data), "\uFFFD"), "", fmt.Sprintf("could not decode as %s; invalid bytes were replaced with \uFFFD", name)
		}
		return strings.ToValidUTF8(string(out), "\uFFFD"), name, fmt.Sprintf("not valid UTF-8 and no charset declared; %s and decoded as %s (if the text looks wrong, add <meta charset> or save the file as UTF-8)", how, name)
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD"), "", fmt.Sprintf("could not decode as %s; invalid bytes were replaced with \uFFFD", name)
	}
	text = strings.TrimPrefix(strings.ToValidUTF8(string(out), "\uFFFD"), "\uFEFF")
	if certain {
		return text, name, "" // a byte-order mark is an explicit declaration
	}
	return text, name, fmt.Sprintf("not valid UTF-8; decoded as %s", name)
}

// htmlPage is the text of one HTML document.
type htmlPage struct {
	text     string
	title    string // <title>, else the first <h1>
	headings []heading
}

// Elements whose content is never visible text.
var htmlDropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Canvas: true, atom.Audio: true, atom.Video: true, atom.Select: true, atom.Button: true,
}

// Elements that start a paragraph (a blank line) or a line.
var htmlParagraph = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Header: true,
	atom.Footer: true, atom.Nav: true, atom.Aside: true, atom.Main: true, atom.Blockquote: true,
	atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Table: true, atom.Pre: true, atom.Hr: true,
	atom.Figure: true, atom.Form: true, atom.Fieldset: true, atom.Address: true, atom.Details: true,
	atom.Body: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
}

var htmlLine = map[atom.Atom]bool{
	atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true, atom.Br: true, atom.Figcaption: true,
	atom.Summary: true, atom.Caption: true, atom.Legend: true, atom.Option: true,
}

// impliedEnd returns the stack index of an open element that starting a
// would close, as HTML parsers do for unclosed <p>, <li>, <td> and the like
// (so sloppy but common markup does not count as deep nesting), or -1.
func impliedEnd(stack []atom.Atom, a atom.Atom) int {
	var closes, scope []atom.Atom
	switch a {
	case atom.Li:
		closes, scope = []atom.Atom{atom.Li}, []atom.Atom{atom.Ul, atom.Ol}
	case atom.Dt, atom.Dd:
		closes, scope = []atom.Atom{atom.Dt, atom.Dd}, []atom.Atom{atom.Dl}
	case atom.Tr:
		closes, scope = []atom.Atom{atom.Tr}, []atom.Atom{atom.Table, atom.Tbody, atom.Thead, atom.Tfoot}
	case atom.Td, atom.Th:
		closes, scope = []atom.Atom{atom.Td, atom.Th}, []atom.Atom{atom.Tr, atom.Table}
	case atom.Option:
		closes, scope = []atom.Atom{atom.Option}, []atom.Atom{atom.Select}
	}
	for i := len(stack) - 1; i >= 0 && closes != nil; i-- {
		if slices.Contains(closes, stack[i]) {
			return i
		}
		if slices.Contains(scope, stack[i]) {
			break
		}
	}
	// A block element closes an open <p> (through inline elements only).
	if htmlParagraph[a] || htmlLine[a] {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i] == atom.P {
				return i
			}
			if htmlParagraph[stack[i]] || htmlLine[stack[i]] || stack[i] == atom.Td || stack[i] == atom.Th {
				break
			}
		}
	}
	return -1
}

func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// htmlWriter builds readable text: collapsed whitespace, blank lines between
// blocks, line breaks for list items and table rows.
type htmlWriter struct {
	out     textBuilder
	pending int  // 0 none, 1 line break, 2 blank line before the next text
	space   bool // a collapsed space is owed before the next word
}

func (w *htmlWriter) brk(n int) { w.pending = max(w.pending, n); w.space = false }

// text writes visible text; pre keeps its whitespace.
func (w *htmlWriter) text(s string, pre bool) error {
	s = cleanText(s)
	if pre {
		if s == "" {
			return nil
		}
		if err := w.flush(); err != nil {
			return err
		}
		return w.out.write(s)
	}
	start := -1
	for i, r := range s {
		if !isSpace(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if err := w.word(s[start:i]); err != nil {
				return err
			}
			start = -1
		}
		w.space = true
	}
	if start >= 0 {
		return w.word(s[start:])
	}
	return nil
}

func (w *htmlWriter) word(word string) error {
	if err := w.flush(); err != nil {
		return err
	}
	if w.space && len(w.out.b) > 0 && w.out.b[len(w.out.b)-1] != '\n' {
		if err := w.out.write(" "); err != nil {
			return err
		}
	}
	w.space = false
	return w.out.write(word)
}

// flush writes an owed line break, never at the very start of the text.
func (w *htmlWriter) flush() error {
	if w.pending == 0 {
		return nil
	}
	n := w.pending
	w.pending = 0
	w.space = false
	if len(w.out.b) == 0 {
		return nil
	}
	// Trailing spaces before a break are noise.
	w.out.b = bytes.TrimRight(w.out.b, " \t")
	trail := len(w.out.b) - len(bytes.TrimRight(w.out.b, "\n"))
	if trail < n {
		return w.out.write(strings.Repeat("\n", n-trail))
	}
	return nil
}

// extractHTML extracts visible text from decoded HTML with the streaming
// tokenizer: dropped elements (scripts, styles, ...) are skipped, blocks
// become line breaks, entities are decoded by the tokenizer. Nesting deeper
// than maxDepth fails the file rather than risking runaway recursion in
// later consumers.
func extractHTML(src string, maxText, maxDepth int) (htmlPage, error) {
	z := html.NewTokenizer(strings.NewReader(src))
	w := &htmlWriter{out: textBuilder{limit: maxText}}
	var (
		page      htmlPage
		stack     []atom.Atom // open non-void elements
		dropDepth = -1        // stack depth where a dropped element opened
		preDepth  = -1
		inTitle   bool
		title     strings.Builder
		hLevel    int // level of the open heading, 0 when none
		hDepth    int
		hStart    = -1
		hText     strings.Builder
		firstH1   string
		seenTitle bool
		table     = htmlTable{idx: -1}
		tableErr  error
	)
	pop := func(to int) {
		if table.open() && table.idx >= to && tableErr == nil {
			tableErr = table.end(w)
		}
		stack = stack[:to]
		if dropDepth >= len(stack) {
			dropDepth = -1
		}
		if preDepth >= len(stack) {
			preDepth = -1
		}
		if hLevel > 0 && hDepth >= len(stack) {
			t := strings.Join(strings.FieldsFunc(hText.String(), isSpace), " ")
			if hStart >= 0 && t != "" {
				page.headings = append(page.headings, heading{start: hStart, level: hLevel, title: t})
				if hLevel == 1 && firstH1 == "" {
					firstH1 = t
				}
			}
			hLevel, hStart = 0, -1
			hText.Reset()
			w.brk(2)
		}
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != nil && !errors.Is(err, io.EOF) {
				return htmlPage{}, damaged("the HTML could not be read%s; re-save it and scan again", because(err))
			}
			pop(0)
			if tableErr != nil {
				return htmlPage{}, textLimitError(maxText)
			}
			page.text = string(bytes.TrimRight(w.out.b, " \t\n"))
			page.title = strings.Join(strings.FieldsFunc(title.String(), isSpace), " ")
			if page.title == "" {
				page.title = firstH1
			}
			return page, nil
		case html.TextToken:
			raw := cleanText(string(z.Text()))
			if inTitle && !seenTitle && (dropDepth < 0 || stack[dropDepth] == atom.Head) {
				title.WriteString(raw)
				continue
			}
			if dropDepth >= 0 {
				continue
			}
			if hLevel > 0 && hStart < 0 && !table.open() && strings.TrimFunc(raw, isSpace) != "" {
				if err := w.flush(); err != nil {
					return htmlPage{}, textLimitError(maxText)
				}
				hStart = len(w.out.b)
			}
			if hLevel > 0 {
				hText.WriteString(raw)
			}
			if err := w.text(raw, preDepth >= 0); err != nil {
				return htmlPage{}, textLimitError(maxText)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title {
				inTitle = true
				continue
			}
			if htmlParagraph[a] {
				w.brk(2)
			} else if htmlLine[a] {
				w.brk(1)
			} else if a == atom.Td || a == atom.Th {
				w.space = true
			}
			// The tokenizer reads the content of <script/> and the like as
			// raw text even when self-closed, so they must open a dropped
			// element to keep that text out.
			if (tt == html.SelfClosingTagToken && !rawText(a)) || isVoid(a) {
				continue
			}
			if i := impliedEnd(stack, a); i >= 0 {
				pop(i)
			}
			if len(stack) >= maxDepth {
				return htmlPage{}, overLimit("the HTML nests elements more than %d levels deep; it was not indexed", maxDepth)
			}
			stack = append(stack, a)
			if htmlDropped[a] && dropDepth < 0 {
				dropDepth = len(stack) - 1
			}
			if a == atom.Pre && preDepth < 0 {
				preDepth = len(stack) - 1
			}
			if dropDepth < 0 {
				var err error
				switch {
				case a == atom.Table && !table.open():
					err = table.start(w, len(stack)-1, maxText)
				case table.open() && (a == atom.Tr || a == atom.Td || a == atom.Th):
					err = table.element(w, stack, a)
				}
				if err != nil {
					return htmlPage{}, textLimitError(maxText)
				}
			}
			if l := headingLevel(a); l > 0 && hLevel == 0 && dropDepth < 0 && !table.open() {
				hLevel, hDepth, hStart = l, len(stack)-1, -1
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title {
				if inTitle {
					seenTitle = true
				}
				inTitle = false
				continue
			}
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] == a {
					pop(i)
					break
				}
			}
			if htmlParagraph[a] {
				w.brk(2)
			} else if htmlLine[a] {
				w.brk(1)
			}
		}
	}
}

func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// rawText reports the elements whose content the tokenizer reads as raw text.
func rawText(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Textarea, atom.Title, atom.Xmp, atom.Iframe,
		atom.Noembed, atom.Noframes, atom.Noscript, atom.Plaintext:
		return true
	}
	return false
}
