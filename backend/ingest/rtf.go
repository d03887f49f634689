package ingest

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// rtfSkipped destinations hold no body text (fonts, colours, styles,
// pictures, headers, field instructions, bookmarks).
var rtfSkipped = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "pict": true, "object": true,
	"header": true, "headerl": true, "headerr": true, "headerf": true, "footer": true,
	"footerl": true, "footerr": true, "footerf": true, "themedata": true, "colorschememapping": true,
	"latentstyles": true, "datastore": true, "xmlnstbl": true, "listtable": true,
	"listoverridetable": true, "rsidtbl": true, "generator": true, "fldinst": true,
	"bkmkstart": true, "bkmkend": true, "filetbl": true, "revtbl": true, "pgdsctbl": true,
	"operator": true, "author": true, "company": true, "keywords": true, "doccomm": true,
	"subject": true, "comment": true, "category": true, "manager": true, "hlinkbase": true,
	"footnote": true, "annotation": true, "atnid": true, "atnauthor": true, "nonshppict": true,
	"shp": true, "sp": true, "mmathPr": true, "wgrffmtfilter": true, "passwordhash": true,
}

// rtfSymbols are control words that stand for one character.
var rtfSymbols = map[string]string{
	"tab": "\t", "emdash": "—", "endash": "–", "lquote": "‘", "rquote": "’",
	"ldblquote": "“", "rdblquote": "”", "bullet": "•", "emspace": " ", "enspace": " ",
	"line": "\n",
}

type rtfGroup struct {
	skip     bool
	title    bool // inside \info's \title
	ucSkip   int  // characters to skip after \uN
	codepage encoding.Encoding
}

// rtfReader holds the state of one RTF parse.
type rtfReader struct {
	src     []byte
	pos     int
	lim     limits
	stack   []rtfGroup
	para    strings.Builder // the current paragraph or table cell
	pending []byte          // \'hh bytes waiting to be decoded together (double-byte code pages)
	toSkip  int             // characters still to skip after a \uN
	// highSurrogate is the first half of a character beyond U+FFFF,
	// written as two \uN escapes.
	highSurrogate rune
	title         strings.Builder
	w             *docWriter
	table         *tableRows
	inTable       bool
	size          int
}

// extractRTF reads Rich Text Format: paragraphs as blocks, table rows as
// Markdown tables, characters decoded from \uN escapes or the document's
// code page (\ansicpg: Windows-1252, CP949, Shift_JIS, …). Headers,
// footers, footnotes, pictures and field codes are left out.
func extractRTF(data []byte, lim limits) (extracted, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \r\n\t"), []byte(`{\rtf`)) {
		return extracted{}, damaged("the RTF file does not start with {\\rtf, so it is not Rich Text; re-save it as RTF and scan again")
	}
	r := &rtfReader{src: data, lim: lim, w: newDocWriter(lim)}
	r.stack = []rtfGroup{{ucSkip: 1, codepage: charmap.Windows1252}}
	if err := r.run(); err != nil {
		return extracted{}, err
	}
	if err := r.endParagraph(); err != nil {
		return extracted{}, err
	}
	if err := r.flushTable(); err != nil {
		return extracted{}, err
	}
	ex := r.w.extracted()
	ex.title = cleanTitle(r.title.String())
	return ex, nil
}

func (r *rtfReader) top() *rtfGroup { return &r.stack[len(r.stack)-1] }

func (r *rtfReader) run() error {
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch c {
		case '{':
			r.flushBytes()
			if len(r.stack) >= r.lim.maxDepth {
				return overLimit("the RTF file nests groups more than %d levels deep; it was not indexed", r.lim.maxDepth)
			}
			r.stack = append(r.stack, *r.top())
			r.pos++
			if bytes.HasPrefix(r.src[r.pos:], []byte(`\*`)) {
				r.top().skip = true // an optional destination this reader does not know
			}
		case '}':
			r.flushBytes()
			if len(r.stack) > 1 {
				r.stack = r.stack[:len(r.stack)-1]
			}
			r.pos++
		case '\\':
			if err := r.control(); err != nil {
				return err
			}
		case '\r', '\n':
			r.pos++
		default:
			r.flushBytes()
			r.pos++
			if err := r.emit(string(rune(c))); err != nil {
				return err
			}
		}
	}
	r.flushBytes()
	return nil
}

