package ingest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// OpenDocument text (ODT) and spreadsheets (ODS) share one content.xml
// vocabulary: text:h headings, text:p paragraphs and table:table tables.
// odfContent turns that body into a document; ODT and ODS differ only in
// what their files must contain (odt.go, ods.go).

// odfSkipped elements hold no body text: comments, the deleted text of
// tracked changes, footnote bodies (which would cut sentences in two) and
// the sheet's shapes.
var odfSkipped = map[string]bool{
	"annotation": true, "tracked-changes": true, "note": true, "shapes": true,
	"forms": true, "sequence-decls": true, "variable-decls": true, "user-field-decls": true,
}

// maxRepeat caps how often a repeated non-empty row or cell is written: a
// sheet can legally repeat a row a million times.
const maxRepeat = 100

type odfTable struct {
	rows       tableRows
	rowRepeat  int
	cellRep    int
	emptyCells int // empty cells seen since the row's last cell with text
	cell       strings.Builder
	inCell     bool
}

// extractODF opens an OpenDocument package and reads content.xml; kind
// names the format in messages.
func extractODF(f io.ReaderAt, size int64, lim limits, kind string, sheets bool) (extracted, error) {
	z, err := openZip(f, size, lim, kind)
	if err != nil {
		return extracted{}, err
	}
	if odfEncrypted(z) {
		return extracted{}, &fileError{msg: fmt.Sprintf("the %s file is password-protected; remove the password and scan again", kind), kind: ErrEncrypted}
	}
	content, err := z.read("content.xml")
	if errors.Is(err, errNoEntry) {
		return extracted{}, damaged("the %s file has no content.xml, so it is not an OpenDocument file; re-save it and scan again", kind)
	}
	if err != nil {
		return extracted{}, err
	}
	ex, err := odfContent(content, lim, sheets)
	if err != nil {
		return extracted{}, err
	}
	if t, err := odfMetaTitle(z, lim); err == nil && t != "" {
		ex.title = t
	}
	return ex, nil
}

// odfEncrypted reports a password-protected OpenDocument package: its
// manifest gives encryption data for the entries it lists (content.xml
// among them), whose bytes are then ciphertext, not XML.
func odfEncrypted(z *safeZip) bool {
	manifest, err := z.read("META-INF/manifest.xml")
	return err == nil && bytes.Contains(manifest, []byte("encryption-data"))
}

