package search

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/store"
)

type fakeIndex struct {
	lexical, vector []store.Match
	chunks          map[string]store.ChunkRecord
	mu              sync.Mutex     // the retrievers run concurrently
	filters         []store.Filter // every filter the searcher passed
}

func (f *fakeIndex) SearchLexicalFiltered(_ context.Context, _ string, _ int, fl store.Filter) ([]store.Match, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filters = append(f.filters, fl)
	return f.lexical, nil
}
func (f *fakeIndex) SearchVectorFiltered(_ context.Context, _ []float32, _ int, fl store.Filter) ([]store.Match, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filters = append(f.filters, fl)
	return f.vector, nil
}
func (f *fakeIndex) Chunks(_ context.Context, ids []string) (map[string]store.ChunkRecord, error) {
	out := map[string]store.ChunkRecord{}
	for _, id := range ids {
		if c, ok := f.chunks[id]; ok {
			out[id] = c
		}
	}
	return out, nil
}

type fixedVec struct{}

func (fixedVec) EmbedQuery(context.Context, string) ([]float32, error) { return []float32{1, 0}, nil }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func rec(id, section, source string, created time.Time) store.ChunkRecord {
	return store.ChunkRecord{Chunk: corpus.Chunk{SnippetID: id, DocID: "doc_1", SectionID: section, Source: source, CreatedAt: created}}
}

func TestSearchTieBreakAndEligibility(t *testing.T) {
	idx := &fakeIndex{
		// a and b tie exactly (each rank 1 in one retriever); b's section sorts first.
		lexical: []store.Match{{SnippetID: "a", Score: -1, Rank: 1}, {SnippetID: "model", Score: -0.5, Rank: 2}, {SnippetID: "chat:x", Score: -0.4, Rank: 3}},
		vector:  []store.Match{{SnippetID: "b", Score: 0.1, Rank: 1}, {SnippetID: "late", Score: 0.2, Rank: 2}},
		chunks: map[string]store.ChunkRecord{
			"a":      rec("a", "guide/z", corpus.SourceCorpus, t0),
			"b":      rec("b", "guide/a", corpus.SourceCorpus, t0),
			"model":  rec("model", "guide/a", corpus.SourceModel, t0),
			"chat:x": rec("chat:x", "guide/a", corpus.SourceCorpus, t0),
			"late":   rec("late", "guide/a", corpus.SourceCorpus, t0.Add(time.Hour)),
		},
	}
	s := &Searcher{Index: idx, Embedder: fixedVec{}, RRFK: 60, TopK: 10}
	res, err := s.Search(context.Background(), "q", Options{AsOf: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.SnippetID)
	}
	if !reflect.DeepEqual(ids, []string{"b", "a"}) {
		t.Fatalf("want [b a] (tie broken by section_id, ineligible dropped), got %v", ids)
	}
	if res.Hits[0].KFinal != 1 || res.Hits[1].KFinal != 2 {
		t.Errorf("k_final not assigned: %+v", res.Hits)
	}
	if res.TotalRetrieved != 5 || res.TotalAfterFusion != 5 {
		t.Errorf("totals: retrieved %d after fusion %d", res.TotalRetrieved, res.TotalAfterFusion)
	}
	again, _ := s.Search(context.Background(), "q", Options{AsOf: t0.Add(time.Minute)})
	if !reflect.DeepEqual(again.Hits, res.Hits) {
		t.Fatal("same query and index must give identical results")
	}
}

