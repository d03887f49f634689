package lexical

import "testing"

func TestPlannerStages(t *testing.T) {
	tune := Tuning{CommonShare: 4, MinCommonRows: 10, MaxCommonRows: 1000, ExactBudget: 20, OrBudget: 40, AllBudget: 1000, CapRows: 30, WindowFactor: 2, MinWindow: 8}
	rare := func(e string, df int) Term { return Term{Expr: e, DF: df} }
	common := Term{Expr: `"common"`, DF: 51, Common: true}

	// Few rows in total: the exact OR, unbounded.
	got := Plan("t", []Term{rare(`"a"`, 1), rare(`"b"`, 2), rare(`"zz"`, 0)}, 10, false, tune)
	if len(got) != 1 || got[0].Expr != `"a" OR "b"` || got[0].Limit != -1 {
		t.Errorf("small: %+v", got)
	}
	// The rarest terms within OrBudget pick the rows; the others are
	// weighed in bm25 (Weigh) without picking rows, so every candidate gets
	// its plain-BM25 score; a chunk with every word ranks first.
	got = Plan("t", []Term{rare(`"a"`, 15), rare(`"b"`, 16), common}, 10, false, tune)
	if len(got) != 1 || got[0].Expr != `"a" OR "b"` || got[0].Weigh != `"common"` || got[0].All != `"a" AND "b" AND "common"` ||
		got[0].Limit != 20 || !got[0].Ranked || got[0].Only {
		t.Errorf("rare rows, common weighed: %+v", got)
	}
	// Rows picked by a common term too when it is within OrBudget.
	got = Plan("t", []Term{{Expr: `"mid"`, DF: 35, Common: true}}, 10, false, tune)
	if len(got) != 1 || got[0].Expr != `"mid"` || !got[0].Ranked {
		t.Errorf("common alone within the budget: %+v", got)
	}
	// The terms past OrBudget are weighed, not dropped.
	got = Plan("t", []Term{rare(`"a"`, 15), rare(`"b"`, 16), rare(`"c"`, 17)}, 10, false, tune)
	if len(got) != 1 || got[0].Expr != `"a" OR "b"` || got[0].Weigh != `"c"` {
		t.Errorf("OR budget: %+v", got)
	}
	// Only terms beyond OrBudget: a capped scan of the chunks holding the
	// three rarest, weighed by the rarest alone, then of the rarest.
	got = Plan("t", []Term{common, {Expr: `"the"`, DF: 51, Common: true}, {Expr: `"x"`, DF: 52, Common: true}, {Expr: `"zz"`, DF: 53, Common: true}}, 10, false, tune)
	if len(got) != 2 || got[0].Limit != 30 || got[0].Ranked || got[0].Expr != `"common"` || got[0].All != `"common" AND "the" AND "x"` || !got[0].Only ||
		got[1].Expr != `"common"` || got[1].All != "" {
		t.Errorf("all common: %+v", got)
	}
	// A narrowing filter takes every row.
	got = Plan("t", []Term{rare(`"a"`, 15), rare(`"b"`, 16)}, 10, true, tune)
	if got[0].Limit != -1 {
		t.Errorf("narrowing filter: %+v", got)
	}
	if got := Plan("t", []Term{rare(`"zz"`, 0)}, 10, false, tune); got != nil {
		t.Errorf("nothing matches: %+v", got)
	}
}
