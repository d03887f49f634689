package ingest

import (
	"sort"
	"strings"
)

// Tables are stored as Markdown pipe tables, one row per line (table.go).
// A chunk should never end inside a row: a row cut in two loses which
// column a value belongs to. tableRowLines finds the rows so the chunker
// can rate a break inside one as the weakest kind.

// rowLines are the byte ranges of a text's Markdown table rows, in order;
// first[i] is the first row of the table row i belongs to (rows on
// consecutive lines form one table).
type rowLines struct{ starts, ends, first []int }

// tableRowLines finds lines that are Markdown table rows: starting and
// ending with a pipe (after trimming spaces).
func tableRowLines(text string) rowLines {
	var rl rowLines
	if !strings.Contains(text, "|") {
		return rl
	}
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := strings.TrimSpace(text[start:end])
		if len(line) >= 2 && line[0] == '|' && line[len(line)-1] == '|' {
			first := len(rl.starts)
			if n := len(rl.ends); n > 0 && rl.ends[n-1]+1 == start {
				first = rl.first[n-1]
			}
			rl.starts = append(rl.starts, start)
			rl.ends = append(rl.ends, end)
			rl.first = append(rl.first, first)
		}
		start = end + 1
	}
	return rl
}

// insideRow reports whether the byte offset off lies strictly inside a
// table row, so a chunk ending there would cut the row.
func (rl rowLines) insideRow(off int) bool {
	i := sort.SearchInts(rl.ends, off) // first row ending at or after off
	return i < len(rl.ends) && rl.starts[i] < off && off < rl.ends[i]
}

// rowBoundaryEnd moves a chunk end that falls inside a table row back to
// the latest row end in ps[lo..best], when there is one, so the chunk holds
// whole rows even if that leaves it less than half full. A row longer than
// a whole chunk must still be cut.
func (c *chunker) rowBoundaryEnd(ps []piece, lo, best int) int {
	if best >= len(ps) || !c.rows.insideRow(ps[best-1].end) {
		return best
	}
	for k := best - 1; k >= lo; k-- {
		if !c.rows.insideRow(ps[k-1].end) {
			return k
		}
	}
	return best
}

// rowBoundaryStart moves an overlap start that falls inside a table row
// forward to the next row start before j, or to j (no overlap), so the
// repeated text is whole rows.
func (c *chunker) rowBoundaryStart(ps []piece, start, j int) int {
	if start >= j || !c.rows.insideRow(ps[start].start) {
		return start
	}
	for k := start + 1; k < j; k++ {
		if !c.rows.insideRow(ps[k].start) {
			return k
		}
	}
	return j
}
