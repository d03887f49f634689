// Package lexical owns what turns a question into full-text (FTS5) queries:
// the analyzer (Korean stems as prefix terms, Chinese/Japanese character
// bigrams, every term quoted so user text is never FTS5 syntax) and the BM25
// query planner that decides, from each term's document frequency, which
// staged queries to run. It holds no SQL connection: backend/store counts
// the terms, runs the stages and owns the tables.
package lexical

import (
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
//   - otherwise leaves the common terms (in more than 1/CommonShare of the
//     rows) out of bm25, since weighing a term reads its whole row list and
//     a common term weighs little anyway, but not out of the query: chunks
//     holding every query word, common ones included, rank first, then the
//     other chunks by bm25 over the remaining terms. Intersecting with a
//     common term walks its whole row list, so only the least common of
//     them take part, within AllBudget rows. Chunks holding
//     all remaining terms (AND) are asked for first, and the OR of the
//     rarest of them runs only when AND finds fewer than k chunks;
//   - when every term is common (a query such as "the"), ranks only the
//     first CapRows chunks holding the three rarest of them (weighed by the
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

// Tuning holds the planner's thresholds (see DefaultTuning for the values).
type Tuning struct {
	// CommonShare: a term in more than 1/CommonShare of the rows is common.
	CommonShare int
	// MinCommonRows, MaxCommonRows clamp that share: below MinCommonRows
	// no term counts as common (scoring that many rows costs about a
	// millisecond); MaxCommonRows bounds what counting a term's rows costs
	// in a very large index.
	MinCommonRows, MaxCommonRows int
	// ExactBudget: when all terms together match at most this many rows the
	// exact OR runs.
	ExactBudget int
	// OrBudget bounds the rows the OR fallback scores: the rarest terms are
	// kept while their document frequencies sum to at most this (the rarest
	// term is always kept).
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

// Term is one FTS5 term with its document frequency, counted up to the
// table's common limit; a common term's df is estimated from how far into
// the index the capped count reached.
type Term struct {
	Expr   string
	DF     int
	Common bool
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
		return []Branch{{Table: table, Expr: orExpr(live), Limit: -1, Ranked: true}}
	}
	var rare []Term
	for _, t := range live {
		if !t.Common {
			rare = append(rare, t)
		}
	}
	if len(rare) == 0 {
		// Only the rarest term is weighed, and only the first CapRows
		// chunks (in rowid order) holding it and the next two rarest are
		// ranked; then chunks holding the rarest alone.
		limit := tune.CapRows
		if unbounded {
			limit = -1
		}
		first := Branch{Table: table, Expr: live[0].Expr, Limit: limit}
		if len(live) == 1 {
			return []Branch{first}
		}
		return []Branch{{Table: table, Expr: live[0].Expr, All: andExpr(live[:min(3, len(live))]), Only: true, Limit: limit}, first}
	}
	// Common terms stay out of bm25 (weighing one reads its whole row list)
	// but not out of the query: a chunk holding every rare word and the
	// least common of the common ones, within AllBudget, ranks before
	// chunks holding only the rare ones.
	all := ""
	every, spent := slices.Clone(rare), 0
	for _, t := range live[len(rare):] {
		if spent += t.DF; spent > tune.AllBudget {
			break
		}
		every = append(every, t)
	}
	if len(every) > len(rare) {
		all = andExpr(every)
	}
	var stages []Branch
	if len(rare) > 1 {
		stages = append(stages, Branch{Table: table, Expr: andExpr(rare), All: all, Limit: window, Ranked: true})
	}
	n, sum := 0, 0
	for n < len(rare) && (n == 0 || sum+rare[n].DF <= tune.OrBudget) {
		sum += rare[n].DF
		n++
	}
	return append(stages, Branch{Table: table, Expr: orExpr(rare[:n]), All: all, Limit: window, Ranked: true})
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