func TestSearchModes(t *testing.T) {
	idx := &fakeIndex{
		lexical: []store.Match{{SnippetID: "a", Score: -1, Rank: 1}},
		vector:  []store.Match{{SnippetID: "b", Score: 0.1, Rank: 1}},
		chunks: map[string]store.ChunkRecord{
			"a": rec("a", "s", corpus.SourceCorpus, t0), "b": rec("b", "s", corpus.SourceCorpus, t0),
		},
	}
	s := &Searcher{Index: idx, Embedder: fixedVec{}, RRFK: 60, TopK: 10}
	for mode, want := range map[string]string{ModeLexical: "a", ModeVector: "b"} {
		res, err := s.Search(context.Background(), "q", Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 || res.Hits[0].SnippetID != want || res.Hits[0].ScoreNorm != 1 {
			t.Errorf("mode %s: want only %s at score 1, got %+v", mode, want, res.Hits)
		}
	}
	if _, err := s.Search(context.Background(), "q", Options{Mode: "bogus"}); err == nil {
		t.Error("unknown mode must be an error")
	}
}

func TestSearchRRFKAndExplain(t *testing.T) {
	idx := &fakeIndex{
		lexical: []store.Match{{SnippetID: "a", Score: -2.5, Rank: 1}, {SnippetID: "b", Score: -1, Rank: 2}},
		vector:  []store.Match{{SnippetID: "b", Score: 0.3, Rank: 1}},
		chunks: map[string]store.ChunkRecord{
			"a": rec("a", "s", corpus.SourceCorpus, t0), "b": rec("b", "s", corpus.SourceCorpus, t0),
		},
	}
	s := &Searcher{Index: idx, Embedder: fixedVec{}, RRFK: 60, TopK: 10}
	res, err := s.Search(context.Background(), "q", Options{RRFK: 1, AsOf: t0})
	if err != nil {
		t.Fatal(err)
	}
	// k=1: b = 1/(1+2) + 1/(1+1) = 5/6, a = 1/2; max = 2/(1+1) = 1.
	if res.RRFK != 1 || res.MaxRRF != 1 || res.Mode != ModeHybrid {
		t.Fatalf("result header: k %d max %v mode %s", res.RRFK, res.MaxRRF, res.Mode)
	}
	if len(res.Hits) != 2 || res.Hits[0].SnippetID != "b" || !near(res.Hits[0].ScoreNorm, 5.0/6) || !near(res.Hits[1].ScoreNorm, 0.5) {
		t.Fatalf("hits %+v", res.Hits)
	}
	b := res.Hits[0]
	want := []Contribution{{Retriever: Lexical, ScoreRaw: -1, KPos: 2, RRF: 1.0 / 3}, {Retriever: Vector, ScoreRaw: 0.3, KPos: 1, RRF: 0.5}}
	if len(b.Explain) != 2 {
		t.Fatalf("explain %+v", b.Explain)
	}
	for i := range want {
		if b.Explain[i].Retriever != want[i].Retriever || b.Explain[i].KPos != want[i].KPos ||
			b.Explain[i].ScoreRaw != want[i].ScoreRaw || !near(b.Explain[i].RRF, want[i].RRF) {
			t.Errorf("explain[%d] = %+v, want %+v", i, b.Explain[i], want[i])
		}
	}
	if b.KFinal != 1 || res.Hits[1].KFinal != 2 {
		t.Errorf("k_final %d %d", b.KFinal, res.Hits[1].KFinal)
	}
}

func TestSearchPassesFiltersToIndex(t *testing.T) {
	idx := &fakeIndex{
		lexical: []store.Match{{SnippetID: "a", Rank: 1}, {SnippetID: "other", Rank: 2}},
		chunks: map[string]store.ChunkRecord{
			"a":     rec("a", "s", corpus.SourceCorpus, t0),
			"other": {Chunk: corpus.Chunk{SnippetID: "other", DocID: "doc_2", SectionID: "s", Source: corpus.SourceCorpus, CreatedAt: t0}},
		},
	}
	s := &Searcher{Index: idx, Embedder: fixedVec{}, RRFK: 60, TopK: 10}
	asOf := t0.Add(time.Hour)
	res, err := s.Search(context.Background(), "q", Options{Mode: ModeHybrid, AsOf: asOf, Collections: []string{"work"}, DocIDs: []string{"doc_1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := store.Filter{Collections: []string{"work"}, DocIDs: []string{"doc_1"}, AsOf: asOf}
	if len(idx.filters) != 2 || !reflect.DeepEqual(idx.filters[0], want) || !reflect.DeepEqual(idx.filters[1], want) {
		t.Fatalf("filters passed: %+v, want twice %+v", idx.filters, want)
	}
	// The document filter is re-checked after hydration.
	if len(res.Hits) != 1 || res.Hits[0].SnippetID != "a" {
		t.Fatalf("hits %+v, want only a", res.Hits)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{"": ModeHybrid, ModeHybrid: ModeHybrid, ModeLexical: ModeLexical, ModeVector: ModeVector} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("psychic"); err == nil || !strings.Contains(err.Error(), "psychic") {
		t.Errorf("unknown mode: %v", err)
	}
}
