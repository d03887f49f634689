package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// Chunks indexed while no embedding model could be loaded have no vector:
// they are found by lexical search only. When a model arrives, the engine
// embeds them from the stored text (PendingVectors, PutVectors), without
// reading the files again, and hybrid search covers them from then on.

// PendingChunk is a chunk that has no vector yet.
type PendingChunk struct {
	SnippetID string
	DocID     string
	Context   string
	Text      string
}

// PendingVectors returns up to limit chunks without a vector, in index order.
func (s *Store) PendingVectors(ctx context.Context, limit int) ([]PendingChunk, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id, c.doc_id, c.context, c.text FROM chunks c
		WHERE NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.rowid = c.id)
		ORDER BY c.id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("find chunks without vectors: %w", err)
	}
	defer rows.Close()
	var out []PendingChunk
	for rows.Next() {
		var p PendingChunk
		if err := rows.Scan(&p.SnippetID, &p.DocID, &p.Context, &p.Text); err != nil {
			return nil, fmt.Errorf("find chunks without vectors: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CountPendingVectors counts the chunks without a vector.
func (s *Store) CountPendingVectors(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chunks) - (SELECT count(*) FROM chunks_vec)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count chunks without vectors: %w", err)
	}
	return n, nil
}

// PutVectors stores vectors made by embedModel for chunks that have none,
// by snippet id, in one transaction. Chunks removed or given a vector
// since PendingVectors returned them are skipped.
func (s *Store) PutVectors(ctx context.Context, vectors map[string][]float32, embedModel string) error {
	dim := s.Dim()
	for id, v := range vectors {
		if len(v) != dim {
			return fmt.Errorf("%w: vector of %s has length %d, the index expects %d", ErrDimensionMismatch, id, len(v), dim)
		}
	}
	return s.withTx(ctx, func(tx *sql.Tx) error {
		byDoc := map[string]map[string][]float32{}
		for snippet, v := range vectors {
			var id int64
			var docID, source string
			err := tx.QueryRowContext(ctx, `SELECT id, doc_id, source FROM chunks c WHERE snippet_id = ?
				AND NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.rowid = c.id)`, snippet).Scan(&id, &docID, &source)
			if err == sql.ErrNoRows {
				continue
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_vec(rowid, embedding, source) VALUES (?, ?, ?)`, id, encodeVector(v), source); err != nil {
				return fmt.Errorf("insert vector of chunk %s: %w", snippet, err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE chunks SET embed_model = ? WHERE id = ?`, embedModel, id); err != nil {
				return err
			}
			if byDoc[docID] == nil {
				byDoc[docID] = map[string][]float32{}
			}
			byDoc[docID][snippet] = v
		}
		if len(byDoc) == 0 || s.storage == VectorFloat32 || s.storage == "" {
			return nil
		}
		// One rebuild covers every vector just added; otherwise each
		// document's new vectors get their quantised copies.
		if rebuild, err := s.quantNeedsRebuild(ctx, tx); err != nil || rebuild {
			if err != nil {
				return err
			}
			return s.rebuildQuant(ctx, tx)
		}
		for docID, vs := range byDoc {
			if err := s.putQuantised(ctx, tx, docID, vs); err != nil {
				return err
			}
		}
		return nil
	})
}

// adoptDimension recreates the empty vector table for vectors of length
// dim, keeping every document and chunk.
func adoptDimension(ctx context.Context, tx *sql.Tx, dim int) error {
	for _, stmt := range []string{`DROP TABLE IF EXISTS chunks_vec`, createVecSQL(dim), dropQuantTables} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("prepare the vector index for a %d-dimension model: %w", dim, err)
		}
	}
	_, err := tx.ExecContext(ctx, upsertMeta, metaVectorDim, strconv.Itoa(dim))
	return err
}
