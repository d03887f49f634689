// Package lexical owns what turns a question into full-text (FTS5) queries:
// the analyzer (Korean stems as prefix terms, Chinese/Japanese character
// bigrams, every term quoted so user text is never FTS5 syntax) and the BM25
// query planner that decides, from each term's document frequency, which
// staged queries to run. It holds no SQL connection: backend/store counts
// the terms, runs the stages and owns the tables.
package lexical

import "strings"

// Lexical query planning.
//
// Turning every query word into one big OR is exact but slow at scale: FTS5
// scores every row that contains any of the words, and a common word is in
// most rows (555–784 ms per query at 100k chunks on a busy 2-core machine). The
// planner therefore looks at each term's document frequency first (counted
// exactly by the store, once per state of the index), and
//
//   - runs the plain OR over all terms when the terms match few rows in
//     total (small libraries, rare words): exact, and cheap anyway;
//   - otherwise lets the rarest terms, while their document frequencies sum
//     to at most OrBudget, pick the candidate rows, and weighs every other
//     term in bm25 without letting it pick rows (Branch.Weigh, run as
//     "picked AND (others OR picked)", with the repeated picked phrases
//     given no weight): each candidate gets
//     exactly its bm25 over the OR of all terms, and the rows scored stay
//     bounded. A chunk holding every query word (the least common of the
//     others within AllBudget) ranks first, then the others by that bm25.
//     A query's source chunk holds its rarest word, so it is always a
//     candidate and ranks at least as high as under plain OR BM25;
//   - when even the rarest term is in more than OrBudget rows, ranks only
//     the first CapRows chunks holding the three rarest (weighed by the
//     rarest alone), then the rarest alone, so a common word alone still
//     finds results at bounded cost.
//
// Leaving common terms out of bm25 (the earlier plan) cost recall: in
// bench/retrieval at 100k chunks the source chunk's recall@1/5/10 was
// 0.405/0.565/0.615 against plain OR BM25's 0.420/0.595/0.645; weighing
// them gives 0.435/0.620/0.645.
//
// Bounded stages ask FTS5 for a window of the best rows (chunks with every
// word first, then by bm25) before joining chunks and applying the filter; a stage whose window was used up but left
// fewer than k eligible chunks is rerun without the window. Every decision
// depends only on the query and the index contents, so results stay
// deterministic.

// Tuning holds the planner's thresholds (see DefaultTuning for the values).
type Tuning struct {
	// CommonShare: a term in more than 1/CommonShare of the rows is common.
	CommonShare int
	// MinCommonRows, MaxCommonRows clamp that share: below MinCommonRows
	// no term counts as common (scoring that many rows costs about a
	// millisecond); past MaxCommonRows every term does.
	MinCommonRows, MaxCommonRows int
	// ExactBudget: when all terms together match at most this many rows the
	// exact OR runs.
	ExactBudget int
	// OrBudget bounds the rows a query scores: the rarest terms pick the
	// rows while their document frequencies sum to at most this (the rarest
	// term always does, unless it alone is past the budget).
	OrBudget int
	// AllBudget bounds the common terms a chunk must hold to rank first:
	// FTS5 walks a common term's whole row list to intersect it (about
	// 15 ns a row), so the least common are taken while their estimated
	// document frequencies sum to at most this.
	AllBudget int
	// CapRows: when every term is common, only this many matching rows (the
	// first in rowid order) are ranked.
	CapRows int
	// WindowFactor, MinWindow: bounded stages take max(k·WindowFactor,
	// MinWindow) best rows per index before filtering.
	WindowFactor, MinWindow int
}

// Term is one FTS5 term with its document frequency (exact): the rows
// holding any of its phrases. PhraseDFs holds each phrase's own document
// frequency when the term has more than one (a word and its other
// spellings, see Phrases), since bm25 weighs each phrase.
type Term struct {
	Expr      string
	DF        int
	PhraseDFs []int
	Common    bool
}

// DefaultTuning was set with bench/retrieval.
var DefaultTuning = Tuning{
	CommonShare:   50,
	MinCommonRows: 1000,
	MaxCommonRows: 10000,
	ExactBudget:   4000,
	OrBudget:      20000,
	AllBudget:     300000,
	CapRows:       2000,
	WindowFactor:  4,
	MinWindow:     64,
}

