package ingest

import (
	"errors"
)

// readPDF reads a PDF's text with PDFium (pdfium.go), and with the Go
// reader (pdf.go) when PDFium cannot open the file or its text is garbled
// or empty: the Go reader knows a few fonts' built-in encodings PDFium
// leaves as raw glyph codes. Poppler's pdftotext, when installed, is
// consulted after this, in the parent (pdfpoppler.go).
func readPDF(data []byte, lim limits) (extracted, error) {
	// The preflight guards the Go reader's allocations; a number that would
	// make it allocate without bound refuses the file, a damaged table only
	// keeps the Go reader out (PDFium rebuilds cross-reference tables).
	pre := pdfPreflight(data)
	if errors.Is(pre, ErrUnsafe) {
		return extracted{}, pre
	}
	px, perr := extractPDFium(data, lim)
	switch {
	case perr == nil && hasWords(px.text) && garbled(px.text) == "":
		return px, nil
	case errors.Is(perr, ErrUnsafe):
		return extracted{}, perr // a limit holds whichever reader reads
	}
	gx, gerr := extracted{}, pre
	if pre == nil {
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
	case gerr != nil:
		return extracted{}, gerr // PDFium found nothing: the Go reader says what is wrong
	}
	return gx, nil
}
