package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Lexical query planning.
//
// Turning every query word into one big OR is exact but slow at scale: FTS5
// scores every row that contains any of the words, and a common word is in
// most rows (555–784 ms per query at 100k chunks on a busy 2-core machine). The
// planner therefore looks at each term's document frequency first, read from
// the FTS5 index itself with a capped count, and
//
//   - runs the plain OR over all terms when the terms match few rows in
//     total (small libraries, rare words): exact, and cheap anyway;
//   - otherwise drops the common terms (in more than 1/commonShare of the
//     rows; their bm25 weight is small anyway), asks for chunks holding all
//     remaining terms (AND) first and falls back to the OR of the rarest of
//     them only when AND finds fewer than k chunks;
//   - when every term is common (a query such as "the"), ranks only the
//     first capRows chunks holding the three rarest of them, then the rarest
//     alone, so a common word alone still finds results at bounded cost.
//
// Bounded stages ask FTS5 for a window of the best bm25 rows before joining
// chunks and applying the filter; a stage whose window was used up but left
// fewer than k eligible chunks is rerun without the window. Every decision
// depends only on the query and the index contents, so results stay
// deterministic.

// lexTuning holds the planner's thresholds (see lexTune for the values).
type lexTuning struct {
	// commonShare: a term in more than 1/commonShare of the rows is common.
	commonShare int
	// minCommonRows, maxCommonRows clamp that share: below minCommonRows
	// no term counts as common (scoring that many rows costs about a
	// millisecond); maxCommonRows bounds what counting a term's rows costs
	// in a very large index.
	minCommonRows, maxCommonRows int
	// exactBudget: when all terms together match at most this many rows the
	// exact OR runs.
	exactBudget int
	// orBudget bounds the rows the OR fallback scores: the rarest terms are
	// kept while their document frequencies sum to at most this (the rarest
	// term is always kept).
	orBudget int
	// capRows: when every term is common, only this many matching rows (the
	// first in rowid order) are ranked.
	capRows int
	// windowFactor, minWindow: bounded stages take max(k·windowFactor,
	// minWindow) best rows per index before filtering.
	windowFactor, minWindow int
}

// lexTune was set with bench/retrieval; tests shrink it to exercise the
// large-index plans on a few hundred chunks.
var lexTune = lexTuning{
	commonShare:   20,
	minCommonRows: 2000,
	maxCommonRows: 50000,
	exactBudget:   4000,
	orBudget:      20000,
	capRows:       2000,
	windowFactor:  4,
	minWindow:     64,
}

// lexTerm is one FTS5 term with its document frequency, counted up to the
// table's common limit (a common term's df is limit+1).
type lexTerm struct {
	expr   string
	df     int
	common bool
}

// lexBranch is one FTS5 query in a stage.
type lexBranch struct {
	table string
	expr  string
	// limit is how many rows the branch takes from FTS5; -1 = all.
	limit int
	// ranked takes the best bm25 rows; otherwise the first rows in rowid
	// order (the capped scan of common terms).
	ranked bool
}

// termStats counts how many rows of table each term matches, up to the
// common limit, and sorts terms rarest first (ties by term, for
// determinism).
func (s *Store) termStats(ctx context.Context, table string, exprs []string, tune lexTuning) ([]lexTerm, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	rows, err := ftsRowCount(ctx, s.r, table)
	if err != nil {
		return nil, err
	}
	limit := min(max(tune.minCommonRows, rows/tune.commonShare), max(tune.minCommonRows, tune.maxCommonRows))
	out := make([]lexTerm, 0, len(exprs))
	for _, e := range exprs {
		var df int
		err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+table+` WHERE `+table+` MATCH ? LIMIT ?)`,
			e, limit+1).Scan(&df)
		if err != nil {
			return nil, fmt.Errorf("count %s: %w", e, err)
		}
		out = append(out, lexTerm{expr: e, df: df, common: df > limit})
	}
	slices.SortStableFunc(out, func(a, b lexTerm) int {
		if a.df != b.df {
			return a.df - b.df
		}
		return strings.Compare(a.expr, b.expr)
	})
	return out, nil
}

// ftsRowCount reads the number of rows in an FTS5 table from the index's
// averages record (id 1 of the %_data table: a varint row count followed by
// per-column token totals), which is O(1) where count(*) reads every row.
func ftsRowCount(ctx context.Context, db *sql.DB, table string) (int, error) {
	var blob []byte
	err := db.QueryRowContext(ctx, `SELECT block FROM `+table+`_data WHERE id = 1`).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s statistics: %w", table, err)
	}
	n, _ := sqliteVarint(blob)
	return int(min(n, 1<<40)), nil
}

