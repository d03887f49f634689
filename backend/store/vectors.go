package store

import (
	"context"
	"fmt"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Stored passage vectors, read back for the answerability signal ΔS
// (rag/deltas.go): how far a question is from the passages retrieval
// found, and from the library's passages in general.

// SnippetVectors returns the stored vectors of snippetIDs; ids without a
// vector are absent from the map.
func (s *Store) SnippetVectors(ctx context.Context, snippetIDs []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(snippetIDs))
	for start := 0; start < len(snippetIDs); start += chunkBatch {
		batch := snippetIDs[start:min(start+chunkBatch, len(snippetIDs))]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id, v.embedding
			FROM chunks c JOIN chunks_vec v ON v.rowid = c.id
			WHERE c.snippet_id IN (`+placeholders(len(batch))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read passage vectors: %w", err)
		}
		for rows.Next() {
			var id string
			var blob []byte
			if err := rows.Scan(&id, &blob); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read passage vectors: %w", err)
			}
			out[id] = decodeVector(blob)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read passage vectors: %w", err)
		}
	}
	return out, nil
}

// SampledPassage is a passage of the library's background sample.
type SampledPassage struct {
	SnippetID string
	Text      string
	Vector    []float32
}

// SamplePassages returns up to n evidence passages with their vectors,
// spread over the whole index by a fixed hash of their ids, so the same
// library gives the same sample.
func (s *Store) SamplePassages(ctx context.Context, n int) ([]SampledPassage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id, c.text, v.embedding
		FROM chunks c JOIN chunks_vec v ON v.rowid = c.id
		WHERE c.source = ?
		ORDER BY (c.id * 2654435761) % 4294967291 LIMIT ?`, corpus.SourceCorpus, n)
	if err != nil {
		return nil, fmt.Errorf("sample passages: %w", err)
	}
	defer rows.Close()
	var out []SampledPassage
	for rows.Next() {
		var p SampledPassage
		var blob []byte
		if err := rows.Scan(&p.SnippetID, &p.Text, &blob); err != nil {
			return nil, fmt.Errorf("sample passages: %w", err)
		}
		p.Vector = decodeVector(blob)
		out = append(out, p)
	}
	return out, rows.Err()
}

// ContentStamp changes whenever a passage is added or removed: the count
// and the largest id of the chunks (ids are never reused while rows with
// larger ids exist, and every re-index inserts new rows).
func (s *Store) ContentStamp(ctx context.Context) (string, error) {
	var n, maxID int64
	if err := s.r.QueryRowContext(ctx, `SELECT count(*), coalesce(max(id), 0) FROM chunks`).Scan(&n, &maxID); err != nil {
		return "", fmt.Errorf("read the index's content stamp: %w", err)
	}
	return fmt.Sprintf("chunks=%d last=%d", n, maxID), nil
}
