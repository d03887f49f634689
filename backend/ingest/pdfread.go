package ingest

import (
	"errors"
	"runtime"
)

// readPDF reads a PDF's text with PDFium (pdfium.go), and with the Go
// reader (pdf.go) when PDFium cannot open the file or its text is garbled
// or empty: the Go reader reads some fonts PDFium leaves as raw glyph
// codes (11 of pdf.js's 977 test files went to it, bench/pdfcorpus).
// Poppler's pdftotext, when installed, is consulted after this, in the
// parent (pdfpoppler.go).
func readPDF(data []byte, lim limits) (extracted, error) {
	// The preflight guards the Go reader's allocations; a number that would
	// make it allocate without bound refuses the file, a damaged table only
	// keeps the Go reader out (PDFium rebuilds cross-reference tables).
	pre := pdfPreflight(data)
	if errors.Is(pre, ErrUnsafe) {
		return extracted{}, pre
	}
	px, perr := extractPDFium(data, lim)
	if perr == nil && hasWords(px.text) && garbled(px.text) == "" {
		return px, nil
	}
	gx, gerr := extracted{}, pre
	if pre == nil {
		// Where PDFium's memory is a Go slice (no mapping can be made,
		// pdfium_memory_*.go), the instance just closed may have grown to
		// its limit (a decompression bomb does); it is collected before the
		// Go reader allocates, so the two never count against the child's
		// limit together. With a mapping this finds little to do.
		runtime.GC()
		gx, gerr = extractPDF(data, lim)
	}
	switch {
	case gerr == nil && hasWords(gx.text) && (perr != nil || !hasWords(px.text) || garbled(gx.text) == ""):
		why := "PDFium found no text"
		switch {
		case perr != nil:
			why = "PDFium: " + perr.Error()
		case hasWords(px.text):
			why = "PDFium's text: " + garbled(px.text)
		}
		gx.notes = append(gx.notes, "read by the fallback PDF reader ("+why+")")
		return gx, nil
	case perr == nil && (hasWords(px.text) || len(px.imagePages) > 0 || gerr == nil):
		return px, nil // garbled, scanned or empty, it is the better reading
	case errors.Is(perr, ErrUnsafe) && !errors.Is(gerr, ErrUnsafe):
		return extracted{}, perr // a limit PDFium met (pages, text) and the Go reader failed before it
	case gerr != nil:
		return extracted{}, gerr // PDFium found nothing: the Go reader says what is wrong
	}
	return gx, nil
}