// sqliteVarint decodes SQLite's big-endian varint (up to nine bytes, the
// ninth contributing all eight bits). It returns the value and its length,
// or 0, 0 for a truncated input.
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// planTable returns the stages for one FTS5 table, cheapest first; later
// stages run only when earlier ones find fewer than k chunks. unbounded
// (a narrowing filter) takes every matching row, since the filter may reject
// most of a window.
func planTable(table string, terms []lexTerm, k int, unbounded bool, tune lexTuning) []lexBranch {
	var live []lexTerm
	total, anyCommon := 0, false
	for _, t := range terms {
		if t.df == 0 {
			continue // matches nothing, in AND or OR
		}
		live = append(live, t)
		total += t.df
		anyCommon = anyCommon || t.common
	}
	if len(live) == 0 {
		return nil
	}
	window := max(k*tune.windowFactor, tune.minWindow)
	if unbounded {
		window = -1
	}
	if !anyCommon && total <= tune.exactBudget {
		return []lexBranch{{table: table, expr: orExpr(live), limit: -1, ranked: true}}
	}
	var rare []lexTerm
	for _, t := range live {
		if !t.common {
			rare = append(rare, t)
		}
	}
	if len(rare) == 0 {
		// bm25 reads a term's whole row list once per query to weigh it, so
		// only the three rarest common terms take part: chunks with all of
		// them first (usually few), then chunks with the rarest.
		limit := tune.capRows
		if unbounded {
			limit = -1
		}
		stages := []lexBranch{{table: table, expr: andExpr(live[:min(3, len(live))]), limit: limit}}
		if len(live) > 1 {
			stages = append(stages, lexBranch{table: table, expr: live[0].expr, limit: limit})
		}
		return stages
	}
	var stages []lexBranch
	if len(rare) > 1 {
		stages = append(stages, lexBranch{table: table, expr: andExpr(rare), limit: window, ranked: true})
	}
	n, sum := 0, 0
	for n < len(rare) && (n == 0 || sum+rare[n].df <= tune.orBudget) {
		sum += rare[n].df
		n++
	}
	return append(stages, lexBranch{table: table, expr: orExpr(rare[:n]), limit: window, ranked: true})
}

func orExpr(ts []lexTerm) string  { return joinExprs(ts, " OR ") }
func andExpr(ts []lexTerm) string { return joinExprs(ts, " AND ") }

func joinExprs(ts []lexTerm, sep string) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.expr
	}
	return strings.Join(parts, sep)
}

// runLexical runs one stage: every branch's rows, summed per chunk, joined
// to chunks and filtered, best first. If fewer than k chunks survive and a
// branch's window was full, the stage is rerun with every row.
func (s *Store) runLexical(ctx context.Context, branches []lexBranch, k int, f Filter) ([]Match, error) {
	res, full, err := s.queryLexical(ctx, branches, k, f)
	if err != nil || len(res) >= k || !full {
		return res, err
	}
	all := slices.Clone(branches)
	for i := range all {
		all[i].limit = -1
	}
	res, _, err = s.queryLexical(ctx, all, k, f)
	return res, err
}

// queryLexical reports whether any bounded branch returned as many rows as
// its limit (so rows past the window may exist).
func (s *Store) queryLexical(ctx context.Context, branches []lexBranch, k int, f Filter) ([]Match, bool, error) {
	var parts, counts []string
	var args []any
	for i, b := range branches {
		order := ""
		if b.ranked {
			order = " ORDER BY s, id"
		}
		parts = append(parts, fmt.Sprintf(`SELECT %d AS b, id, s FROM (SELECT rowid AS id, bm25(%s) AS s FROM %s WHERE %s MATCH ?%s LIMIT ?)`,
			i, b.table, b.table, b.table, order))
		counts = append(counts, fmt.Sprintf(`(SELECT count(*) FROM hits WHERE b = %d)`, i))
		args = append(args, b.expr, b.limit)
	}
	where, wargs := f.where()
	args = append(append(args, wargs...), k)
	rows, err := s.r.QueryContext(ctx, `WITH hits AS MATERIALIZED (`+strings.Join(parts, " UNION ALL ")+`)
		SELECT c.snippet_id, sum(hits.s) AS score, `+strings.Join(counts, ", ")+`
		FROM hits JOIN chunks c ON c.id = hits.id
		WHERE `+where+`
		GROUP BY c.id
		ORDER BY score, c.snippet_id
		LIMIT ?`, args...)
	if err != nil {
		return nil, false, fmt.Errorf("lexical search: %w", err)
	}
	defer rows.Close()
	var out []Match
	got := make([]int, len(branches))
	dest := make([]any, 2+len(branches))
	for rows.Next() {
		var m Match
		dest[0], dest[1] = &m.SnippetID, &m.Score
		for i := range got {
			dest[2+i] = &got[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, false, fmt.Errorf("lexical search: %w", err)
		}
		m.Rank = len(out) + 1
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("lexical search: %w", err)
	}
	full := false
	for i, b := range branches {
		// No row at all: the window may have held only filtered-out chunks.
		if b.limit >= 0 && (len(out) == 0 || got[i] >= b.limit) {
			full = true
		}
	}
	return out, full, nil
}
