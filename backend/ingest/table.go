package ingest

import (
	"strings"
)

// Tables from DOCX, ODT, HTML, spreadsheets, slides and CSV are stored as
// Markdown pipe tables: one line per row, the first row as the header, so a
// row stays one line of text (the chunker keeps it whole and repeats the
// header, chunk.go) and the viewer can show it as a table.

// tableRows collects a table's cells, with a cap on their total size so a
// huge sheet fails at the text limit instead of filling memory first.
type tableRows struct {
	rows  [][]string
	size  int
	limit int
}

// cell appends a cell to the last row (starting one if there is none).
func (t *tableRows) cell(s string) error {
	if len(t.rows) == 0 {
		t.row()
	}
	s = tableCell(s)
	t.size += len(s) + 3
	if t.size > t.limit {
		return textLimitError(t.limit)
	}
	last := len(t.rows) - 1
	t.rows[last] = append(t.rows[last], s)
	return nil
}

// row starts a new row.
func (t *tableRows) row() {
	t.size += 4
	t.rows = append(t.rows, nil)
}

// markdown renders the rows as a pipe table: empty rows and trailing empty
// columns dropped, rows padded to the widest. It is "" for a table with no
// text.
func (t *tableRows) markdown() string {
	width := 0
	var rows [][]string
	for _, r := range t.rows {
		n := len(r)
		for n > 0 && r[n-1] == "" {
			n--
		}
		if n == 0 {
			continue
		}
		rows = append(rows, r[:n])
		width = max(width, n)
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	line := func(r []string) {
		b.WriteString("|")
		for i := range width {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(rows[0])
	b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
	for _, r := range rows[1:] {
		line(r)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// tableCell makes text fit in one pipe-table cell: whitespace runs (line
// breaks included) become one space and pipes are escaped.
func tableCell(s string) string {
	s = strings.Join(strings.FieldsFunc(cleanText(s), isSpace), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
