package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// DocumentInfo describes an indexed document without its text.
type DocumentInfo struct {
	DocID      string    `json:"doc_id"`
	Title      string    `json:"title"`
	Path       string    `json:"path"`
	Format     string    `json:"format"`
	Rev        string    `json:"rev"`
	Size       int64     `json:"size"`
	ModTime    time.Time `json:"mod_time"`
	Collection string    `json:"collection"`
	Chunks     int       `json:"chunks"`
	IndexedAt  time.Time `json:"indexed_at"`
	// OCRPages are the pages whose text was recognised by OCR (scanned
	// pages of a PDF); none for a document read from its text.
	OCRPages []int `json:"ocr_pages,omitempty"`
	// Charset is the legacy charset the text was decoded from ("" for UTF-8).
	Charset string `json:"charset,omitempty"`
}

// DocumentRev returns the revision stored for docID, so ingestion can skip
// unchanged files.
func (s *Store) DocumentRev(ctx context.Context, docID string) (string, bool, error) {
	var rev string
	err := s.r.QueryRowContext(ctx, `SELECT rev FROM documents WHERE doc_id = ?`, docID).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read revision of %s: %w", docID, err)
	}
	return rev, true, nil
}

// PutDocument stores doc with one vector per chunk (same order), replacing
// any previous version of doc.DocID. Everything happens in one transaction:
// on any error the previous version stays as it was.
func (s *Store) PutDocument(ctx context.Context, doc corpus.Document, vectors [][]float32, embedModel string) error {
	if err := s.validate(doc, vectors); err != nil {
		return fmt.Errorf("store %s: %w", doc.Path, err)
	}
	now := time.Now().UTC()
	var content string
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if err := deleteDocument(ctx, tx, doc.DocID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO documents
			(doc_id, path, title, format, rev, size, mod_time, collection, text, indexed_at, charset)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			doc.DocID, doc.Path, doc.Title, doc.Format, doc.Rev, doc.Size, unixNano(doc.ModTime),
			doc.Collection, doc.Text, now.UnixNano(), doc.Charset); err != nil {
			return fmt.Errorf("insert document: %w", err)
		}
		if err := insertSections(ctx, tx, doc); err != nil {
			return err
		}
		if err := insertDocumentSource(ctx, tx, doc); err != nil {
			return err
		}
		if err := insertDocumentOCR(ctx, tx, doc); err != nil {
			return err
		}
		if err := insertChunks(ctx, tx, doc, vectors, embedModel); err != nil {
			return err
		}
		if err := s.putQuantised(ctx, tx, doc.DocID, snippetVectors(doc, vectors)); err != nil {
			return err
		}
		var herr error
		content, herr = advanceContentHash(ctx, tx, "put", doc.DocID, doc.Rev)
		return herr
	})
	if err != nil {
		return fmt.Errorf("store %s: %w", doc.Path, err)
	}
	s.publishContentHash(content)
	return nil
}

func (s *Store) validate(doc corpus.Document, vectors [][]float32) error {
	if doc.DocID == "" {
		return errors.New("document has no id")
	}
	if len(vectors) != len(doc.Chunks) {
		return fmt.Errorf("got %d vectors for %d chunks", len(vectors), len(doc.Chunks))
	}
	dim := s.Dim()
	seen := make(map[string]bool, len(doc.Chunks))
	for i, c := range doc.Chunks {
		switch {
		case c.SnippetID == "":
			return fmt.Errorf("chunk %d has no snippet id", i)
		case corpus.HasReservedPrefix(c.SnippetID):
			return fmt.Errorf("chunk %d uses the reserved id %q", i, c.SnippetID)
		case seen[c.SnippetID]:
			return fmt.Errorf("chunk %d repeats snippet id %s", i, c.SnippetID)
		case c.DocID != doc.DocID:
			return fmt.Errorf("chunk %s belongs to document %q, not %q", c.SnippetID, c.DocID, doc.DocID)
		case c.Source == "":
			return fmt.Errorf("chunk %s has no source", c.SnippetID)
		case len(vectors[i]) != dim && len(vectors[i]) != 0: // none: pending (pendingvectors.go)
			return fmt.Errorf("%w: vector %d has length %d, the index expects %d", ErrDimensionMismatch, i, len(vectors[i]), dim)
		}
		for _, x := range vectors[i] {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("vector %d is not finite", i)
			}
		}
		seen[c.SnippetID] = true
	}
	return nil
}

func insertSections(ctx context.Context, tx *sql.Tx, doc corpus.Document) error {
	if len(doc.Sections) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO sections
		(doc_id, section_id, title, level, char_start, char_end) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, sec := range doc.Sections {
		if _, err := stmt.ExecContext(ctx, doc.DocID, sec.SectionID, sec.Title, sec.Level, sec.Start, sec.End); err != nil {
			return fmt.Errorf("insert section %q: %w", sec.SectionID, err)
		}
	}
	return nil
}

