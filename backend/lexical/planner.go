package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
//   - otherwise leaves the common terms (in more than 1/commonShare of the
//     rows) out of bm25, since weighing a term reads its whole row list and
//     a common term weighs little anyway, but not out of the query: chunks
//     holding every query word, common ones included, rank first, then the
//     other chunks by bm25 over the remaining terms. Intersecting with a
//     common term walks its whole row list, so only the least common of
//     them take part, within allBudget rows. Chunks holding
//     all remaining terms (AND) are asked for first, and the OR of the
//     rarest of them runs only when AND finds fewer than k chunks;
//   - when every term is common (a query such as "the"), ranks only the
//     first capRows chunks holding the three rarest of them (weighed by the
//     rarest alone), then the rarest alone, so a common word alone still
//     finds results at bounded cost. Common terms' counts stop at the same
//     cap, so among them "rarest" means first by term.
//
// Dropping common terms outright instead cost recall: in bench/retrieval the
// source of a three-word query was in the top 10 for 101 of 200 queries at
// 100k chunks (84 at 1M), against 122 now (100 at 1M); the exact OR finds
// 129 at 100k, as many chunks share the same three words.
//
// Bounded stages ask FTS5 for a window of the best rows (chunks with every
// word first, then by bm25) before joining chunks and applying the filter; a stage whose window was used up but left
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
	// allBudget bounds the common terms a chunk must hold to rank first:
	// FTS5 walks a common term's whole row list to intersect it (about
	// 15 ns a row), so the least common are taken while their estimated
	// document frequencies sum to at most this.
	allBudget int
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
	commonShare:   50,
	minCommonRows: 1000,
	maxCommonRows: 10000,
	exactBudget:   4000,
	orBudget:      20000,
	allBudget:     300000,
	capRows:       2000,
	windowFactor:  4,
	minWindow:     64,
}

// lexTerm is one FTS5 term with its document frequency, counted up to the
// table's common limit; a common term's df is estimated from how far into
// the index the capped count reached.
type lexTerm struct {
	expr   string
	df     int
	common bool
}

// lexBranch is one FTS5 query in a stage.
type lexBranch struct {
	table string
	// expr selects the rows and is what bm25 weighs.
	expr string
	// all, when set, is the AND of every query term: rows matching it (the
	// chunk holds every query word) rank before the others. With only set,
	// the branch keeps those rows alone.
	all  string
	only bool
	// limit is how many rows the branch takes from FTS5; -1 = all.
	limit int
	// ranked takes the best rows (rows matching all first, then by bm25);
	// otherwise the first rows in rowid order (the capped scan of common
	// terms).
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
		var last sql.NullInt64
		err := s.r.QueryRowContext(ctx, `SELECT count(*), max(id) FROM (SELECT rowid AS id FROM `+table+` WHERE `+table+` MATCH ? LIMIT ?)`,
			e, limit+1).Scan(&df, &last)
		if err != nil {
			return nil, fmt.Errorf("count %s: %w", e, err)
		}
		t := lexTerm{expr: e, df: df, common: df > limit}
		if t.common && last.Int64 > 0 {
			// The count stopped at the cap; where it stopped tells how
			// dense the term is (rowids run roughly from 1 to rows).
			t.df = int(min(max(int64(df)*int64(rows)/last.Int64, int64(df)), int64(max(rows, df))))
		}
		out = append(out, t)
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
		// Only the rarest term is weighed, and only the first capRows
		// chunks (in rowid order) holding it and the next two rarest are
		// ranked; then chunks holding the rarest alone.
		limit := tune.capRows
		if unbounded {
			limit = -1
		}
		first := lexBranch{table: table, expr: live[0].expr, limit: limit}
		if len(live) == 1 {
			return []lexBranch{first}
		}
		return []lexBranch{{table: table, expr: live[0].expr, all: andExpr(live[:min(3, len(live))]), only: true, limit: limit}, first}
	}
	// Common terms stay out of bm25 (weighing one reads its whole row list)
	// but not out of the query: a chunk holding every rare word and the
	// least common of the common ones, within allBudget, ranks before
	// chunks holding only the rare ones.
	all := ""
	every, spent := slices.Clone(rare), 0
	for _, t := range live[len(rare):] {
		if spent += t.df; spent > tune.allBudget {
			break
		}
		every = append(every, t)
	}
	if len(every) > len(rare) {
		all = andExpr(every)
	}
	var stages []lexBranch
	if len(rare) > 1 {
		stages = append(stages, lexBranch{table: table, expr: andExpr(rare), all: all, limit: window, ranked: true})
	}
	n, sum := 0, 0
	for n < len(rare) && (n == 0 || sum+rare[n].df <= tune.orBudget) {
		sum += rare[n].df
		n++
	}
	return append(stages, lexBranch{table: table, expr: orExpr(rare[:n]), all: all, limit: window, ranked: true})
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
// its limit (so rows past the window may exist). A chunk's tier is 0 when
// a branch found every query word in it; chunks are ordered by tier, then
// by the sum of their bm25 values. The first result row carries the row
// count of each branch, read before the filter, so an empty answer still
// tells whether a window was full. CROSS JOIN keeps the hits as the outer
// loop: inside the compound select SQLite 3.54 otherwise scans every chunk.
func (s *Store) queryLexical(ctx context.Context, branches []lexBranch, k int, f Filter) ([]Match, bool, error) {
	query, args := lexicalSQL(branches, k, f)
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, fmt.Errorf("lexical search: %w", err)
	}
	defer rows.Close()
	var out []Match
	var got []int
	for rows.Next() {
		var m Match
		var tier int
		var stats string
		if err := rows.Scan(&m.SnippetID, &m.Score, &tier, &stats); err != nil {
			return nil, false, fmt.Errorf("lexical search: %w", err)
		}
		if tier < 0 {
			for _, f := range strings.Fields(stats) {
				n, err := strconv.Atoi(f)
				if err != nil {
					return nil, false, fmt.Errorf("lexical search: branch row count %q: %w", f, err)
				}
				got = append(got, n)
			}
			continue
		}
		m.Rank = len(out) + 1
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("lexical search: %w", err)
	}
	if len(got) != len(branches) {
		return nil, false, fmt.Errorf("lexical search: %d branch row counts for %d branches", len(got), len(branches))
	}
	full := false
	for i, b := range branches {
		if b.limit >= 0 && got[i] >= b.limit {
			full = true
		}
	}
	return out, full, nil
}

