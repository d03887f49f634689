package store

import (
	"context"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
)

// TestRankFunctionEqualsBM25: footnote_bm25 given the phrases' document
// frequencies scores every row exactly as FTS5's bm25() does, for ORs,
// ANDs, NOTs, phrases of several tokens and prefix terms.
func TestRankFunctionEqualsBM25(t *testing.T) {
	s := openTest(t, testDim)
	ctx := context.Background()
	plannerCorpus(t, s)
	put(t, s, makeDoc("/notes/more.md", "common ground and common sense", "alpha particles in a common cloud chamber", "학교에서 공부했다 common"))
	for _, q := range []struct {
		expr    string
		phrases []string
	}{
		{`"common"`, []string{`"common"`}},
		{`"alpha" OR "gamma" OR "common"`, []string{`"alpha"`, `"gamma"`, `"common"`}},
		{`("gamma" OR "delta") AND ("common" OR "filler100")`, []string{`"gamma"`, `"delta"`, `"common"`, `"filler100"`}},
		{`("gamma" OR "delta") NOT ("alpha" OR "filler100")`, []string{`"gamma"`, `"delta"`, `"alpha"`, `"filler100"`}},
		{`"common ground" OR "cloud chamber" OR "common"`, []string{`"common ground"`, `"cloud chamber"`, `"common"`}},
		{`"학교"* OR "common"`, []string{`"학교"*`, `"common"`}},
	} {
		dfs := make([]any, len(q.phrases))
		for i, p := range q.phrases {
			var n int
			if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, p).Scan(&n); err != nil {
				t.Fatal(err)
			}
			dfs[i] = n
		}
		rows, err := s.r.QueryContext(ctx, `SELECT rowid, bm25(chunks_fts), footnote_bm25(chunks_fts`+strings.Repeat(", ?", len(dfs))+`)
			FROM chunks_fts WHERE chunks_fts MATCH ?`, append(dfs, q.expr)...)
		if err != nil {
			t.Fatal(q.expr, err)
		}
		n := 0
		for rows.Next() {
			var id int
			var want, got float64
			if err := rows.Scan(&id, &want, &got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: row %d scores %v, bm25 %v", q.expr, id, got, want)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(q.expr, err)
		}
		rows.Close()
		if n == 0 {
			t.Errorf("%s matched nothing", q.expr)
		}
	}
	// Weighing without selecting: Expr AND (Weigh OR Expr), the repeated
	// phrases given -1, scores Expr's rows as plain bm25 over Expr OR Weigh.
	df := func(p string) int {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, p).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := map[int]float64{}
	rows, err := s.r.QueryContext(ctx, `SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH '"gamma" OR "delta" OR "common" OR "ground"'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int
		var v float64
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		want[id] = v
	}
	rows.Close()
	rows, err = s.r.QueryContext(ctx, `SELECT rowid, footnote_bm25(chunks_fts, ?, ?, ?, ?, -1, -1) FROM chunks_fts
		WHERE chunks_fts MATCH '("gamma" OR "delta") AND ("common" OR "ground" OR "gamma" OR "delta")'`,
		df(`"gamma"`), df(`"delta"`), df(`"common"`), df(`"ground"`))
	if err != nil {
		t.Fatal(err)
	}
	weighed := 0
	for rows.Next() {
		var id int
		var got float64
		if err := rows.Scan(&id, &got); err != nil {
			t.Fatal(err)
		}
		if w, ok := want[id]; !ok || got != w {
			t.Errorf("weighed row %d scores %v, plain bm25 over the OR %v (found %v)", id, got, w, ok)
		}
		weighed++
	}
	rows.Close()
	if weighed != df(`"gamma" OR "delta"`) {
		t.Errorf("%d rows weighed, want every gamma or delta row", weighed)
	}

	// One frequency per phrase, or a clear error.
	var score float64
	err = s.r.QueryRowContext(ctx, `SELECT footnote_bm25(chunks_fts, 3) FROM chunks_fts WHERE chunks_fts MATCH '"alpha" OR "common"'`).Scan(&score)
	if err == nil || !strings.Contains(err.Error(), "one document frequency per phrase") {
		t.Errorf("too few frequencies: %v", err)
	}
}

// TestTermCountsFollowTheIndex: a term's count is kept while the index is
// unchanged and taken again after any write.
func TestTermCountsFollowTheIndex(t *testing.T) {
	s := openTest(t, testDim)
	ctx := context.Background()
	plannerCorpus(t, s)
	df := func() int {
		t.Helper()
		terms, err := s.termStats(ctx, "chunks_fts", []string{`"alpha"`}, lexTune)
		if err != nil {
			t.Fatal(err)
		}
		return terms[0].DF
	}
	if got := df(); got != 1 {
		t.Fatalf("alpha in %d chunks, want 1", got)
	}
	_, state, err := ftsState(ctx, s.r, "chunks_fts")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.counts.get("chunks_fts", state, `"alpha"`); !ok {
		t.Error("count not kept for the unchanged index")
	}
	put(t, s, makeDoc("/notes/alpha.md", "alpha and omega", "alpha again"))
	if got := df(); got != 3 {
		t.Errorf("after adding two alpha chunks: %d, want 3", got)
	}
	if err := s.DeleteDocument(ctx, corpus.DocID("/notes/alpha.md")); err != nil {
		t.Fatal(err)
	}
	if got := df(); got != 1 {
		t.Errorf("after deleting them: %d, want 1", got)
	}
}
