package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Collection is a named set of folders and files.
type Collection struct {
	Name      string    `json:"name"`
	Paths     []string  `json:"paths"`
	Documents int       `json:"documents"`
	Chunks    int       `json:"chunks"`
	CreatedAt time.Time `json:"created_at"`
}

// AddCollectionPath creates the collection if needed and adds path to it.
func (s *Store) AddCollectionPath(ctx context.Context, name, path string) error {
	now := time.Now().UnixNano()
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO collections(name, created_at) VALUES (?, ?)
			ON CONFLICT(name) DO NOTHING`, name, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO collection_paths(collection, path, added_at) VALUES (?, ?, ?)
			ON CONFLICT(collection, path) DO NOTHING`, name, path, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("add %s to collection %q: %w", path, name, err)
	}
	return nil
}

// Collections lists every collection with its paths and indexed counts.
func (s *Store) Collections(ctx context.Context) ([]Collection, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT c.name, c.created_at,
			(SELECT count(*) FROM documents d WHERE d.collection = c.name),
			(SELECT count(*) FROM chunks k JOIN documents d ON d.doc_id = k.doc_id WHERE d.collection = c.name)
		FROM collections c ORDER BY c.name`)
	if err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	var out []Collection
	for rows.Next() {
		var c Collection
		var created int64
		if err := rows.Scan(&c.Name, &created, &c.Documents, &c.Chunks); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list collections: %w", err)
		}
		c.CreatedAt = fromUnixNano(created)
		c.Paths = []string{}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	for i := range out {
		if out[i].Paths, err = s.collectionPaths(ctx, out[i].Name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Collection returns one collection; a missing one yields ErrNotFound.
func (s *Store) Collection(ctx context.Context, name string) (Collection, error) {
	all, err := s.Collections(ctx)
	if err != nil {
		return Collection{}, err
	}
	for _, c := range all {
		if c.Name == name {
			return c, nil
		}
	}
	return Collection{}, fmt.Errorf("collection %q: %w", name, ErrNotFound)
}

func (s *Store) collectionPaths(ctx context.Context, name string) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT path FROM collection_paths WHERE collection = ? ORDER BY path`, name)
	if err != nil {
		return nil, fmt.Errorf("list paths of collection %q: %w", name, err)
	}
	defer rows.Close()
	paths := []string{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, rows.Err()
}

// RemoveCollection forgets the collection and its paths; its documents are
// removed separately (through the queue) so the indexes stay in step.
func (s *Store) RemoveCollection(ctx context.Context, name string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM collection_paths WHERE collection = ?`, name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM collections WHERE name = ?`, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("remove collection %q: %w", name, err)
	}
	return nil
}

// StoredDoc is the identity of an indexed document, for change detection.
type StoredDoc struct {
	DocID      string `json:"doc_id"`
	Path       string `json:"path"`
	Rev        string `json:"rev"`
	Collection string `json:"collection"`
}

// DocumentsUnder lists indexed documents whose path is root or lies inside
// the folder root. An empty root lists every document.
func (s *Store) DocumentsUnder(ctx context.Context, root string) ([]StoredDoc, error) {
	q := `SELECT doc_id, path, rev, collection FROM documents`
	var args []any
	if root != "" {
		sep := string(filepath.Separator)
		prefix := strings.TrimSuffix(root, sep) + sep
		// substr avoids LIKE, whose wildcards may appear in real paths.
		q += ` WHERE path = ? OR substr(path, 1, ?) = ?`
		args = []any{root, len(prefix), prefix}
	}
	return s.storedDocs(ctx, q+` ORDER BY path`, args...)
}

// DocumentsInCollection lists the indexed documents of a collection.
func (s *Store) DocumentsInCollection(ctx context.Context, name string) ([]StoredDoc, error) {
	return s.storedDocs(ctx, `SELECT doc_id, path, rev, collection FROM documents WHERE collection = ? ORDER BY path`, name)
}

// DocumentsWithRev lists documents whose file content hash is rev, so a
// renamed or copied file can reuse their vectors.
func (s *Store) DocumentsWithRev(ctx context.Context, rev string) ([]StoredDoc, error) {
	return s.storedDocs(ctx, `SELECT doc_id, path, rev, collection FROM documents WHERE rev = ? ORDER BY path`, rev)
}

