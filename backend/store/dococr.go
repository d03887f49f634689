package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Scanned PDF pages read by OCR (ingest/ocr.go) are recorded per document,
// so the Library and citation tooltips can say a passage's words were
// recognised from an image, not read from a text layer.

func migrateDocumentOCR(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `CREATE TABLE document_ocr (
		doc_id TEXT PRIMARY KEY,
		pages  TEXT NOT NULL, -- comma-separated 1-based page numbers read by OCR
		engine TEXT NOT NULL  -- e.g. "tesseract eng+kor"
	) WITHOUT ROWID`)
	return err
}

func insertDocumentOCR(ctx context.Context, tx *sql.Tx, doc corpus.Document) error {
	if len(doc.OCRPages) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO document_ocr (doc_id, pages, engine) VALUES (?, ?, ?)`,
		doc.DocID, joinPages(doc.OCRPages), doc.OCREngine); err != nil {
		return fmt.Errorf("record the OCR pages of %s: %w", doc.Path, err)
	}
	return nil
}

// ocrPagesColumn is the SQL of a document d's OCR page list ("" for none).
const ocrPagesColumn = `coalesce((SELECT o.pages FROM document_ocr o WHERE o.doc_id = d.doc_id), '')`

// chunkOCRColumn is true when chunk c starts on a page of its document
// that was read by OCR.
const chunkOCRColumn = `EXISTS (SELECT 1 FROM document_ocr o WHERE o.doc_id = c.doc_id
		AND c.page > 0 AND instr(',' || o.pages || ',', ',' || c.page || ',') > 0)`

func joinPages(pages []int) string {
	s := make([]string, len(pages))
	for i, p := range pages {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

func splitPages(s string) []int {
	var pages []int
	for _, f := range strings.Split(s, ",") {
		if p, err := strconv.Atoi(f); err == nil {
			pages = append(pages, p)
		}
	}
	return pages
}