func insertChunks(ctx context.Context, tx *sql.Tx, doc corpus.Document, vectors [][]float32, embedModel string) error {
	if len(doc.Chunks) == 0 {
		return nil
	}
	chunkStmt, err := tx.PrepareContext(ctx, `INSERT INTO chunks
		(snippet_id, doc_id, section_id, ordinal, text, context, char_start, char_end, unit, tokens,
		 pre, post, page, source, created_at, embed_model)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer chunkStmt.Close()
	vecStmt, err := tx.PrepareContext(ctx, `INSERT INTO chunks_vec(rowid, embedding, source) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer vecStmt.Close()
	for i, c := range doc.Chunks {
		res, err := chunkStmt.ExecContext(ctx, c.SnippetID, c.DocID, c.SectionID, c.Ordinal, c.Text, c.Context,
			c.Offsets.Start, c.Offsets.End, c.Offsets.Unit, c.Tokens, c.Window.Pre, c.Window.Post,
			c.Page, c.Source, unixNano(c.CreatedAt), embedModel)
		if err != nil {
			return fmt.Errorf("insert chunk %s: %w", c.SnippetID, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if len(vectors[i]) == 0 {
			continue // indexed without an embedding model: its vector comes later (PutVectors)
		}
		if _, err := vecStmt.ExecContext(ctx, id, encodeVector(vectors[i]), c.Source); err != nil {
			return fmt.Errorf("insert vector of chunk %s: %w", c.SnippetID, err)
		}
	}
	return nil
}

// DeleteDocument removes docID and everything indexed for it. Deleting a
// document that is not indexed is not an error.
func (s *Store) DeleteDocument(ctx context.Context, docID string) error {
	var content string
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE doc_id = ?`, docID).Scan(&n); err != nil || n == 0 {
			return err // nothing indexed: the content, and its hash, stay as they are
		}
		if err := deleteDocument(ctx, tx, docID); err != nil {
			return err
		}
		var err error
		content, err = advanceContentHash(ctx, tx, "delete", docID, "")
		return err
	})
	if err != nil {
		return fmt.Errorf("delete %s from the index: %w", docID, err)
	}
	s.publishContentHash(content)
	return nil
}

func deleteDocument(ctx context.Context, tx *sql.Tx, docID string) error {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM chunks WHERE doc_id = ?`, docID)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ids) > 0 {
		// vec0 deletes are only cheap by exact rowid; a filtered delete scans.
		stmt, err := tx.PrepareContext(ctx, `DELETE FROM chunks_vec WHERE rowid = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, id := range ids {
			if _, err := stmt.ExecContext(ctx, id); err != nil {
				return fmt.Errorf("delete vector: %w", err)
			}
		}
		if err := deleteQuantised(ctx, tx, ids); err != nil {
			return err
		}
	}
	// The chunks_fts_ad trigger removes the full-text rows.
	for _, q := range []string{
		`DELETE FROM chunks WHERE doc_id = ?`,
		`DELETE FROM sections WHERE doc_id = ?`,
		`DELETE FROM documents WHERE doc_id = ?`,
		`DELETE FROM document_sources WHERE doc_id = ?`,
		`DELETE FROM document_ocr WHERE doc_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, docID); err != nil {
			return err
		}
	}
	return nil
}

const documentColumns = `d.doc_id, d.title, d.path, d.format, d.rev, d.size, d.mod_time, d.collection,
	(SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id), d.indexed_at, ` + ocrPagesColumn + `, d.charset`

func scanDocumentInfo(sc interface{ Scan(...any) error }, extra ...any) (DocumentInfo, error) {
	var d DocumentInfo
	var mod, indexed int64
	var ocrPages string
	dest := append([]any{&d.DocID, &d.Title, &d.Path, &d.Format, &d.Rev, &d.Size, &mod, &d.Collection,
		&d.Chunks, &indexed, &ocrPages, &d.Charset}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return DocumentInfo{}, err
	}
	d.OCRPages = splitPages(ocrPages)
	d.ModTime = fromUnixNano(mod)
	d.IndexedAt = fromUnixNano(indexed)
	return d, nil
}

// Documents lists every indexed document, ordered by path.
func (s *Store) Documents(ctx context.Context) ([]DocumentInfo, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+documentColumns+` FROM documents d ORDER BY d.path, d.doc_id`)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	var out []DocumentInfo
	for rows.Next() {
		d, err := scanDocumentInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

// Document returns one document and its stored text (the text chunk offsets
// refer to). A missing document yields ErrNotFound.
func (s *Store) Document(ctx context.Context, docID string) (DocumentInfo, string, error) {
	var text string
	row := s.r.QueryRowContext(ctx, `SELECT `+documentColumns+`, d.text FROM documents d WHERE d.doc_id = ?`, docID)
	d, err := scanDocumentInfo(row, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return DocumentInfo{}, "", fmt.Errorf("document %s: %w", docID, ErrNotFound)
	}
	if err != nil {
		return DocumentInfo{}, "", fmt.Errorf("read document %s: %w", docID, err)
	}
	return d, text, nil
}

// Counts returns how many documents and chunks are indexed.
func (s *Store) Counts(ctx context.Context) (docs, chunks int, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)`).
		Scan(&docs, &chunks)
	if err != nil {
		return 0, 0, fmt.Errorf("count indexed documents: %w", err)
	}
	return docs, chunks, nil
}

// encodeVector produces the little-endian float32 blob vec0 expects.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// unixNano stores the zero time as 0 rather than a large negative number.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