// Branch is one FTS5 query in a stage.
type Branch struct {
	Table string
	// Expr selects the rows and is what bm25 weighs.
	Expr string
	// All, when set, is the AND of every query term: rows matching it (the
	// chunk holds every query word) rank before the others. With Only set,
	// the branch keeps those rows alone.
	All  string
	Only bool
	// Weigh, when set, is the OR of terms weighed in bm25 without
	// selecting rows: the branch scores Expr's rows as if the query were
	// Expr OR Weigh (run as Expr AND (Weigh OR Expr), where the repeated
	// Expr phrases carry no weight).
	Weigh string
	// ExprDFs and WeighDFs are the document frequencies of Expr's and
	// Weigh's phrases, in the order they appear: the store passes them to
	// its ranking function instead of letting FTS5 count each phrase's
	// rows for every statement.
	ExprDFs, WeighDFs []int
	// Limit is how many rows the branch takes from FTS5; -1 = all.
	Limit int
	// Ranked takes the best rows (rows matching all first, then by bm25);
	// otherwise the first rows in rowid order (the capped scan of common
	// terms).
	Ranked bool
}

// Plan returns the stages for one FTS5 table, cheapest first; later
// stages run only when earlier ones find fewer than k chunks. unbounded
// (a narrowing filter) takes every matching row, since the filter may reject
// most of a window.
func Plan(table string, terms []Term, k int, unbounded bool, tune Tuning) []Branch {
	var live []Term
	total, anyCommon := 0, false
	for _, t := range terms {
		if t.DF == 0 {
			continue // matches nothing, in AND or OR
		}
		live = append(live, t)
		total += t.DF
		anyCommon = anyCommon || t.Common
	}
	if len(live) == 0 {
		return nil
	}
	window := max(k*tune.WindowFactor, tune.MinWindow)
	if unbounded {
		window = -1
	}
	if !anyCommon && total <= tune.ExactBudget {
		return []Branch{{Table: table, Expr: orExpr(live), ExprDFs: dfs(live), Limit: -1, Ranked: true}}
	}
	var rare []Term
	for _, t := range live {
		if !t.Common {
			rare = append(rare, t)
		}
	}
	if len(rare) == 0 && live[0].DF > tune.OrBudget {
		// Only the rarest term is weighed, and only the first CapRows
		// chunks (in rowid order) holding it and the next two rarest are
		// ranked; then chunks holding the rarest alone.
		limit := tune.CapRows
		if unbounded {
			limit = -1
		}
		first := Branch{Table: table, Expr: live[0].Expr, ExprDFs: dfs(live[:1]), Limit: limit}
		if len(live) == 1 {
			return []Branch{first}
		}
		return []Branch{{Table: table, Expr: live[0].Expr, ExprDFs: dfs(live[:1]), All: andExpr(live[:min(3, len(live))]), Only: true, Limit: limit}, first}
	}
	// The rarest terms, within OrBudget rows, pick the candidate rows; every
	// other term that carries weight is weighed in bm25 without selecting
	// rows (Weigh), so a candidate's score is exactly its plain-BM25 score
	// over the OR of all terms. (Leaving out terms in half the rows or
	// more, whose idf bm25 clamps to 1e-6, was tried: on equal-length
	// chunks that 1e-6 is what orders exact ties, as plain BM25 does.)
	n, sum := 0, 0
	for n < len(live) && (n == 0 || sum+live[n].DF <= tune.OrBudget) {
		sum += live[n].DF
		n++
	}
	weigh := live[n:]
	// A chunk holding every query word ranks first (then by bm25), as a
	// reader expects; intersecting walks each term's row list, so only the
	// least common of the other terms take part, within AllBudget rows.
	every, spent := live[:n:n], 0
	for _, t := range live[n:] {
		if spent += t.DF; spent > tune.AllBudget {
			break
		}
		every = append(every, t)
	}
	all := ""
	if len(every) > 1 {
		all = andExpr(every)
	}
	return []Branch{{Table: table, Expr: orExpr(live[:n]), Weigh: orExpr(weigh), ExprDFs: dfs(live[:n]), WeighDFs: dfs(weigh), All: all, Limit: window, Ranked: true}}
}

// dfs lists the document frequency of every phrase of ts, in order.
func dfs(ts []Term) []int {
	out := make([]int, 0, len(ts))
	for _, t := range ts {
		if len(t.PhraseDFs) > 0 {
			out = append(out, t.PhraseDFs...)
		} else {
			out = append(out, t.DF)
		}
	}
	return out
}

func orExpr(ts []Term) string  { return joinExprs(ts, " OR ") }
func andExpr(ts []Term) string { return joinExprs(ts, " AND ") }

func joinExprs(ts []Term, sep string) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Expr
	}
	return strings.Join(parts, sep)
}
