package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/footnote-app/footnote/backend/lexical"
)

// lexTune is the planner's tuning; tests shrink it to exercise the
// large-index plans on a few hundred chunks.
var lexTune = lexical.DefaultTuning

// termStats returns each term's document frequency in table, exactly, and
// sorts terms rarest first (ties by term, for determinism). A term in more
// than the common limit of rows is marked Common. Counts are kept for as
// long as the index is unchanged (termcounts.go): counting a word in most
// rows walks its whole row list (22 ms at 1M chunks).
func (s *Store) termStats(ctx context.Context, table string, exprs []string, tune lexical.Tuning) ([]lexical.Term, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	rows, state, err := ftsState(ctx, s.r, table)
	if err != nil {
		return nil, err
	}
	limit := min(max(tune.MinCommonRows, rows/tune.CommonShare), max(tune.MinCommonRows, tune.MaxCommonRows))
	out := make([]lexical.Term, 0, len(exprs))
	count := func(e string) (int, error) {
		df, ok := s.counts.get(table, state, e)
		if !ok {
			if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE `+table+` MATCH ?`, e).Scan(&df); err != nil {
				return 0, fmt.Errorf("count %s: %w", e, err)
			}
			s.counts.put(table, state, e, df)
		}
		return df, nil
	}
	for _, e := range exprs {
		df, err := count(e)
		if err != nil {
			return nil, err
		}
		t := lexical.Term{Expr: e, DF: df, Common: df > limit}
		if phrases := lexical.Phrases(e); len(phrases) > 1 {
			for _, p := range phrases {
				pdf, err := count(p)
				if err != nil {
					return nil, err
				}
				t.PhraseDFs = append(t.PhraseDFs, pdf)
			}
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b lexical.Term) int {
		if a.DF != b.DF {
			return a.DF - b.DF
		}
		return strings.Compare(a.Expr, b.Expr)
	})
	return out, nil
}

// ftsState reads the number of rows in an FTS5 table and a key that
// changes whenever the index does. Both come from two small records of the
// %_data table: the averages (id 1: a varint row count, then per-column
// token totals) and the structure (id 10: segments, and a cookie bumped by
// every write). count(*) would read every row.
func ftsState(ctx context.Context, db *sql.DB, table string) (rows int, state string, err error) {
	res, err := db.QueryContext(ctx, `SELECT id, block FROM `+table+`_data WHERE id IN (1, 10) ORDER BY id`)
	if err != nil {
		return 0, "", fmt.Errorf("read %s statistics: %w", table, err)
	}
	defer res.Close()
	var key []byte
	for res.Next() {
		var id int
		var blob []byte
		if err := res.Scan(&id, &blob); err != nil {
			return 0, "", fmt.Errorf("read %s statistics: %w", table, err)
		}
		if id == 1 {
			n, _ := sqliteVarint(blob)
			rows = int(min(n, 1<<40))
		}
		key = append(append(key, blob...), 0xff)
	}
	if err := res.Err(); err != nil {
		return 0, "", fmt.Errorf("read %s statistics: %w", table, err)
	}
	return rows, string(key), nil
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

// runLexical runs one stage: every branch's rows, summed per chunk, joined
// to chunks and filtered, best first. If fewer than k chunks survive and a
// branch's window was full, the stage is rerun with every row.
func (s *Store) runLexical(ctx context.Context, branches []lexical.Branch, k int, f Filter) ([]Match, error) {
	res, full, err := s.queryLexical(ctx, branches, k, f)
	if err != nil || len(res) >= k || !full {
		return res, err
	}
	all := slices.Clone(branches)
	for i := range all {
		all[i].Limit = -1
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
func (s *Store) queryLexical(ctx context.Context, branches []lexical.Branch, k int, f Filter) ([]Match, bool, error) {
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
		if b.Limit >= 0 && got[i] >= b.Limit {
			full = true
		}
	}
	return out, full, nil
}

// lexicalSQL renders one stage as a single statement and its arguments.
func lexicalSQL(branches []lexical.Branch, k int, f Filter) (string, []any) {
	var parts, counts []string
	var args []any
	for i, b := range branches {
		tier, only, order := "0", "", ""
		var tierArgs, onlyArgs []any
		allRows := `(SELECT rowid FROM ` + b.Table + ` WHERE ` + b.Table + ` MATCH ?)`
		switch {
		case b.All != "" && b.Only:
			// Both lists come in rowid order, so the capped set holds
			// every row the capped outer scan can keep.
			only = ` AND +rowid IN (SELECT rowid FROM ` + b.Table + ` WHERE ` + b.Table + ` MATCH ? LIMIT ?)`
			onlyArgs = []any{b.All, b.Limit}
		case b.All != "":
			tier = `(rowid NOT IN ` + allRows + `)`
			tierArgs = []any{b.All}
		}
		if b.Ranked {
			order = " ORDER BY t, s, id"
		}
		// footnote_bm25 (bm25rank.c) is bm25() with the phrases' document
		// frequencies given rather than counted per statement; a negative
		// one gives its phrase no weight.
		expr, dfs := b.Expr, b.ExprDFs
		if b.Weigh != "" {
			// Expr's rows, scored over every phrase; Expr's repeated
			// phrases weigh nothing. One statement walks the common terms'
			// long row lists once (the earlier "AND" plus "NOT" pair walked
			// them twice: 7 ms each at 1M chunks).
			expr = "(" + b.Expr + ") AND (" + b.Weigh + " OR " + b.Expr + ")"
			dfs = slices.Concat(b.ExprDFs, b.WeighDFs, slices.Repeat([]int{-1}, len(b.ExprDFs)))
		}
		rank := "footnote_bm25(" + b.Table + strings.Repeat(", ?", len(dfs)) + ")"
		parts = append(parts, fmt.Sprintf(`SELECT %d AS b, id, s, t FROM (SELECT rowid AS id, %s AS s, %s AS t FROM %s WHERE %s MATCH ?%s%s LIMIT ?)`,
			i, rank, tier, b.Table, b.Table, only, order))
		for _, df := range dfs {
			args = append(args, df)
		}
		args = append(append(append(append(args, tierArgs...), expr), onlyArgs...), b.Limit)
		counts = append(counts, fmt.Sprintf(`(SELECT count(*) FROM hits WHERE b = %d)`, i))
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
