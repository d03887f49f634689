package ingest

import (
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
)

// maxSheetColumns is the widest sheet Excel allows (XFD).
const maxSheetColumns = 16384

// extractXLSX reads every worksheet of an Excel workbook in workbook order:
// the sheet's name as a heading, its cells as a Markdown table. Cells hold
// their stored values (shared or inline strings, numbers as written,
// formulas' cached results); number formats such as dates are not applied.
func extractXLSX(f io.ReaderAt, size int64, lim limits) (extracted, error) {
	z, err := openZip(f, size, lim, "XLSX")
	if err != nil {
		return extracted{}, err
	}
	sheets, err := xlsxSheets(z, lim)
	if err != nil {
		return extracted{}, err
	}
	shared, err := xlsxSharedStrings(z, lim)
	if err != nil {
		return extracted{}, err
	}
	w := newDocWriter(lim)
	for _, s := range sheets {
		data, err := z.read(s.part)
		if errors.Is(err, errNoEntry) {
			return extracted{}, damaged("the XLSX file lists sheet %q but has no %s; re-save it from Excel and scan again", s.name, s.part)
		}
		if err != nil {
			return extracted{}, err
		}
		t, err := xlsxSheetTable(data, s.part, shared, lim)
		if err != nil {
			return extracted{}, err
		}
		if err := w.heading(1, s.name); err != nil {
			return extracted{}, err
		}
		if err := w.table(t); err != nil {
			return extracted{}, err
		}
	}
	ex := w.extracted()
	if t, err := docxCoreTitle(z, lim); err == nil && t != "" {
		ex.title = t
	}
	return ex, nil
}

type xlsxSheet struct{ name, part string }

// xlsxSheets lists the worksheets in workbook order with their zip paths,
// resolved through the workbook's relationships.
func xlsxSheets(z *safeZip, lim limits) ([]xlsxSheet, error) {
	wb, err := z.read("xl/workbook.xml")
	if errors.Is(err, errNoEntry) {
		return nil, damaged("the XLSX file has no xl/workbook.xml, so it is not an Excel workbook; re-save it from Excel and scan again")
	}
	if err != nil {
		return nil, err
	}
	targets, err := packageRels(z, "xl/_rels/workbook.xml.rels", "xl", lim)
	if err != nil {
		return nil, err
	}
	var sheets []xlsxSheet
	err = xmlTokens(wb, lim.maxDepth, "xl/workbook.xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "sheet" {
			part := targets[relID(t)]
			if part == "" {
				part = "xl/worksheets/sheet" + attr(t, "sheetId") + ".xml"
			}
			sheets = append(sheets, xlsxSheet{name: attr(t, "name"), part: part})
		}
		return nil
	})
	return sheets, err
}

// relID is an element's r:id, the relationship it points through (told
// from a plain id attribute by its namespace).
func relID(e xml.StartElement) string {
	for _, a := range e.Attr {
		if a.Name.Local == "id" && a.Name.Space != "" {
			return a.Value
		}
	}
	return ""
}

// packageRels maps relationship ids to zip paths from an Office Open XML
// .rels part; relative targets are resolved against base. A missing part
// maps nothing.
func packageRels(z *safeZip, relsPath, base string, lim limits) (map[string]string, error) {
	targets := map[string]string{}
	data, err := z.read(relsPath)
	if errors.Is(err, errNoEntry) {
		return targets, nil
	}
	if err != nil {
		return nil, err
	}
	err = xmlTokens(data, lim.maxDepth, relsPath, func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "Relationship" {
			target := attr(t, "Target")
			if strings.HasPrefix(target, "/") {
				target = strings.TrimPrefix(target, "/")
			} else {
				target = path.Join(base, target)
			}
			targets[attr(t, "Id")] = target
		}
		return nil
	})
	return targets, err
}

// xlsxSharedStrings reads the workbook's string table (optional), leaving
// out phonetic guides (rPh).
func xlsxSharedStrings(z *safeZip, lim limits) ([]string, error) {
	data, err := z.read("xl/sharedStrings.xml")
	if errors.Is(err, errNoEntry) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var (
		out   []string
		cur   strings.Builder
		inT   bool
		inRPh bool
		total int
	)
	err = xmlTokens(data, lim.maxDepth, "xl/sharedStrings.xml", func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "t":
				inT = true
			case "rPh":
				inRPh = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				out = append(out, cur.String())
			case "t":
				inT = false
			case "rPh":
				inRPh = false
			}
		case xml.CharData:
			if inT && !inRPh {
				cur.Write(t)
				total += len(t)
				if total > lim.maxText {
					return textLimitError(lim.maxText)
				}
			}
		}
		return nil
	})
	return out, err
}

// xlsxSheetTable reads one worksheet's cells into rows, each cell placed in
// its column by its reference (A1, C7), so skipped empty cells keep the
// columns aligned.
func xlsxSheetTable(data []byte, part string, shared []string, lim limits) (*tableRows, error) {
	t := &tableRows{limit: lim.maxText}
	var (
		col, next int
		typ       string
		val       strings.Builder
		inVal     bool
		inCell    bool
	)
	err := xmlTokens(data, lim.maxDepth, part, func(tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "row":
				t.row()
				next = 0
			case "c":
				inCell, typ = true, attr(e, "t")
				val.Reset()
				col = next
				if c, ok := cellColumn(attr(e, "r")); ok {
					col = c
				}
			case "v", "t":
				inVal = inCell
			case "rPh":
				inVal = false
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "v", "t":
				inVal = false
			case "c":
				inCell = false
				s := val.String()
				switch typ {
				case "s":
					if strings.TrimSpace(s) == "" {
						break // a styled cell with no value
					}
					i, err := strconv.Atoi(strings.TrimSpace(s))
					if err != nil || i < 0 || i >= len(shared) {
						return damaged("%s refers to shared string %q, which the workbook does not have; re-save it from Excel and scan again", part, brief(s))
					}
					s = shared[i]
				case "b":
					s = map[string]string{"0": "FALSE", "1": "TRUE"}[strings.TrimSpace(s)]
				}
				next = col + 1
				if len(t.rows) == 0 {
					t.row()
				}
				have := len(t.rows[len(t.rows)-1])
				if s == "" || col < have || col >= maxSheetColumns {
					return nil
				}
				for range col - have {
					if err := t.cell(""); err != nil {
						return err
					}
				}
				return t.cell(s)
			}
		case xml.CharData:
			if inVal {
				val.Write(e)
				if val.Len() > lim.maxText {
					return textLimitError(lim.maxText)
				}
			}
		}
		return nil
	})
	return t, err
}

// cellColumn is the 0-based column of a cell reference such as "B7".
func cellColumn(ref string) (int, bool) {
	col, n := 0, 0
	for _, r := range ref {
		switch {
		case r >= 'A' && r <= 'Z':
			col = col*26 + int(r-'A'+1)
		case r >= 'a' && r <= 'z':
			col = col*26 + int(r-'a'+1)
		default:
			if n == 0 {
				return 0, false
			}
			return col - 1, col <= maxSheetColumns
		}
		n++
		if n > 3 {
			return 0, false
		}
	}
	return 0, false
}
