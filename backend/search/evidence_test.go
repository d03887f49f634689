package search

import (
	"context"
	"reflect"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/store"
)

func withText(r store.ChunkRecord, text string) store.ChunkRecord {
	r.Text = text
	return r
}

func TestIdentifiersAreCodesAndNamesNotAcronyms(t *testing.T) {
	got := identifiers("error code E-4012 on PN-88213-B: parse_header_v2, ParseConfig, NFL MVP, 50th 30-second 44-1907 Hello")
	want := []string{"e-4012", "pn-88213-b", "parse_header_v2", "parseconfig"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("identifiers = %v, want %v", got, want)
	}
}

// An exact identifier found only by BM25 and an arbitrary vector
// neighbour tie on the fused score; the passage holding the identifier
// wins the tie, before section ids are compared.
func TestTiesBreakByEvidenceStrength(t *testing.T) {
	idx := &fakeIndex{
		lexical: []store.Match{{SnippetID: "code", Score: -1, Rank: 1}},
		vector:  []store.Match{{SnippetID: "near", Score: 0.1, Rank: 1}},
		chunks: map[string]store.ChunkRecord{
			"code": withText(rec("code", "guide/z", corpus.SourceCorpus, t0), "The controller reports error code E-4012 when the fan stalls."),
			"near": withText(rec("near", "guide/a", corpus.SourceCorpus, t0), "Error codes are listed in the appendix."),
		},
	}
	s := &Searcher{Index: idx, Embedder: fixedVec{}, RRFK: 60, TopK: 10}
	res, err := s.Search(context.Background(), "error code E-4012", Options{AsOf: t0.Add(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].RRF != res.Hits[1].RRF {
		t.Fatalf("the two hits should tie on the fused score: %+v", res.Hits)
	}
	if res.Hits[0].SnippetID != "code" || res.Hits[0].Evidence.Identifiers != 1 || res.Hits[1].Evidence.Identifiers != 0 {
		t.Errorf("want the identifier's passage first, got %s (evidence %+v, %+v)", res.Hits[0].SnippetID, res.Hits[0].Evidence, res.Hits[1].Evidence)
	}
}

// Of two passages holding an identifier, the one that leads with it (the
// definition) ranks above the one that mentions it in passing, whatever
// BM25 said.
func TestPassageLeadingWithTheIdentifierRanksFirst(t *testing.T) {
	idx := &fakeIndex{
		lexical: []store.Match{{SnippetID: "mention", Score: -2, Rank: 1}, {SnippetID: "definition", Score: -1.9, Rank: 2}},
		chunks: map[string]store.ChunkRecord{
			"mention":    withText(rec("mention", "s/a", corpus.SourceCorpus, t0), "Paper tray PT-450 holds 550 sheets. It reports E-1050 when its lift plate cannot rise."),
			"definition": withText(rec("definition", "s/b", corpus.SourceCorpus, t0), "Error E-1050: the lift plate of tray 2 did not reach the top sensor within 5 seconds."),
		},
	}
	s := &Searcher{Index: idx, Embedder: fixedVec{}, RRFK: 60, TopK: 10}
	res, err := s.Search(context.Background(), "E-1050", Options{Mode: ModeLexical, AsOf: t0.Add(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].SnippetID != "definition" || !res.Hits[0].Evidence.Leads || res.Hits[1].Evidence.Leads {
		t.Fatalf("want the definition first, leading with the code: %+v", res.Hits)
	}
	if res.Hits[0].Explain[0].KPos != 1 {
		t.Errorf("the explain trail should give the reordered lexical rank 1, got %d", res.Hits[0].Explain[0].KPos)
	}
	// A question naming no identifier, or one where the identifier is only
	// context, keeps BM25's order.
	for _, q := range []string{"lift plate", "Which sensor did the lift plate of tray 2 fail to reach on E-1050?"} {
		res, err = s.Search(context.Background(), q, Options{Mode: ModeLexical, AsOf: t0.Add(1)})
		if err != nil || res.Hits[0].SnippetID != "mention" {
			t.Fatalf("%q: the order changed: %+v %v", q, res.Hits, err)
		}
	}
}
