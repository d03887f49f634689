package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/facts"
	"github.com/footnote-app/footnote/backend/vecindex"

	"github.com/footnote-app/footnote/backend/lexical"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Match is one retrieval hit with its raw score; fusion happens elsewhere.
type Match struct {
	SnippetID string
	// Score is bm25() over the words that were weighed for lexical hits
	// (lower is better; on a large index a chunk holding every query word
	// can rank above a better bm25, see backend/lexical) and the L2 distance
	// for vector hits (lower is better).
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
	OCR        bool   // the chunk's page was read by OCR (dococr.go)
	Collection string // the document's collection ("" outside one)
}

// Limits that keep one query cheap and inside vec0's bounds.
const (
	maxK = 4096 // vec0 rejects larger k
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

// where renders the filter as SQL conditions on the chunks alias c. Its
// first conditions are the SQL form of the evidence rule, corpus.NotEvidence
// (TestEvidenceSQLMatchesPredicate holds the two together).
func (f Filter) where() (string, []any) {
	conds := []string{"c.source = ?"}
	args := []any{corpus.SourceCorpus}
	for _, col := range []string{"c.snippet_id", "c.doc_id", "c.section_id"} {
		cond, cargs := notReserved(col)
		conds = append(conds, cond)
		args = append(args, cargs...)
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

// notReserved renders "col has none of the reserved prefixes". A prefix
// that ends in its only colon is present exactly when the text up to the
// id's first colon equals it, so ids without a colon (all of Footnote's
// own) cost one instr() for all such prefixes instead of a substr() per
// prefix (which took ~2 µs a row, a third of a lexical query at 100k
// chunks). Any other prefix is compared directly.
func notReserved(col string) (string, []any) {
	var colonEnded, args []any
	var conds []string
	for _, p := range corpus.ReservedPrefixes {
		if strings.Index(p, ":") == len(p)-1 {
			colonEnded = append(colonEnded, p)
			continue
		}
		conds = append(conds, fmt.Sprintf("substr(%s, 1, %d) != ?", col, len(p)))
		args = append(args, p)
	}
	if len(colonEnded) > 0 {
		conds = append(conds, fmt.Sprintf("(instr(%[1]s, ':') = 0 OR substr(%[1]s, 1, instr(%[1]s, ':')) NOT IN (%[2]s))",
			col, placeholders(len(colonEnded))))
		args = append(args, colonEnded...)
	}
	return strings.Join(conds, " AND "), args
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// SearchLexical finds up to k evidence chunks matching the words of query.
// See SearchLexicalFiltered.
func (s *Store) SearchLexical(ctx context.Context, query string, k int) ([]Match, error) {
	return s.SearchLexicalFiltered(ctx, query, k, Filter{})
}

// SearchLexicalFiltered finds up to k eligible chunks passing f that match
// the words of query, in the planner's order (ties by snippet id). Query text is
// treated as plain words: FTS5 operators, quotes and parentheses have no
// special meaning. Korean words match their inflected forms and Chinese or
// Japanese text matches by character bigrams (see backend/lexical). A chunk
// matched in both the word and the bigram index scores the sum of both
// bm25 values. When the index is large, the rarest words pick the chunks
// scored and every other word is still weighed in bm25; chunks holding every
// query word rank first, then the rest by bm25 (see backend/lexical). A query
// with no words returns no matches.
func (s *Store) SearchLexicalFiltered(ctx context.Context, query string, k int, f Filter) ([]Match, error) {
	q := lexical.Analyze(query).WithSpellings(facts.Spellings)
	if (len(q.Words) == 0 && len(q.Grams) == 0) || k <= 0 {
		return nil, nil
	}
	k = min(k, maxK)
	tune := lexTune
	words, err := s.termStats(ctx, "chunks_fts", q.Words, tune)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	grams, err := s.termStats(ctx, "chunks_cjk", q.Grams, tune)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	tables := [][]lexical.Branch{
		lexical.Plan("chunks_fts", words, k, f.narrows(), tune),
		lexical.Plan("chunks_cjk", grams, k, f.narrows(), tune),
	}
	stages := 0
	for _, t := range tables {
		stages = max(stages, len(t))
	}
	var res []Match
	for i := range stages {
		// A table with fewer stages keeps its last one in later stages.
		var branches []lexical.Branch
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

// searchQuantised preselects candidates from the quantised copy and rescores
// them exactly. Each step is a cheap query on one reader connection: a join
// of candidates with the vec0 table made SQLite scan it whole (tens of
// milliseconds at 100k chunks), while a rowid lookup takes microseconds.
//
// A binary search has three stages: the codes in memory pick
// binaryCandidates (vecindex.Codes), their int8 codes narrow them
// to exactCount(k) (shortlist), and those get exact distances. The int8
// kind, and binary should its block layout be unreadable, use vec0's KNN
// over the quantised table and rescore all of its candidates exactly.
func (s *Store) searchQuantised(ctx context.Context, p *vecindex.Params, vec []float32, k int, f Filter) ([]Match, error) {
	if err := s.checkQueryVector(vec); err != nil || k <= 0 {
		return nil, err
	}
	k = min(k, maxK)
	candidates := min(max(k*int8Oversample, minCandidates), maxK)
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	defer conn.Close()
	ms, err := s.searchCandidates(ctx, conn, p, vec, k, candidates, f)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return ms, nil
}

func (s *Store) searchCandidates(ctx context.Context, conn *sql.Conn, p *vecindex.Params, vec []float32, k, candidates int, f Filter) ([]Match, error) {
	if p.Kind == VectorBinary {
		set, ok, err := s.binaryCodes(ctx, conn)
		if err != nil {
			return nil, err
		}
		if ok {
			ids := set.Nearest(p, vec, binaryCandidates(k, set.Len()))
			cands, err := shortlist(ctx, conn, p, vec, ids, exactCount(k), f)
			if err != nil {
				return nil, err
			}
			return exactScores(ctx, conn, vec, cands, k)
		}
	}
	rows, err := conn.QueryContext(ctx, `SELECT rowid FROM `+quantTable(p.Kind)+`
		WHERE embedding MATCH `+sqlCode(p)+` AND k = ? AND source = ?`,
		p.Code(vec), candidates, corpus.SourceCorpus)
	if err != nil {
		return nil, err
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return nil, err
	}
	return rescore(ctx, conn, vec, ids, k, f)
}

func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// exactCount is how many shortlisted candidates of a binary search get
// their exact distance for k hits. Each costs a vec0 row lookup (~35 µs:
// sqlite-vec opens a blob handle per row). The int8 distances that pick
// them are close to exact: at 100k chunks the last of the exact top 20
// was at int8 rank 20 for half the queries, 21 for 90% and 26 at worst,
// so k/2 extra keeps the exact order.
func exactCount(k int) int { return k + max(k/2, 4) }

// candidate is a chunk that passed the filter, with its estimated distance.
type candidate struct {
	id      int64
	snippet string
	approx  float64
}

// shortlist returns the keep candidates among ids that pass f and lie
// nearest to vec by the distance to their int8 codes (ties by rowid). The
// codes are read first and only the nearest are checked against f, in
// batches: at a million chunks reading each candidate's chunk row as well
// doubled the cost of this stage.
func shortlist(ctx context.Context, conn *sql.Conn, p *vecindex.Params, vec []float32, ids []int64, keep int, f Filter) ([]candidate, error) {
	if len(ids) == 0 || keep <= 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := conn.QueryContext(ctx, `SELECT id, code FROM `+shortlistTable+`
		WHERE id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, err
	}
	query := p.Int8Query(vec)
	near := make([]candidate, 0, len(ids))
	for rows.Next() {
		var c candidate
		var code sql.RawBytes
		if err := rows.Scan(&c.id, &code); err != nil {
			rows.Close()
			return nil, err
		}
		if len(code) != len(vec) {
			rows.Close()
			return nil, fmt.Errorf("chunk %d has an int8 code of %d bytes, want %d", c.id, len(code), len(vec))
		}
		c.approx = float64(query.Distance(code))
		near = append(near, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(near, func(a, b candidate) int {
		if a.approx != b.approx {
			return cmp.Compare(a.approx, b.approx)
		}
		return cmp.Compare(a.id, b.id)
	})
	var out []candidate
	for len(near) > 0 && len(out) < keep {
		need := keep - len(out)
		batch := near[:min(len(near), need+need/2+4)]
		near = near[len(batch):]
		ok, err := eligibleSnippets(ctx, conn, batch, f)
		if err != nil {
			return nil, err
		}
		for _, c := range batch {
			if snippet, found := ok[c.id]; found && len(out) < keep {
				c.snippet = snippet
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// eligibleSnippets maps the rowids of cands that pass f to snippet ids.
func eligibleSnippets(ctx context.Context, conn *sql.Conn, cands []candidate, f Filter) (map[int64]string, error) {
	where, wargs := f.where()
	args := make([]any, 0, len(cands)+len(wargs))
	for _, c := range cands {
		args = append(args, c.id)
	}
	rows, err := conn.QueryContext(ctx, `SELECT c.id, c.snippet_id FROM chunks c
		WHERE c.id IN (`+placeholders(len(cands))+`) AND `+where, append(args, wargs...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]string, len(cands))
	for rows.Next() {
		var id int64
		var snippet string
		if err := rows.Scan(&id, &snippet); err != nil {
			return nil, err
		}
		out[id] = snippet
	}
	return out, rows.Err()
}

// rescore keeps the candidate chunks that pass f and returns the k nearest
// by exact float32 distance (ties by snippet id).
func rescore(ctx context.Context, conn *sql.Conn, vec []float32, ids []int64, k int, f Filter) ([]Match, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cands := make([]candidate, len(ids))
	for i, id := range ids {
		cands[i].id = id
	}
	ok, err := eligibleSnippets(ctx, conn, cands, f)
	if err != nil {
		return nil, err
	}
	eligible := cands[:0]
	for _, c := range cands {
		if snippet, found := ok[c.id]; found {
			c.snippet = snippet
			eligible = append(eligible, c)
		}
	}
	return exactScores(ctx, conn, vec, eligible, k)
}

// exactScores returns the k of cands nearest to vec by exact float32
// distance (ties by snippet id), looked up one rowid at a time: a join
// with the vec0 table would scan it whole.
func exactScores(ctx context.Context, conn *sql.Conn, vec []float32, eligible []candidate, k int) ([]Match, error) {
	if len(eligible) == 0 {
		return nil, nil
	}
	stmt, err := conn.PrepareContext(ctx, `SELECT vec_distance_l2(embedding, ?) FROM chunks_vec WHERE rowid = ?`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	q := encodeVector(vec)
	out := make([]Match, 0, len(eligible))
	for _, c := range eligible {
		var d float64
		err := stmt.QueryRowContext(ctx, q, c.id).Scan(&d)
		if errors.Is(err, sql.ErrNoRows) {
			continue // deleted since the candidates were chosen
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Match{SnippetID: c.snippet, Score: d})
	}
	slices.SortFunc(out, func(a, b Match) int {
		if a.Score != b.Score {
			return cmp.Compare(a.Score, b.Score)
		}
		return strings.Compare(a.SnippetID, b.SnippetID)
	})
	out = out[:min(k, len(out))]
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, nil
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
	rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id, c.doc_id, c.section_id, c.ordinal, c.text, c.context,
		c.char_start, c.char_end, c.unit, c.tokens, c.pre, c.post, c.page, c.source, c.created_at,
		c.embed_model, d.title, d.path, d.rev, d.collection, `+chunkOCRColumn+`
		FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
		WHERE c.snippet_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ChunkRecord
		var created int64
		if err := rows.Scan(&r.SnippetID, &r.DocID, &r.SectionID, &r.Ordinal, &r.Text, &r.Context,
			&r.Offsets.Start, &r.Offsets.End, &r.Offsets.Unit, &r.Tokens, &r.Window.Pre, &r.Window.Post,
			&r.Page, &r.Source, &created, &r.EmbedModel, &r.Title, &r.Path, &r.Rev, &r.Collection, &r.OCR); err != nil {
			return err
		}
		r.CreatedAt = fromUnixNano(created)
		out[r.SnippetID] = r
	}
	return rows.Err()
}
