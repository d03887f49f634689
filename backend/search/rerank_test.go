package search

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/rerank"
	"github.com/footnote-app/footnote/backend/store"
)

// fusedHits builds hits in fused order: id, section and text per hit, with
// one lexical contribution whose k_pos is the hit's position.
func fusedHits(spec ...[3]string) []Hit {
	hits := make([]Hit, len(spec))
	for i, s := range spec {
		hits[i] = Hit{
			ChunkRecord: store.ChunkRecord{Chunk: corpus.Chunk{SnippetID: s[0], SectionID: s[1], Text: s[2], Source: corpus.SourceCorpus}},
			ScoreNorm:   1 - float64(i)/10,
			KFinal:      i + 1,
			Explain:     []Contribution{{Retriever: Lexical, KPos: i + 1, RRF: 1 / float64(61+i)}},
		}
	}
	return hits
}

// byText scores a passage by a fixed table.
func byText(scores map[string]float32) rerank.Fake {
	return rerank.Fake{Score: func(_, p string) float32 { return scores[p] }}
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.SnippetID
	}
	return out
}

func TestRerankHitsReordersHeadKeepsTail(t *testing.T) {
	hits := fusedHits(
		[3]string{"a", "s/1", "alpha"}, [3]string{"b", "s/2", "beta"}, [3]string{"c", "s/3", "gamma"},
		[3]string{"d", "s/4", "delta"}, [3]string{"e", "s/5", "epsilon"},
	)
	r := byText(map[string]float32{"alpha": 0.1, "beta": 0.9, "gamma": 0.5, "delta": 1, "epsilon": 1})
	if err := RerankHits(context.Background(), r, "q", hits, 3); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(hits), []string{"b", "c", "a", "d", "e"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v (only the top 3 are reranked)", got, want)
	}
	wantScore := map[string]float64{"a": float64(float32(0.1)), "b": float64(float32(0.9)), "c": 0.5}
	for i, h := range hits {
		if h.KFinal != i+1 {
			t.Errorf("%s: k_final %d, want %d", h.SnippetID, h.KFinal, i+1)
		}
		want, reranked := wantScore[h.SnippetID]
		switch {
		case reranked && (h.RerankScore == nil || *h.RerankScore != want):
			t.Errorf("%s: rerank_score %v, want %v", h.SnippetID, h.RerankScore, want)
		case !reranked && h.RerankScore != nil:
			t.Errorf("%s was not reranked but has rerank_score %v", h.SnippetID, *h.RerankScore)
		}
	}
	// k_pos is the rank before fusion and rerank: b was fused second.
	if hits[0].Explain[0].KPos != 2 || hits[0].ScoreNorm != 0.9 {
		t.Errorf("explain trail or fused score changed by reranking: %+v", hits[0])
	}
}

func TestRerankHitsTiesAreDeterministic(t *testing.T) {
	spec := [][3]string{
		{"snip_b", "guide/a", "same"}, {"snip_a", "guide/a", "same"},
		{"snip_c", "guide/0", "same"}, {"snip_d", "guide/z", "best"},
	}
	r := byText(map[string]float32{"same": 0.5, "best": 0.7})
	want := []string{"snip_d", "snip_c", "snip_a", "snip_b"} // score desc, section_id asc, snippet_id asc
	for _, perm := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 3, 0, 2}} {
		var in [][3]string
		for _, i := range perm {
			in = append(in, spec[i])
		}
		hits := fusedHits(in...)
		if err := RerankHits(context.Background(), r, "q", hits, 0); err != nil {
			t.Fatal(err)
		}
		if got := ids(hits); !reflect.DeepEqual(got, want) {
			t.Errorf("input order %v: got %v, want %v", perm, got, want)
		}
	}
}

func TestRerankHitsErrorsLeaveHitsAlone(t *testing.T) {
	orig := fusedHits([3]string{"a", "s", "x"}, [3]string{"b", "s", "y"})
	boom := errors.New("model crashed")
	for name, r := range map[string]Reranker{
		"error":      rerank.Fake{Err: boom},
		"wrong size": shortReranker{},
	} {
		hits := fusedHits([3]string{"a", "s", "x"}, [3]string{"b", "s", "y"})
		err := RerankHits(context.Background(), r, "q", hits, 0)
		if err == nil || !strings.Contains(err.Error(), "rerank with") {
			t.Errorf("%s: error %v", name, err)
		}
		if !reflect.DeepEqual(hits, orig) {
			t.Errorf("%s: hits changed on error", name)
		}
	}
	if err := RerankHits(context.Background(), rerank.Fake{Err: boom}, "q", nil, 5); err != nil {
		t.Errorf("no hits should not call the reranker: %v", err)
	}
}

type shortReranker struct{}

func (shortReranker) Rerank(context.Context, string, []string) ([]float32, error) {
	return []float32{1}, nil
}
func (shortReranker) Name() string { return "short" }

// staticRetriever returns a fixed fused list, honouring Limit, and records
// the options it was called with.
type staticRetriever struct {
	hits []Hit
	got  []Options
}

func (s *staticRetriever) Search(_ context.Context, _ string, opts Options) (Result, error) {
	s.got = append(s.got, opts)
	hits := append([]Hit(nil), s.hits...)
	if opts.Limit > 0 && len(hits) > opts.Limit {
		hits = hits[:opts.Limit]
	}
	return Result{Hits: hits, Mode: ModeHybrid, Retrievers: []string{Lexical}, RRFK: 60}, nil
}

func TestRerankingSearchFetchesTopThenLimits(t *testing.T) {
	base := &staticRetriever{hits: fusedHits(
		[3]string{"a", "s", "install windows"}, [3]string{"b", "s", "notes"},
		[3]string{"c", "s", "install on linux"}, [3]string{"d", "s", "linux"},
	)}
	rr := &Reranking{Base: base, Reranker: rerank.Fake{}, Top: 3}
	res, err := rr.Search(context.Background(), "install linux", Options{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if base.got[0].Limit != 3 {
		t.Errorf("base searched with limit %d, want the rerank depth 3", base.got[0].Limit)
	}
	// Word overlap over the top 3: c 1.0, a 0.5, b 0; d (4th) is not reranked.
	if got := ids(res.Hits); !reflect.DeepEqual(got, []string{"c", "a"}) {
		t.Fatalf("hits %v, want [c a]", got)
	}
	if res.Reranker != "fake" || *res.Hits[0].RerankScore != 1 || res.Hits[1].KFinal != 2 {
		t.Errorf("result not marked reranked: %+v", res)
	}

	off, err := rr.Search(context.Background(), "install linux", Options{Limit: 2, NoRerank: true})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := base.Search(context.Background(), "install linux", Options{Limit: 2})
	if !reflect.DeepEqual(off, plain) {
		t.Errorf("NoRerank must return the base result unchanged:\n%+v\n%+v", off, plain)
	}
}

func TestRerankScoreJSON(t *testing.T) {
	hits := fusedHits([3]string{"a", "s", "x"}, [3]string{"b", "s", "y"})
	data, _ := json.Marshal(hits[0])
	if strings.Contains(string(data), "rerank_score") {
		t.Errorf("un-reranked hit carries rerank_score: %s", data)
	}
	if err := RerankHits(context.Background(), byText(map[string]float32{"x": 0.25}), "q", hits, 1); err != nil {
		t.Fatal(err)
	}
	data, _ = json.Marshal(hits[0])
	if !strings.Contains(string(data), `"rerank_score":0.25`) || !strings.Contains(string(data), `"k_final":1`) {
		t.Errorf("reranked hit JSON: %s", data)
	}
}
