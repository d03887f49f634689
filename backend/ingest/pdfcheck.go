package ingest

import (
	"bytes"
	"io"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// The PDF library sizes tables and buffers by numbers it reads from the
// file, unchecked: one cross-reference entry numbered 4294967296 makes it
// allocate 128 GiB, which no recover() survives. pdfPreflight checks those
// numbers on the raw bytes first. Dictionaries inside compressed object
// streams are out of its sight; the extractor child's memory limit covers
// them.

// maxPDFObjects is the PDF specification's limit on indirect objects; the
// library allocates a table entry for every object number up to the
// highest it is told about.
const maxPDFObjects = 8_388_607

// pdfKeyLimits bounds dictionary numbers the library allocates or loops by.
var pdfKeyLimits = []struct {
	key   string
	limit int64
}{
	{"/Size", maxPDFObjects}, // cross-reference table length
	{"/N", maxPDFObjects},    // objects in an object stream (read in a loop)
	{"/Columns", 1 << 24},    // row buffer of the PNG predictor
}

func pdfPreflight(data []byte) error {
	if i := bytes.LastIndex(data[max(0, len(data)-1024):], []byte("startxref")); i >= 0 {
		at := max(0, len(data)-1024) + i + len("startxref")
		if off, ok := pdfInt(data, &at); ok {
			if err := checkPrevChain(data, off); err != nil {
				return err
			}
		}
	}
	if err := checkXrefTables(data); err != nil {
		return err
	}
	for _, k := range pdfKeyLimits {
		for rest, base := data, 0; ; {
			i := bytes.Index(rest, []byte(k.key))
			if i < 0 {
				break
			}
			at := base + i + len(k.key)
			rest, base = data[at:], at
			if at < len(data) && isPDFNameChar(data[at]) {
				continue // a longer name, e.g. /Sizes
			}
			if n, ok := pdfInt(data, &at); ok && (n < 0 || n > k.limit) {
				return damaged("the PDF says %s %d, more than any PDF needs; it is damaged: re-save it and scan again", k.key, n)
			}
		}
	}
	for rest, base := data, 0; ; {
		i := bytes.Index(rest, []byte("/W"))
		if i < 0 {
			break
		}
		at := base + i + 2
		rest, base = data[at:], at
		if at < len(data) && isPDFNameChar(data[at]) {
			continue
		}
		skipPDFSpace(data, &at)
		if at >= len(data) || data[at] != '[' {
			continue
		}
		at++
		// In a cross-reference stream these are field widths in bytes; a
		// CID font's /W holds glyph numbers and widths, also far below this.
		for range 3 {
			if n, ok := pdfInt(data, &at); ok && n > 1<<24 {
				return damaged("the PDF's cross-reference stream has fields of %d bytes; it is damaged: re-save it and scan again", n)
			}
		}
	}
	for rest, base := data, 0; ; {
		i := bytes.Index(rest, []byte("/Index"))
		if i < 0 {
			break
		}
		at := base + i + len("/Index")
		rest, base = data[at:], at
		if at < len(data) && isPDFNameChar(data[at]) {
			continue
		}
		skipPDFSpace(data, &at)
		if at >= len(data) || data[at] != '[' {
			continue
		}
		at++
		for range 64 { // object number ranges; real files have a few
			n, ok := pdfInt(data, &at)
			if !ok {
				break
			}
			if n > maxPDFObjects {
				return damaged("the PDF's cross-reference stream numbers objects beyond what a PDF can hold; it is damaged: re-save it and scan again")
			}
		}
	}
	return nil
}

// checkPrevChain follows the chain of cross-reference sections from the
// final startxref through their /Prev entries, which the library follows
// without end when they form a loop.
func checkPrevChain(data []byte, off int64) error {
	seen := map[int64]bool{}
	for {
		if off < 0 || off >= int64(len(data)) {
			return damaged("the PDF's cross-reference offset points past the end of the file; it is damaged or truncated: re-save or re-download it and scan again")
		}
		if seen[off] || len(seen) > 10000 {
			return damaged("the PDF's cross-reference sections refer to each other in a loop; it is damaged: re-save it and scan again")
		}
		seen[off] = true
		// A section's dictionary ends before the next startxref (a table's
		// trailer) or stream keyword (a cross-reference stream).
		section := data[off:]
		for _, kw := range []string{"startxref", "stream"} {
			if i := bytes.Index(section, []byte(kw)); i >= 0 {
				section = section[:i]
			}
		}
		i := bytes.Index(section, []byte("/Prev"))
		if i < 0 {
			return nil
		}
		at := int(off) + i + len("/Prev")
		next, ok := pdfInt(data, &at)
		if !ok {
			return nil
		}
		off = next
	}
}

// checkXrefTables checks the subsection headers ("first count") of every
// classic cross-reference table.
func checkXrefTables(data []byte) error {
	for rest, base := data, 0; ; {
		i := bytes.Index(rest, []byte("xref"))
		if i < 0 {
			return nil
		}
		at := base + i + len("xref")
		rest, base = data[at:], at
		if i := at - len("xref"); i >= 5 && string(data[i-5:i]) == "start" {
			continue
		}
		for {
			skipPDFSpace(data, &at)
			if bytes.HasPrefix(data[at:], []byte("trailer")) {
				break
			}
			first, ok1 := pdfInt(data, &at)
			count, ok2 := pdfInt(data, &at)
			if !ok1 || !ok2 {
				break // not a table the library could read either; it says so
			}
			if first < 0 || count < 0 || first > maxPDFObjects || count > maxPDFObjects-first {
				return damaged("the PDF's cross-reference table numbers objects beyond what a PDF can hold; it is damaged: re-save it and scan again")
			}
			for range count {
				_, ok1 := pdfInt(data, &at)
				_, ok2 := pdfInt(data, &at)
				skipPDFSpace(data, &at)
				if !ok1 || !ok2 || at >= len(data) {
					return nil
				}
				at++ // 'n' or 'f'
			}
		}
	}
}

// pdfInt reads an unsigned integer after optional white space at *at; a
// number too long for int64 reads as the largest one.
func pdfInt(data []byte, at *int) (int64, bool) {
	skipPDFSpace(data, at)
	start := *at
	for *at < len(data) && data[*at] >= '0' && data[*at] <= '9' {
		*at++
	}
	if *at == start {
		return 0, false
	}
	n, err := strconv.ParseInt(string(data[start:*at]), 10, 64)
	if err != nil {
		return 1<<63 - 1, true
	}
	return n, true
}

func skipPDFSpace(data []byte, at *int) {
	for *at < len(data) {
		switch data[*at] {
		case ' ', '\t', '\r', '\n', '\f', 0:
			*at++
		default:
			return
		}
	}
}

func isPDFNameChar(c byte) bool {
	return c > ' ' && c < 0x7f && !bytes.ContainsRune([]byte("/[]<>(){}%"), rune(c))
}

// streamBudget bounds the bytes of decoded stream data (page contents and
// character maps) the library interprets for one file. Compressed streams
// are decoded once to measure them, with at most the remaining budget
// read, so a Flate bomb costs a bounded read instead of unbounded memory.
type streamBudget struct {
	left, total int64
	fileSize    int64
}

// charge counts v (a stream, or an array of streams as page contents may
// be) against the budget and panics with pdfAbort past it.
func (b *streamBudget) charge(v pdf.Value, what string) {
	if v.Kind() == pdf.Array {
		for i := 0; i < v.Len(); i++ {
			b.charge(v.Index(i), what)
		}
		return
	}
	if v.Kind() != pdf.Stream {
		return
	}
	var n int64
	if v.Key("Filter").Kind() == pdf.Null {
		n = min(max(v.Key("Length").Int64(), 0), b.fileSize) // read as stored
	} else {
		rd := v.Reader()
		n, _ = io.Copy(io.Discard, io.LimitReader(rd, b.left+1))
		rd.Close()
	}
	b.left -= n
	if b.left < 0 {
		panic(pdfAbort{overLimit("the PDF's %s expand to more than %s when decompressed (possible decompression bomb); it was not indexed", what, humanBytes(b.total))})
	}
}
