package ingest

import "io"

// extractODT reads an OpenDocument text file (LibreOffice Writer): text:h
// headings by outline level start sections, tables become Markdown tables.
// The title is meta.xml's, else the first level-1 heading.
func extractODT(f io.ReaderAt, size int64, lim limits) (extracted, error) {
	return extractODF(f, size, lim, "ODT", false)
}
