package eval

import (
	"context"
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func items(ids ...string) []Item {
	out := make([]Item, len(ids))
	for i, id := range ids {
		out[i] = Item{SnippetID: id, SectionID: "sec_" + id, DocID: "doc_" + id}
	}
	return out
}

func TestScoreHandComputed(t *testing.T) {
	g := Gold{Question: "q", SnippetIDs: []string{"b", "d"}}
	// Relevant at ranks 2 and 4.
	s := Score(g, items("a", "b", "c", "d", "e"), 3)
	if !near(s.Recall, 0.5) {
		t.Errorf("recall@3 = %v, want 0.5 (only b in top 3)", s.Recall)
	}
	if !near(s.MRR, 0.5) {
		t.Errorf("MRR = %v, want 1/2", s.MRR)
	}
	dcg := 1/math.Log2(3) + 1/math.Log2(5)
	idcg := 1 + 1/math.Log2(3)
	if !near(s.NDCG, dcg/idcg) {
		t.Errorf("nDCG = %v, want %v", s.NDCG, dcg/idcg)
	}
	perfect := Score(g, items("b", "d", "x"), 10)
	if !near(perfect.Recall, 1) || !near(perfect.MRR, 1) || !near(perfect.NDCG, 1) {
		t.Errorf("perfect ranking scored %+v, want all 1", perfect)
	}
	none := Score(g, items("x", "y"), 10)
	if none != (Scores{}) {
		t.Errorf("no relevant hit scored %+v, want zeros", none)
	}
}

func TestScoreDocLevelCreditsEachGoldIDOnce(t *testing.T) {
	g := Gold{DocIDs: []string{"doc_1"}}
	ranked := []Item{{SnippetID: "x", DocID: "doc_2"}, {SnippetID: "s1", DocID: "doc_1"}, {SnippetID: "s2", DocID: "doc_1"}}
	s := Score(g, ranked, 10)
	if !near(s.Recall, 1) || !near(s.MRR, 0.5) {
		t.Errorf("got %+v, want recall 1 and MRR 1/2", s)
	}
	// One gold id: ideal DCG is 1; the doc is first matched at rank 2 and the
	// second hit from the same doc earns nothing more.
	if !near(s.NDCG, 1/math.Log2(3)) {
		t.Errorf("nDCG = %v, want %v", s.NDCG, 1/math.Log2(3))
	}
}

func TestScoreMRROnlyWithinTen(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "rel"}
	s := Score(Gold{SnippetIDs: []string{"rel"}}, items(ids...), 20)
	if s.MRR != 0 || s.NDCG != 0 || !near(s.Recall, 1) {
		t.Errorf("hit at rank 11: got %+v, want MRR 0, nDCG 0, recall@20 1", s)
	}
}

func TestEvaluateAveragesAndParses(t *testing.T) {
	gold, err := ParseGold([]byte(`{"question":"one","snippet_ids":["a"]}
{"question":"two","section_ids":["sec_z"]}`))
	if err != nil || len(gold) != 2 {
		t.Fatalf("ParseGold: %v, %d entries", err, len(gold))
	}
	rep, err := Evaluate(context.Background(), gold, 5, func(_ context.Context, q string) ([]Item, error) {
		return items("a", "b"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 2 || !near(rep.Mean.Recall, 0.5) || !near(rep.Mean.MRR, 0.5) || !near(rep.Mean.NDCG, 0.5) {
		t.Errorf("report %+v, want 2 queries averaging 0.5", rep)
	}
	arr, err := ParseGold([]byte(`[{"question":"q","doc_ids":["d"]}]`))
	if err != nil || len(arr) != 1 || arr[0].DocIDs[0] != "d" {
		t.Fatalf("array form: %v %+v", err, arr)
	}
	if _, err := ParseGold([]byte("  ")); err == nil {
		t.Error("an empty gold set must be an error")
	}
	_, err = Evaluate(context.Background(), []Gold{{Question: "q"}}, 10, nil)
	if err == nil || !strings.Contains(err.Error(), "no relevant ids") {
		t.Errorf("gold without ids: got %v", err)
	}
}