// odfContent walks content.xml. Paragraphs nest (a frame's text box inside
// a paragraph), so open ones are a stack; only the outermost table makes
// rows, an inner table's text joins its cell.
func odfContent(data []byte, lim limits, sheets bool) (extracted, error) {
	var (
		w      = newDocWriter(lim)
		paras  []*strings.Builder
		levels []int // heading level per open paragraph; 0 for text:p
		tables []*odfTable
		skip   int // depth inside a skipped element
		inBody bool
	)
	text := func(s string) error {
		if len(paras) == 0 {
			return nil
		}
		p := paras[len(paras)-1]
		p.WriteString(s)
		if p.Len() > lim.maxText {
			return textLimitError(lim.maxText)
		}
		return nil
	}
	err := xmlTokens(data, lim.maxDepth, "content.xml", func(tok xml.Token) error {
		if skip > 0 {
			switch tok.(type) {
			case xml.StartElement:
				skip++
			case xml.EndElement:
				skip--
			}
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if name == "body" {
				inBody = true
			}
			if !inBody {
				return nil
			}
			if odfSkipped[name] {
				skip = 1
				return nil
			}
			switch name {
			case "p", "h":
				level := 0
				if name == "h" {
					level = 1
					if n, err := strconv.Atoi(attr(t, "outline-level")); err == nil && n > 0 {
						level = min(n, 9)
					}
				}
				paras = append(paras, &strings.Builder{})
				levels = append(levels, level)
			case "s":
				n, err := strconv.Atoi(attr(t, "c"))
				if err != nil || n < 1 {
					n = 1
				}
				return text(strings.Repeat(" ", min(n, 100)))
			case "tab":
				return text("\t")
			case "line-break":
				return text("\n")
			case "table":
				if len(tables) == 0 && sheets {
					if err := w.heading(1, attr(t, "name")); err != nil {
						return err
					}
				}
				tables = append(tables, &odfTable{rows: tableRows{limit: lim.maxText}})
			case "table-row":
				if len(tables) == 1 {
					tables[0].rows.row()
					tables[0].emptyCells = 0
					tables[0].rowRepeat = repeatCount(attr(t, "number-rows-repeated"))
				}
			case "table-cell", "covered-table-cell":
				if len(tables) == 1 {
					tb := tables[0]
					tb.inCell, tb.cellRep = true, repeatCount(attr(t, "number-columns-repeated"))
					tb.cell.Reset()
				}
			}
		case xml.EndElement:
			name := t.Name.Local
			if name == "body" {
				inBody = false
			}
			if !inBody {
				return nil
			}
			switch name {
			case "p", "h":
				if len(paras) == 0 {
					return nil
				}
				s, level := paras[len(paras)-1].String(), levels[len(levels)-1]
				paras, levels = paras[:len(paras)-1], levels[:len(levels)-1]
				switch {
				case len(paras) > 0: // a text box's paragraph joins the one around it
					return text(" " + s)
				case len(tables) > 0:
					tb := tables[0]
					if tb.cell.Len() > 0 {
						tb.cell.WriteByte(' ')
					}
					tb.cell.WriteString(s)
					if tb.cell.Len() > lim.maxText {
						return textLimitError(lim.maxText)
					}
				case level > 0:
					return w.heading(level, s)
				default:
					return w.block(s)
				}
			case "table-cell", "covered-table-cell":
				if len(tables) == 1 && tables[0].inCell {
					return tables[0].endCell()
				}
			case "table-row":
				if len(tables) == 1 {
					return tables[0].endRow()
				}
			case "table":
				if len(tables) == 0 {
					return nil
				}
				tb := tables[len(tables)-1]
				tables = tables[:len(tables)-1]
				if len(tables) == 0 {
					return w.table(&tb.rows)
				}
			}
		case xml.CharData:
			return text(string(t))
		}
		return nil
	})
	if err != nil {
		return extracted{}, err
	}
	ex := w.extracted()
	ex.title = w.firstH1
	return ex, nil
}

// endCell writes the finished cell, repeated as the file says. Empty cells
// are only counted, and written when a cell with text follows them, since
// a sheet ends every row with hundreds of repeated empty ones; a non-empty
// cell is repeated at most maxRepeat times. A row never grows past a
// sheet's width.
func (tb *odfTable) endCell() error {
	tb.inCell = false
	if len(tb.rows.rows) == 0 {
		tb.rows.row()
	}
	s := tb.cell.String()
	width := len(tb.rows.rows[len(tb.rows.rows)-1]) + tb.emptyCells
	if strings.TrimSpace(s) == "" {
		tb.emptyCells += max(min(tb.cellRep, maxSheetColumns-width), 0)
		return nil
	}
	for range tb.emptyCells {
		if err := tb.rows.cell(""); err != nil {
			return err
		}
	}
	tb.emptyCells = 0
	for range max(min(tb.cellRep, maxRepeat, maxSheetColumns-width), 0) {
		if err := tb.rows.cell(s); err != nil {
			return err
		}
	}
	return nil
}

// endRow repeats a finished non-empty row as the file says, at most
// maxRepeat times; empty repeated rows stay one (dropped in the table).
func (tb *odfTable) endRow() error {
	tb.emptyCells = 0 // trailing empty cells are dropped
	rows := tb.rows.rows
	if len(rows) == 0 {
		return nil
	}
	last := rows[len(rows)-1]
	if len(last) == 0 {
		return nil
	}
	for range min(tb.rowRepeat, maxRepeat) - 1 {
		tb.rows.row()
		for _, c := range last {
			if err := tb.rows.cell(c); err != nil {
				return err
			}
		}
	}
	return nil
}

func repeatCount(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// odfMetaTitle is the title from meta.xml, if any.
func odfMetaTitle(z *safeZip, lim limits) (string, error) {
	return zipPartTitle(z, "meta.xml", lim)
}
