package ingest

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// extractCSV reads comma- (or semicolon-) separated or tab-separated values
// as one Markdown table, its first row the header. The bytes are decoded
// like a text file (encoding.go), so a CSV saved by Excel in a legacy
// charset still reads.
func extractCSV(data []byte, tab bool, lim limits) (extracted, error) {
	kind := "CSV"
	if tab {
		kind = "TSV"
	}
	dec, err := decodeText(data)
	if err != nil {
		return extracted{}, damaged("the %s file cannot be read: %v", kind, err)
	}
	text := strings.TrimPrefix(dec.text, "\uFEFF")
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = csvDelimiter(text, tab)
	r.FieldsPerRecord = -1 // rows may differ in length
	r.LazyQuotes = true
	r.ReuseRecord = true
	t := tableRows{limit: lim.maxText}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return extracted{}, damaged("the %s file is damaged at line %d%s; check its quoting, re-save it and scan again", kind, pe.StartLine, because(pe.Err))
			}
			return extracted{}, damaged("the %s file cannot be read%s; re-save it and scan again", kind, because(err))
		}
		t.row()
		for _, f := range rec {
			if err := t.cell(f); err != nil {
				return extracted{}, err
			}
		}
	}
	w := newDocWriter(lim)
	if err := w.table(&t); err != nil {
		return extracted{}, err
	}
	ex := w.extracted()
	if dec.note != "" {
		ex.notes = append(ex.notes, dec.note)
	}
	ex.charset = dec.charset
	return ex, nil
}

// csvDelimiter is tab for TSV; for CSV, a semicolon when the first line has
// more semicolons than commas (Excel's CSV in locales with a decimal
// comma), else a comma.
func csvDelimiter(text string, tab bool) rune {
	if tab {
		return '\t'
	}
	first, _, _ := strings.Cut(text, "\n")
	if strings.Count(first, ";") > strings.Count(first, ",") {
		return ';'
	}
	return ','
}
