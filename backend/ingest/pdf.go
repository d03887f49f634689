package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFOps bounds the content-stream operators interpreted on one page; real
// pages use thousands, a hostile stream could loop for minutes.
const maxPDFOps = 5_000_000

// maxPageTreeDepth bounds the page tree walk; real trees are a few levels.
const maxPageTreeDepth = 64

// pdfAbort carries a limit error out of the library's interpreter callback.
type pdfAbort struct{ err error }

// extractPDF is the Go reader, PDFium's fallback (pdfread.go): it
// extracts text page by page. Pages are visited one at a time and
// only their text is kept, so memory grows with the text, not with the
// file's objects or fonts. Each page starts at a recorded offset, so chunks
// can be cut at page breaks and carry their page number.
func extractPDF(data []byte, lim limits) (ex extracted, err error) {
	if err := pdfPreflight(data); err != nil {
		return extracted{}, err
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(err.Error(), "encrypt") {
			return extracted{}, &fileError{msg: "the PDF is encrypted; remove the password and scan again", kind: ErrEncrypted}
		}
		return extracted{}, damaged("the PDF is damaged or truncated%s; re-save or re-download it and scan again", because(goReaderCause(err)))
	}
	defer func() {
		if p := recover(); p != nil {
			if a, ok := p.(pdfAbort); ok {
				err = a.err
				return
			}
			if r.Trailer().Key("Encrypt").Kind() != pdf.Null {
				// The password check passed but the content did not decrypt
				// (an encryption variant the reader gets wrong).
				err = &fileError{msg: "the PDF is encrypted in a way Footnote cannot read; remove the password and scan again", kind: ErrEncrypted}
				return
			}
			err = damaged("the PDF is damaged and could not be read%s; re-save it and scan again", because(goReaderCause(p)))
		}
	}()
	ex.title = cleanTitle(r.Trailer().Key("Info").Key("Title").Text())
	out := textBuilder{limit: lim.maxText}
	rd := &pdfReading{
		budget:   streamBudget{left: lim.maxDecoded, total: lim.maxDecoded, fileSize: int64(len(data))},
		encoders: map[string]pdf.TextEncoding{},
	}
	nodes := 0
	var walk func(node pdf.Value, depth int)
	walk = func(node pdf.Value, depth int) {
		nodes++
		if depth > maxPageTreeDepth || nodes > 2*lim.maxPages {
			panic(pdfAbort{damaged("the PDF's page tree is malformed (too deep or cyclic); re-save it and scan again")})
		}
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "Pages" || kids.Kind() == pdf.Array {
			for i := 0; i < kids.Len(); i++ {
				walk(kids.Index(i), depth+1)
			}
			return
		}
		if len(ex.pageStarts) >= lim.maxPages {
			panic(pdfAbort{overLimit("the PDF has more than %d pages; split it and scan again", lim.maxPages)})
		}
		if len(ex.pageStarts) > 0 {
			if out.write("\n\n") != nil {
				panic(pdfAbort{textLimitError(lim.maxText)})
			}
		}
		ex.pageStarts = append(ex.pageStarts, len(out.b))
		rd.drewImage = false
		text := rd.pageText(pdf.Page{V: node}, lim.maxText-len(out.b))
		if !hasWords(text) && rd.drewImage {
			ex.imagePages = append(ex.imagePages, len(ex.pageStarts))
		}
		if out.write(text) != nil {
			panic(pdfAbort{textLimitError(lim.maxText)})
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	ex.text = string(out.b)
	ex.pdfReader = "go"
	return ex, nil
}

func cleanTitle(s string) string {
	return strings.Join(strings.FieldsFunc(cleanText(s), isSpace), " ")
}

// pdfReading is what the pages of one PDF share: the budget for decoded
// streams and the text encodings of fonts already read, keyed by the font
// dictionary (pages usually share fonts, and a font's character map is
// worth decoding once).
type pdfReading struct {
	budget   streamBudget
	encoders map[string]pdf.TextEncoding
	// drewImage is set when the current page draws an image (Do).
	drewImage bool
}

func (rd *pdfReading) encoder(font pdf.Font) pdf.TextEncoding {
	key := font.V.String()
	if e, ok := rd.encoders[key]; ok {
		return e
	}
	rd.budget.charge(font.V.Key("ToUnicode"), "character maps")
	e := font.Encoder()
	rd.encoders[key] = e
	return e
}

// pageText interprets one page's content stream and returns its text with
// line breaks where the text position moves to another line and spaces where
// it jumps along a line. It panics with pdfAbort past a limit.
func (rd *pdfReading) pageText(p pdf.Page, budget int) string {
	contents := p.V.Key("Contents")
	if p.V.IsNull() || contents.Kind() == pdf.Null {
		return ""
	}
	rd.budget.charge(contents, "page contents")
	var (
		b        strings.Builder
		encs     = map[string]pdf.TextEncoding{}
		enc      pdf.TextEncoding
		y        float64 // vertical position of the current text line
		leading  float64
		lastY    = math.NaN()
		moved    bool // the position changed since the last shown text
		ops      int
		fontSize = 1.0
	)
	show := func(raw string) {
		if raw == "" {
			return
		}
		switch {
		case math.IsNaN(lastY):
		case math.Abs(y-lastY) > 0.5*max(fontSize, 1):
			b.WriteByte('\n')
		case moved:
			b.WriteByte(' ')
		}
		lastY, moved = y, false
		if enc == nil {
			b.WriteString(raw)
		} else {
			b.WriteString(enc.Decode(raw))
		}
		if b.Len() > budget {
			panic(pdfAbort{textLimitError(budget)})
		}
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		ops++
		if ops > maxPDFOps {
			panic(pdfAbort{overLimit("a page of the PDF has more than %d drawing operations; it was not indexed", maxPDFOps)})
		}
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT":
			y, moved = 0, true
		case "Tf":
			if n != 2 {
				return
			}
			name := args[0].Name()
			fontSize = math.Abs(args[1].Float64())
			e, ok := encs[name]
			if !ok {
				if font := p.Font(name); !font.V.IsNull() {
					e = rd.encoder(font)
				}
				encs[name] = e
			}
			enc = e
		case "TL":
			if n == 1 {
				leading = args[0].Float64()
			}
		case "Td", "TD":
			if n == 2 {
				y += args[1].Float64()
				if op == "TD" {
					leading = -args[1].Float64()
				}
				moved = true
			}
		case "Tm":
			if n == 6 {
				y, moved = args[5].Float64(), true
			}
		case "T*":
			y -= leading
			moved = true
		case "'", "\"":
			y -= leading
			moved = true
			if n > 0 {
				show(args[n-1].RawString())
			}
		case "Tj":
			if n == 1 {
				show(args[0].RawString())
			}
		case "Do":
			if n == 1 && !rd.drewImage {
				rd.drewImage = drawsImage(pageResources(p.V), args[0].Name(), 0)
			}
		case "TJ":
			if n != 1 {
				return
			}
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				item := v.Index(i)
				switch item.Kind() {
				case pdf.String:
					show(item.RawString())
				case pdf.Integer, pdf.Real:
					// A large negative adjustment is how many PDFs draw a
					// space between words.
					if item.Float64() < -200 {
						moved = true
					}
				}
			}
		}
	})
	return strings.TrimFunc(cleanText(b.String()), isSpace)
}

