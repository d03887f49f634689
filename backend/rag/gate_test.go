package rag

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

// listIndex is a search.Index whose lexical and vector lists are given:
// retrieval runs for real (fusion, weights, normalisation) over lists a
// test controls.
type listIndex struct {
	lexical, vector []store.Match
	texts           map[string]string
}

func (x listIndex) SearchLexicalFiltered(context.Context, string, int, store.Filter) ([]store.Match, error) {
	return x.lexical, nil
}

func (x listIndex) SearchVectorFiltered(context.Context, []float32, int, store.Filter) ([]store.Match, error) {
	return x.vector, nil
}

func (x listIndex) Chunks(_ context.Context, ids []string) (map[string]store.ChunkRecord, error) {
	out := map[string]store.ChunkRecord{}
	for _, id := range ids {
		if text, ok := x.texts[id]; ok {
			out[id] = store.ChunkRecord{Chunk: corpus.Chunk{SnippetID: id, DocID: "doc_" + id, SectionID: "guide/" + id, Text: text,
				Tokens: 20, Offsets: corpus.Offsets{Start: 0, End: len(text), Unit: corpus.UnitChar}, Source: corpus.SourceCorpus},
				Title: "Guide", Path: "/docs/" + id + ".md", Rev: "rev_" + id, EmbedModel: "e"}
		}
	}
	return out, nil
}

type oneVector struct{}

func (oneVector) EmbedQuery(context.Context, string) ([]float32, error) { return []float32{1, 0}, nil }

// matches ranks ids in order with raw scores from raw(rank).
func matches(raw func(rank int) float64, ids ...string) []store.Match {
	out := make([]store.Match, len(ids))
	for i, id := range ids {
		out[i] = store.Match{SnippetID: id, Score: raw(i + 1), Rank: i + 1}
	}
	return out
}

// A lexical list whose first hit stands out (bm25, lower is better), a
// vector list whose first hit stands out (distance), and a flat one: the
// random-weight models' lists, which fusion weighs at 0.001.
var (
	sharpBM25     = func(rank int) float64 { return -12 / float64(rank*rank) }
	sharpDistance = func(rank int) float64 { return 0.1 + 0.2*float64(min(rank, 2)) }
	flatDistance  = func(rank int) float64 { return 0.5 + 0.0001*float64(rank) }
)

// gateLibrary is a library of one passage answering the install question
// (gold) and unrelated ones, with term statistics over 100 passages.
func gateLibrary() (map[string]string, fakeTermStats) {
	texts := map[string]string{
		"gold": "To install Footnote on Linux, download the AppImage and make it executable.",
		"o1":   "Footnote keeps its index in a single SQLite file in the data folder.",
		"o2":   "The source viewer highlights the cited span of each passage.",
		"o3":   "Collections group folders so a question can search some of them.",
		"o4":   "Answers are stored in the history with their citations.",
		"o5":   "The evaluation compares answers with a gold set of questions.",
	}
	stats := fakeTermStats{chunks: 100, df: map[string]int{"install": 30, "footnote": 90, "linux": 20, "appimage": 2, "licence": 0, "android": 1}}
	return texts, stats
}

func gatePipeline(idx listIndex, stats fakeTermStats, mode string) (*Pipeline, *scriptedLLM) {
	model := &scriptedLLM{tokens: []string{"To install Footnote on Linux, download the AppImage and make it executable [#1]."}}
	p := newPipeline(nil, model, &memStore{})
	p.Retriever = &search.Searcher{Index: idx, Embedder: oneVector{}, RRFK: 60, TopK: 20}
	p.Mode, p.WordMatchGate = mode, 0.1
	p.Answerability = &Answerability{Stats: stats, MinRareShare: 0.55}
	return p, model
}