func (s *Store) storedDocs(ctx context.Context, q string, args ...any) ([]StoredDoc, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list indexed documents: %w", err)
	}
	defer rows.Close()
	var out []StoredDoc
	for rows.Next() {
		var d StoredDoc
		if err := rows.Scan(&d.DocID, &d.Path, &d.Rev, &d.Collection); err != nil {
			return nil, fmt.Errorf("list indexed documents: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// StoredDocument returns the identity of docID; found is false when it is
// not indexed.
func (s *Store) StoredDocument(ctx context.Context, docID string) (StoredDoc, bool, error) {
	var d StoredDoc
	err := s.r.QueryRowContext(ctx, `SELECT doc_id, path, rev, collection FROM documents WHERE doc_id = ?`, docID).
		Scan(&d.DocID, &d.Path, &d.Rev, &d.Collection)
	if errors.Is(err, sql.ErrNoRows) {
		return StoredDoc{}, false, nil
	}
	if err != nil {
		return StoredDoc{}, false, fmt.Errorf("read document %s: %w", docID, err)
	}
	return d, true, nil
}

// SetDocumentCollection moves an unchanged document to another collection
// without re-indexing it.
func (s *Store) SetDocumentCollection(ctx context.Context, docID, collection string) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE documents SET collection = ? WHERE doc_id = ?`, collection, docID); err != nil {
		return fmt.Errorf("move %s to collection %q: %w", docID, collection, err)
	}
	return nil
}

// ChunkVectorsByText returns docID's stored vectors made with embedModel,
// keyed by what was embedded (corpus.IndexText of the chunk's context and
// text). A vector depends only on that and the model, so it can be reused
// for any chunk embedded from the same input — an unchanged chunk of an
// edited file, or every chunk of a renamed one.
func (s *Store) ChunkVectorsByText(ctx context.Context, docID, embedModel string) (map[string][]float32, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT c.context, c.text, v.embedding
		FROM chunks c JOIN chunks_vec v ON v.rowid = c.id
		WHERE c.doc_id = ? AND c.embed_model = ?`, docID, embedModel)
	if err != nil {
		return nil, fmt.Errorf("read vectors of %s: %w", docID, err)
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var context, text string
		var blob []byte
		if err := rows.Scan(&context, &text, &blob); err != nil {
			return nil, fmt.Errorf("read vectors of %s: %w", docID, err)
		}
		out[corpus.IndexText(context, text)] = decodeVector(blob)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read vectors of %s: %w", docID, err)
	}
	return out, nil
}

// IndexCounts holds the row counts of documents, chunks, the full-text
// index (its per-row size table, since the FTS table itself reads through to
// chunks) and the vector index; chunk, FTS and vector counts agree in a
// consistent index.
type IndexCounts struct {
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	FTS       int `json:"fts"`
	Vectors   int `json:"vectors"`
}

// CountIndex counts rows in every chunk index, for consistency checks.
func (s *Store) CountIndex(ctx context.Context) (IndexCounts, error) {
	var c IndexCounts
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks),
		(SELECT count(*) FROM chunks_fts_docsize), (SELECT count(*) FROM chunks_vec)`).
		Scan(&c.Documents, &c.Chunks, &c.FTS, &c.Vectors)
	if err != nil {
		return IndexCounts{}, fmt.Errorf("count index rows: %w", err)
	}
	return c, nil
}

// CopyRowsFrom copies the rows of tables from the index file at path (same
// schema) into this one, keeping rows that already exist here. An index
// rebuilt into a new file uses it to carry over answers and queued work.
func (s *Store) CopyRowsFrom(ctx context.Context, path string, tables ...string) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS src`, path); err != nil {
		return fmt.Errorf("open %s to copy from: %w", path, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE src`)
	for _, t := range tables {
		// Table names are the caller's constants, never user input.
		if _, err := conn.ExecContext(ctx, `INSERT OR IGNORE INTO main.`+t+` SELECT * FROM src.`+t); err != nil {
			return fmt.Errorf("copy %s from %s: %w", t, path, err)
		}
	}
	return nil
}