// pageResources is a page's resource dictionary, inherited from the page
// tree when the page has none of its own.
func pageResources(page pdf.Value) pdf.Value {
	res := page.Key("Resources")
	for p, depth := page, 0; res.IsNull() && depth < maxPageTreeDepth; depth++ {
		if p = p.Key("Parent"); p.IsNull() {
			break
		}
		res = p.Key("Resources")
	}
	return res
}

// drawsImage reports whether drawing the XObject name of res ("Do") puts an
// image on the page, directly or inside a form: a page without text that
// does is a scanned page for OCR (ocr.go); a blank page is not.
func drawsImage(res pdf.Value, name string, depth int) bool {
	x := res.Key("XObject").Key(name)
	switch x.Key("Subtype").Name() {
	case "Image":
		return true
	case "Form":
		if depth >= 3 {
			return false
		}
		inner := x.Key("Resources")
		for _, n := range inner.Key("XObject").Keys() {
			if drawsImage(inner, n, depth+1) {
				return true
			}
		}
	}
	return false
}

// goReaderCause words what the Go reader's errors say, which name its own
// structures ("malformed PDF: loading {2 0}: found {3 0}"): the kinds of
// damage a user can act on, and nothing (because drops it) for the rest.
func goReaderCause(v any) any {
	if _, ok := v.(runtime.Error); ok {
		return v
	}
	s := fmt.Sprint(v)
	switch {
	case strings.Contains(s, "not a PDF file"):
		return "it is not a PDF file"
	case strings.Contains(s, "startxref"), strings.Contains(s, "%%EOF"), strings.Contains(s, "unexpected EOF"):
		return "its end is missing"
	case strings.Contains(s, "cross-reference"), strings.Contains(s, "xref"):
		return "its table of objects is broken"
	case strings.Contains(s, "loading {"):
		return "its table of objects points at the wrong objects"
	case strings.Contains(s, "reading at offset"):
		return "it points past its own end" // pdf.js's operator_list_cycle.pdf: "reading at offset 4294967295: EOF"
	}
	return v
}