// lexicalSQL renders one stage as a single statement and its arguments.
func lexicalSQL(branches []lexBranch, k int, f Filter) (string, []any) {
	var parts, counts []string
	var args []any
	for i, b := range branches {
		tier, only, order := "0", "", ""
		var tierArgs, onlyArgs []any
		allRows := `(SELECT rowid FROM ` + b.table + ` WHERE ` + b.table + ` MATCH ?)`
		switch {
		case b.all != "" && b.only:
			// Both lists come in rowid order, so the capped set holds
			// every row the capped outer scan can keep.
			only = ` AND +rowid IN (SELECT rowid FROM ` + b.table + ` WHERE ` + b.table + ` MATCH ? LIMIT ?)`
			onlyArgs = []any{b.all, b.limit}
		case b.all != "":
			tier = `(rowid NOT IN ` + allRows + `)`
			tierArgs = []any{b.all}
		}
		if b.ranked {
			order = " ORDER BY t, s, id"
		}
		parts = append(parts, fmt.Sprintf(`SELECT %d AS b, id, s, t FROM (SELECT rowid AS id, bm25(%s) AS s, %s AS t FROM %s WHERE %s MATCH ?%s%s LIMIT ?)`,
			i, b.table, tier, b.table, b.table, only, order))
		counts = append(counts, fmt.Sprintf(`(SELECT count(*) FROM hits WHERE b = %d)`, i))
		args = append(append(append(append(args, tierArgs...), b.expr), onlyArgs...), b.limit)
	}
	where, wargs := f.where()
	args = append(append(args, wargs...), k)
	return `WITH hits AS MATERIALIZED (` + strings.Join(parts, " UNION ALL ") + `)
		SELECT '' AS snippet_id, 0.0 AS score, -1 AS tier, ` + strings.Join(counts, ` || ' ' || `) + ` AS counts
		UNION ALL
		SELECT * FROM (
			SELECT c.snippet_id, sum(hits.s) AS score, min(hits.t) AS tier, '' AS counts
			FROM hits CROSS JOIN chunks c ON c.id = hits.id
			WHERE ` + where + `
			GROUP BY c.id
			ORDER BY tier, score, c.snippet_id
			LIMIT ?)
		ORDER BY tier, score, snippet_id`, args
}
