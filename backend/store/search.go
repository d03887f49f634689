package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Match is one retrieval hit with its raw score; fusion happens elsewhere.
type Match struct {
	SnippetID string
	// Score is bm25() for lexical hits (lower is better) and the L2
	// distance for vector hits (lower is better).
	Score float64
	Rank  int // 1-based
}

// ChunkRecord is a chunk with the document facts a citation needs.
type ChunkRecord struct {
	corpus.Chunk
	Title      string
	Path       string
	Rev        string
	EmbedModel string
}

// Limits that keep one query cheap and inside vec0's bounds.
const (
	maxQueryTerms = 64
	maxK          = 4096 // vec0 rejects larger k
)

// SearchLexical finds up to k evidence chunks matching any word of query,
// best bm25 first. Query text is treated as plain words: FTS5 operators,
// quotes and parentheses have no special meaning. A query with no words
// returns no matches.
func (s *Store) SearchLexical(ctx context.Context, query string, k int) ([]Match, error) {
	match := ftsQuery(query)
	if match == "" || k <= 0 {
		return nil, nil
	}
	k = min(k, maxK)
	rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id, bm25(chunks_fts) AS score
		FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
		WHERE chunks_fts MATCH ? AND c.source = ?
		ORDER BY score, c.snippet_id
		LIMIT ?`, match, corpus.SourceCorpus, k)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	return scanMatches(rows, "lexical search")
}

// ftsQuery turns free text into an FTS5 query that ORs every distinct word
// as a quoted string, so user text can never be parsed as FTS5 syntax.
// Words are split the way unicode61 splits them: on anything that is not a
// letter, digit or combining mark.
func ftsQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
	})
	seen := map[string]bool{}
	var terms []string
	for _, w := range words {
		key := strings.ToLower(w)
		if seen[key] {
			continue
		}
		seen[key] = true
		// Words hold no quotes after the split; quoting still keeps FTS5
		// keywords such as AND, OR, NOT and NEAR literal.
		terms = append(terms, `"`+w+`"`)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return strings.Join(terms, " OR ")
}

// SearchVector finds the k evidence chunks nearest to vec, nearest first.
func (s *Store) SearchVector(ctx context.Context, vec []float32, k int) ([]Match, error) {
	if dim := s.Dim(); len(vec) != dim {
		return nil, fmt.Errorf("vector search: %w: query vector has length %d, the index expects %d",
			ErrDimensionMismatch, len(vec), dim)
	}
	if k <= 0 {
		return nil, nil
	}
	k = min(k, maxK)
	rows, err := s.r.QueryContext(ctx, `WITH knn AS (
			SELECT rowid, distance FROM chunks_vec
			WHERE embedding MATCH ? AND k = ? AND source = ?
		)
		SELECT c.snippet_id, knn.distance
		FROM knn JOIN chunks c ON c.id = knn.rowid
		WHERE c.source = ?
		ORDER BY knn.distance, c.snippet_id`,
		encodeVector(vec), k, corpus.SourceCorpus, corpus.SourceCorpus)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return scanMatches(rows, "vector search")
}

type rowScanner interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}

func scanMatches(rows rowScanner, what string) ([]Match, error) {
	defer rows.Close()
	var out []Match
	for rows.Next() {
		var m Match
		if err := rows.Scan(&m.SnippetID, &m.Score); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		m.Rank = len(out) + 1
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// chunkBatch stays well below SQLite's bound-parameter limit.
const chunkBatch = 500

// Chunks returns the records for snippetIDs; unknown ids are absent from the
// map.
func (s *Store) Chunks(ctx context.Context, snippetIDs []string) (map[string]ChunkRecord, error) {
	out := make(map[string]ChunkRecord, len(snippetIDs))
	for start := 0; start < len(snippetIDs); start += chunkBatch {
		batch := snippetIDs[start:min(start+chunkBatch, len(snippetIDs))]
		if err := s.readChunks(ctx, batch, out); err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
	}
	return out, nil
}

func (s *Store) readChunks(ctx context.Context, ids []string, out map[string]ChunkRecord) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	placeholders := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id, c.doc_id, c.section_id, c.ordinal, c.text,
		c.char_start, c.char_end, c.unit, c.tokens, c.pre, c.post, c.page, c.source, c.created_at,
		c.embed_model, d.title, d.path, d.rev
		FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
		WHERE c.snippet_id IN (`+placeholders+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ChunkRecord
		var created int64
		if err := rows.Scan(&r.SnippetID, &r.DocID, &r.SectionID, &r.Ordinal, &r.Text,
			&r.Offsets.Start, &r.Offsets.End, &r.Offsets.Unit, &r.Tokens, &r.Window.Pre, &r.Window.Post,
			&r.Page, &r.Source, &created, &r.EmbedModel, &r.Title, &r.Path, &r.Rev); err != nil {
			return err
		}
		r.CreatedAt = fromUnixNano(created)
		out[r.SnippetID] = r
	}
	return rows.Err()
}