// TestGoldTopOfOneListIsNeverRefusedForItsScore: a question whose gold
// passage only one retriever found, first, is answered — whichever list
// found it and however fusion weighed the other. Under the old gate the
// passage scored 0.5 of the unweighted best (only one list ranked it) and
// fell under the gate of 0.6: a third of SQuAD 2.0's answerable questions
// were refused so (issue 36).
func TestGoldTopOfOneListIsNeverRefusedForItsScore(t *testing.T) {
	texts, stats := gateLibrary()
	q := "How do I install Footnote on Linux?"
	for _, tc := range []struct {
		name string
		mode string
		idx  listIndex
	}{
		{"lexical first, beside an informative vector list without it", search.ModeHybrid, listIndex{
			lexical: matches(sharpBM25, "gold", "o1", "o2"), vector: matches(sharpDistance, "o3", "o4", "o5", "o1")}},
		{"lexical first, beside a flat vector list without it", search.ModeHybrid, listIndex{
			lexical: matches(sharpBM25, "gold", "o1", "o2"), vector: matches(flatDistance, "o3", "o4", "o5", "o1")}},
		{"lexical first, lexical mode", search.ModeLexical, listIndex{lexical: matches(sharpBM25, "gold", "o1", "o2")}},
		{"vector first, the lexical list without it", search.ModeHybrid, listIndex{
			lexical: matches(sharpBM25, "o1", "o2", "o3"), vector: matches(sharpDistance, "gold", "o4", "o5", "o2")}},
		{"vector first, vector mode", search.ModeVector, listIndex{vector: matches(sharpDistance, "gold", "o4", "o5", "o2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.idx.texts = texts
			p, model := gatePipeline(tc.idx, stats, tc.mode)
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: q}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Retrieval.RefusedBy != nil || model.calls != 1 {
				t.Fatalf("refused by %+v (word match %v) before the model was called", ans.Retrieval.RefusedBy, *ans.Retrieval.WordMatch)
			}
			if !slices.ContainsFunc(ans.Evidence, func(c Citation) bool { return c.SnippetID == "gold" }) {
				t.Errorf("the model was not shown the gold passage: %v", snippetIDs(ans.Evidence))
			}
		})
	}
}

// TestHybridAndLexicalGateAlikeWhenTheVectorListCarriesNoWeight: beside a
// flat vector list (weight 0.001) hybrid mode decides every question as
// lexical mode does — the answerable one answered, the one about something
// the library never mentions refused by the score gate, the near-topic one
// refused by the answerability gate — with the same signal values, and the
// first hit scores as high in both.
func TestHybridAndLexicalGateAlikeWhenTheVectorListCarriesNoWeight(t *testing.T) {
	texts, stats := gateLibrary()
	lexical := map[string][]store.Match{
		"How do I install Footnote on Linux?":             matches(sharpBM25, "gold", "o1", "o2"),
		"How much does a Footnote licence cost?":          matches(sharpBM25, "o1", "gold", "o4"),
		"How do I install Footnote on Linux for Android?": matches(sharpBM25, "gold", "o1", "o2"),
	}
	want := map[string]string{
		"How do I install Footnote on Linux?":             "",
		"How much does a Footnote licence cost?":          RefusalScoreGate,
		"How do I install Footnote on Linux for Android?": RefusalUnanswerable,
	}
	for q, list := range lexical {
		decide := func(mode string, vector []store.Match) Answer {
			p, _ := gatePipeline(listIndex{lexical: list, vector: vector, texts: texts}, stats, mode)
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: q}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return ans
		}
		hybrid := decide(search.ModeHybrid, matches(flatDistance, "o5", "o3", "gold", "o4", "o2"))
		lex := decide(search.ModeLexical, nil)
		reason := func(a Answer) string {
			if a.RefusalReason == nil {
				return ""
			}
			return *a.RefusalReason
		}
		if reason(hybrid) != want[q] || reason(lex) != want[q] {
			t.Errorf("%q: hybrid %q, lexical %q, want %q", q, reason(hybrid), reason(lex), want[q])
		}
		if !reflect.DeepEqual(hybrid.Retrieval.RefusedBy, lex.Retrieval.RefusedBy) ||
			*hybrid.Retrieval.WordMatch != *lex.Retrieval.WordMatch || *hybrid.Retrieval.RareTermShare != *lex.Retrieval.RareTermShare {
			t.Errorf("%q: the gates read differently: hybrid %+v / %v / %v, lexical %+v / %v / %v", q,
				hybrid.Retrieval.RefusedBy, *hybrid.Retrieval.WordMatch, *hybrid.Retrieval.RareTermShare,
				lex.Retrieval.RefusedBy, *lex.Retrieval.WordMatch, *lex.Retrieval.RareTermShare)
		}
		if h, l := hybrid.Retrieval.TopScore, lex.Retrieval.TopScore; l != 1 || math.Abs(h-l) > 0.002 {
			t.Errorf("%q: first hit's score_norm %.4f in hybrid, %.4f in lexical mode", q, h, l)
		}
	}
}

func snippetIDs(cs []Citation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s(%.3f)", c.SnippetID, c.ScoreNorm)
	}
	return out
}
