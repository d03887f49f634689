package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

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

// Filter narrows retrieval. Evidence eligibility (corpus source, no reserved
// id prefixes) is always applied; the fields add to it.
type Filter struct {
	Collections []string  // only documents in these collections (none = all)
	DocIDs      []string  // only these documents (none = all)
	AsOf        time.Time // only chunks created at or before this instant (zero = no bound)
}

// narrows reports whether the filter selects a subset of documents, which
// vector search answers with an exact scan of that subset.
func (f Filter) narrows() bool { return len(f.Collections) > 0 || len(f.DocIDs) > 0 }

// where renders the filter as SQL conditions on the chunks alias c.
func (f Filter) where() (string, []any) {
	conds := []string{"c.source = ?"}
	args := []any{corpus.SourceCorpus}
	for _, col := range []string{"c.snippet_id", "c.doc_id", "c.section_id"} {
		for _, p := range corpus.ReservedPrefixes {
			conds = append(conds, fmt.Sprintf("substr(%s, 1, %d) != ?", col, len(p)))
			args = append(args, p)
		}
	}
	if !f.AsOf.IsZero() {
		conds = append(conds, "c.created_at <= ?")
		args = append(args, f.AsOf.UnixNano())
	}
	if len(f.DocIDs) > 0 {
		conds = append(conds, "c.doc_id IN ("+placeholders(len(f.DocIDs))+")")
		for _, id := range f.DocIDs {
			args = append(args, id)
		}
	}
	if len(f.Collections) > 0 {
		conds = append(conds, "c.doc_id IN (SELECT doc_id FROM documents WHERE collection IN ("+placeholders(len(f.Collections))+"))")
		for _, c := range f.Collections {
			args = append(args, c)
		}
	}
	return strings.Join(conds, " AND "), args
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// SearchLexical finds up to k evidence chunks matching any word of query,
// best bm25 first. See SearchLexicalFiltered.
func (s *Store) SearchLexical(ctx context.Context, query string, k int) ([]Match, error) {
	return s.SearchLexicalFiltered(ctx, query, k, Filter{})
}

// SearchLexicalFiltered finds up to k eligible chunks passing f that match
// the words of query, best bm25 first (ties by snippet id). Query text is
// treated as plain words: FTS5 operators, quotes and parentheses have no
// special meaning. Korean words match their inflected forms and Chinese or
// Japanese text matches by character bigrams (see analyzer.go). A chunk
// matched in both the word and the bigram index scores the sum of both
// bm25 values. Common words are skipped and chunks holding all remaining
// words are preferred when the index is large (see lexical.go). A query
// with no words returns no matches.
func (s *Store) SearchLexicalFiltered(ctx context.Context, query string, k int, f Filter) ([]Match, error) {
	q := analyzeQuery(query)
	if (len(q.words) == 0 && len(q.grams) == 0) || k <= 0 {
		return nil, nil
	}
	k = min(k, maxK)
	tune := lexTune
	words, err := s.termStats(ctx, "chunks_fts", q.words, tune)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	grams, err := s.termStats(ctx, "chunks_cjk", q.grams, tune)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	tables := [][]lexBranch{
		planTable("chunks_fts", words, k, f.narrows(), tune),
		planTable("chunks_cjk", grams, k, f.narrows(), tune),
	}
	stages := 0
	for _, t := range tables {
		stages = max(stages, len(t))
	}
	var res []Match
	for i := range stages {
		// A table with fewer stages keeps its last one in later stages.
		var branches []lexBranch
		for _, t := range tables {
			if len(t) > 0 {
				branches = append(branches, t[min(i, len(t)-1)])
			}
		}
		if res, err = s.runLexical(ctx, branches, k, f); err != nil || len(res) >= k {
			return res, err
		}
	}
	return res, nil
}

// SearchVector finds the k evidence chunks nearest to vec, nearest first.
// See SearchVectorFiltered.
func (s *Store) SearchVector(ctx context.Context, vec []float32, k int) ([]Match, error) {
	return s.SearchVectorFiltered(ctx, vec, k, Filter{})
}

// SearchVectorFiltered finds up to k eligible chunks passing f nearest to
// vec, nearest first (ties by snippet id). Scores are exact L2 distances
// between float32 vectors whatever the storage kind: a quantised index only
// preselects candidates, which are then rescored. A filter naming
// collections or documents is answered by an exact scan of that subset.
func (s *Store) SearchVectorFiltered(ctx context.Context, vec []float32, k int, f Filter) ([]Match, error) {
	if p := s.quant.Load(); p != nil && !f.narrows() {
		return s.searchQuantised(ctx, p, vec, k, f)
	}
	return s.SearchVectorExact(ctx, vec, k, f)
}

// SearchVectorExact is SearchVectorFiltered over the float32 vectors only:
// the exact answer quantised search is measured against.
func (s *Store) SearchVectorExact(ctx context.Context, vec []float32, k int, f Filter) ([]Match, error) {
	if err := s.checkQueryVector(vec); err != nil || k <= 0 {
		return nil, err
	}
	k = min(k, maxK)
	where, wargs := f.where()
	var rows *sql.Rows
	var err error
	if f.narrows() {
		args := append([]any{encodeVector(vec)}, wargs...)
		rows, err = s.r.QueryContext(ctx, `SELECT c.snippet_id, vec_distance_l2(v.embedding, ?) AS d
			FROM chunks c JOIN chunks_vec v ON v.rowid = c.id
			WHERE `+where+`
			ORDER BY d, c.snippet_id
			LIMIT ?`, append(args, k)...)
	} else {
		args := append([]any{encodeVector(vec), k, corpus.SourceCorpus}, wargs...)
		rows, err = s.r.QueryContext(ctx, `WITH knn AS (
				SELECT rowid, distance FROM chunks_vec
				WHERE embedding MATCH ? AND k = ? AND source = ?
			)
			SELECT c.snippet_id, knn.distance
			FROM knn JOIN chunks c ON c.id = knn.rowid
			WHERE `+where+`
			ORDER BY knn.distance, c.snippet_id`, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return scanMatches(rows, "vector search")
}

func (s *Store) searchQuantised(ctx context.Context, p *quantParams, vec []float32, k int, f Filter) ([]Match, error) {
	if err := s.checkQueryVector(vec); err != nil || k <= 0 {
		return nil, err
	}
	k = min(k, maxK)
	over := int8Oversample
	if p.Kind == VectorBinary {
		over = binaryOversample
	}
	candidates := min(max(k*over, minCandidates), maxK)
	where, wargs := f.where()
	args := append([]any{p.code(vec), candidates, corpus.SourceCorpus, encodeVector(vec)}, wargs...)
	rows, err := s.r.QueryContext(ctx, `WITH cand AS (
			SELECT rowid FROM `+quantTable(p.Kind)+`
			WHERE embedding MATCH `+p.sqlCode()+` AND k = ? AND source = ?
		)
		SELECT c.snippet_id, vec_distance_l2(v.embedding, ?) AS d
		FROM cand JOIN chunks c ON c.id = cand.rowid JOIN chunks_vec v ON v.rowid = cand.rowid
		WHERE `+where+`
		ORDER BY d, c.snippet_id
		LIMIT ?`, append(args, k)...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return scanMatches(rows, "vector search")
}

func (s *Store) checkQueryVector(vec []float32) error {
	if dim := s.Dim(); len(vec) != dim {
		return fmt.Errorf("vector search: %w: query vector has length %d, the index expects %d",
			ErrDimensionMismatch, len(vec), dim)
	}
	return nil
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
	rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id, c.doc_id, c.section_id, c.ordinal, c.text,
		c.char_start, c.char_end, c.unit, c.tokens, c.pre, c.post, c.page, c.source, c.created_at,
		c.embed_model, d.title, d.path, d.rev
		FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
		WHERE c.snippet_id IN (`+placeholders(len(ids))+`)`, args...)
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