// control reads one control word or symbol at r.pos.
func (r *rtfReader) control() error {
	r.pos++ // the backslash
	if r.pos >= len(r.src) {
		return nil
	}
	c := r.src[r.pos]
	if !isASCIILetter(c) {
		r.pos++
		switch c {
		case '\'':
			if r.pos+2 <= len(r.src) {
				if b, err := strconv.ParseUint(string(r.src[r.pos:r.pos+2]), 16, 8); err == nil {
					r.pos += 2
					if r.toSkip > 0 {
						r.toSkip--
						return nil
					}
					r.pending = append(r.pending, byte(b))
					return nil
				}
			}
			return nil
		case '~':
			return r.emit("\u00a0")
		case '_':
			return r.emit("\u2011")
		case '\\', '{', '}':
			r.flushBytes()
			return r.emit(string(rune(c)))
		case '\r', '\n':
			return r.endParagraph()
		}
		return nil
	}
	start := r.pos
	for r.pos < len(r.src) && isASCIILetter(r.src[r.pos]) && r.pos-start < 32 {
		r.pos++
	}
	word := string(r.src[start:r.pos])
	numStart := r.pos
	if r.pos < len(r.src) && r.src[r.pos] == '-' {
		r.pos++
	}
	for r.pos < len(r.src) && r.src[r.pos] >= '0' && r.src[r.pos] <= '9' && r.pos-numStart < 10 {
		r.pos++
	}
	num, hasNum := 0, r.pos > numStart
	if hasNum {
		num, _ = strconv.Atoi(string(r.src[numStart:r.pos]))
	}
	if r.pos < len(r.src) && r.src[r.pos] == ' ' {
		r.pos++ // the delimiter space belongs to the control word
	}
	if word != "u" {
		r.flushBytes()
	}
	g := r.top()
	switch {
	case rtfSkipped[word]:
		g.skip = true
	case word == "title":
		g.title = true
	case word == "ansicpg" && hasNum:
		if enc := codePage(num); enc != nil {
			for i := range r.stack {
				r.stack[i].codepage = enc
			}
		}
	case word == "uc" && hasNum:
		g.ucSkip = max(num, 0)
	case word == "u" && hasNum:
		r.flushBytes()
		if num < 0 {
			num += 65536
		}
		var err error
		switch c := rune(num); {
		case utf16.IsSurrogate(c) && c < 0xDC00:
			r.highSurrogate = c // the low half follows in the next \u
		case utf16.IsSurrogate(c):
			err = r.emit(string(utf16.DecodeRune(r.highSurrogate, c)))
			r.highSurrogate = 0
		default:
			err = r.emit(string(c))
		}
		r.toSkip = g.ucSkip
		return err
	case word == "bin" && hasNum:
		// Raw binary data (pictures, objects) of num bytes follows.
		r.pos = min(r.pos+max(num, 0), len(r.src))
	case word == "par" || word == "sect" || word == "page":
		return r.endParagraph()
	case word == "pard":
		r.inTable = false
	case word == "intbl":
		r.inTable = true
	case word == "cell":
		return r.endCell()
	case word == "row":
		if r.table != nil {
			r.table.row()
		}
	default:
		if s, ok := rtfSymbols[word]; ok {
			return r.emit(s)
		}
	}
	return nil
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// emit adds text to the current paragraph (or the title), honouring the
// characters a \uN asked to skip.
func (r *rtfReader) emit(s string) error {
	if r.toSkip > 0 {
		r.toSkip -= utf8.RuneCountInString(s)
		if r.toSkip >= 0 {
			return nil
		}
		r.toSkip = 0
	}
	g := r.top()
	switch {
	case g.title:
		r.title.WriteString(s)
	case g.skip:
		return nil
	default:
		r.para.WriteString(s)
	}
	r.size += len(s)
	if r.size > r.lim.maxText {
		return textLimitError(r.lim.maxText)
	}
	return nil
}

// flushBytes decodes the pending \'hh bytes in the group's code page.
func (r *rtfReader) flushBytes() {
	if len(r.pending) == 0 {
		return
	}
	b := r.pending
	r.pending = nil
	out, err := r.top().codepage.NewDecoder().Bytes(b)
	if err != nil {
		out = []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	_ = r.emit(string(out)) // the limit is checked again at the next character
}

func (r *rtfReader) endParagraph() error {
	r.flushBytes()
	if r.inTable {
		r.para.WriteByte(' ')
		return nil
	}
	if err := r.flushTable(); err != nil {
		return err
	}
	s := r.para.String()
	r.para.Reset()
	return r.w.block(s)
}

func (r *rtfReader) endCell() error {
	r.flushBytes()
	if r.table == nil {
		r.table = &tableRows{limit: r.lim.maxText}
		r.table.row()
	}
	s := r.para.String()
	r.para.Reset()
	return r.table.cell(s)
}

func (r *rtfReader) flushTable() error {
	if r.table == nil {
		return nil
	}
	t := r.table
	r.table = nil
	return r.w.table(t)
}

// codePage maps an RTF \ansicpg number to its decoder.
func codePage(n int) encoding.Encoding {
	switch n {
	case 949:
		return korean.EUCKR
	case 932:
		return japanese.ShiftJIS
	case 936:
		return simplifiedchinese.GBK
	case 950:
		return traditionalchinese.Big5
	case 10000:
		return charmap.Macintosh
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	case 866:
		return charmap.CodePage866
	case 20866:
		return charmap.KOI8R
	}
	if n >= 874 && n <= 1258 {
		if enc, err := htmlindex.Get("windows-" + strconv.Itoa(n)); err == nil {
			return enc
		}
	}
	return nil
}
