package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the plain driver: the baseline needs FTS5 and nothing of Footnote's

	"github.com/footnote-app/footnote/backend/lexical"
	"github.com/footnote-app/footnote/backend/store"
)

// compareWithPlainBM25 prints, for the same queries in one run, how often
// each query's source chunk is at rank 1, in the top 5 and in the top 10 for
// Footnote's lexical search and for plain FTS5 BM25 over the OR of the same
// query terms on the same table (same tokenizer): the planner must not lose
// what plain BM25 finds.
func compareWithPlainBM25(ctx context.Context, st *store.Store, path string, queries, source []string) error {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	var lex, plain [3]int
	var plainMS []float64
	cuts := [3]int{1, 5, 10}
	count := func(got []string, want string, into *[3]int) {
		if at := slices.Index(got, want); at >= 0 {
			for i, c := range cuts {
				if at < c {
					into[i]++
				}
			}
		}
	}
	for i, q := range queries {
		ms, err := st.SearchLexical(ctx, q, 10)
		if err != nil {
			return err
		}
		count(ids(ms), source[i], &lex)
		expr := strings.Join(lexical.Analyze(q).Words, " OR ")
		t0 := time.Now()
		rows, err := db.QueryContext(ctx, `SELECT c.snippet_id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
			WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts), c.snippet_id LIMIT 10`, expr)
		if err != nil {
			return fmt.Errorf("plain bm25 %q: %w", expr, err)
		}
		var got []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			got = append(got, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		plainMS = append(plainMS, float64(time.Since(t0).Microseconds())/1000)
		count(got, source[i], &plain)
	}
	n := float64(max(len(queries), 1))
	slices.Sort(plainMS)
	fmt.Printf("# source chunk recall@1/5/10, %d queries: lexical %.3f/%.3f/%.3f, plain FTS5 BM25 (OR of the terms) %.3f/%.3f/%.3f (p50 %.2f ms, first pass)\n",
		len(queries), float64(lex[0])/n, float64(lex[1])/n, float64(lex[2])/n, float64(plain[0])/n, float64(plain[1])/n, float64(plain[2])/n, plainMS[len(plainMS)/2])
	return nil
}
