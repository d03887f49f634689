package ingest

import "io"

// extractODS reads an OpenDocument spreadsheet (LibreOffice Calc): each
// sheet's name is a heading, its cells a Markdown table. Repeated rows and
// cells are expanded within bounds (maxRepeat, maxSheetColumns).
func extractODS(f io.ReaderAt, size int64, lim limits) (extracted, error) {
	return extractODF(f, size, lim, "ODS", true)
}
