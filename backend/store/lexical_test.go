package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/lexical"

	"github.com/footnote-app/footnote/backend/corpus"
)

// smallLexTuning makes the large-index plans kick in on a few hundred
// chunks.
func smallLexTuning(t *testing.T) {
	t.Helper()
	saved := lexTune
	lexTune = lexical.Tuning{CommonShare: 4, MinCommonRows: 10, MaxCommonRows: 1000, ExactBudget: 20, OrBudget: 40, AllBudget: 1000, CapRows: 30, WindowFactor: 2, MinWindow: 8}
	t.Cleanup(func() { lexTune = saved })
}

// plannerCorpus: 200 chunks that all contain "common"; "alpha" and "beta"
// are rare and never together; "gamma" and "delta" are in 15 chunks each
// and together in exactly one.
func plannerCorpus(t *testing.T, s *Store) (alpha, beta, both string, doc corpus.Document) {
	t.Helper()
	var texts []string
	for i := range 200 {
		words := []string{"common", fmt.Sprintf("filler%d", i)}
		switch {
		case i == 7:
			words = append(words, "alpha")
		case i == 150:
			words = append(words, "beta")
		case i == 100:
			words = append(words, "gamma", "delta")
		case i%13 == 1 && i < 200:
			words = append(words, "gamma")
		case i%13 == 2 && i < 200:
			words = append(words, "delta")
		}
		texts = append(texts, strings.Join(words, " "))
	}
	doc = makeDoc("/notes/planner.md", texts...)
	put(t, s, doc)
	return doc.Chunks[7].SnippetID, doc.Chunks[150].SnippetID, doc.Chunks[100].SnippetID, doc
}

func TestFTSRowCountReadsIndexStatistics(t *testing.T) {
	s := openTest(t, testDim)
	ctx := context.Background()
	if n, err := ftsRowCount(ctx, s.r, "chunks_fts"); err != nil || n != 0 {
		t.Fatalf("empty index: %d, %v", n, err)
	}
	_, _, _, doc := plannerCorpus(t, s)
	if n, err := ftsRowCount(ctx, s.r, "chunks_fts"); err != nil || n != len(doc.Chunks) {
		t.Fatalf("row count %d, %v; want %d", n, err, len(doc.Chunks))
	}
	for _, c := range []struct {
		in   []byte
		want uint64
	}{{[]byte{0x05}, 5}, {[]byte{0x81, 0x00}, 128}, {[]byte{0x8c, 0xa0, 0x01}, 0x0c<<14 | 0x20<<7 | 1}, {[]byte{0x81}, 0}, {nil, 0}} {
		if got, _ := sqliteVarint(c.in); got != c.want {
			t.Errorf("sqliteVarint(%x) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestCommonWordAloneFindsResults(t *testing.T) {
	smallLexTuning(t)
	s := openTest(t, testDim)
	plannerCorpus(t, s)
	ctx := context.Background()
	got, err := s.SearchLexical(ctx, "common", 10)
	if err != nil || len(got) != 10 {
		t.Fatalf("common word alone: %d matches, %v; want 10", len(got), err)
	}
	// Every chunk is eligible only after a date none has: the capped window
	// finds nothing eligible, so the search reruns over every row.
	late := makeDoc("/notes/late.md", "common late")
	for i := range late.Chunks {
		late.Chunks[i].CreatedAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	put(t, s, late)
	got, err = s.SearchLexicalFiltered(ctx, "common", 10, Filter{AsOf: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(got) != 1 || got[0].SnippetID != late.Chunks[0].SnippetID {
		t.Fatalf("window rerun: %v, %v; want only the old chunk", snippetIDs(got), err)
	}
}

func TestANDMissFallsBackToOR(t *testing.T) {
	smallLexTuning(t)
	s := openTest(t, testDim)
	alpha, beta, both, _ := plannerCorpus(t, s)
	ctx := context.Background()
	// alpha and beta never share a chunk: AND finds nothing, OR both. The
	// common word is dropped and the unknown word matches nothing.
	got, err := s.SearchLexical(ctx, "alpha common beta nowhere", 10)
	if err != nil {
		t.Fatal(err)
	}
	if ids := snippetIDs(got); !slices.Contains(ids, alpha) || !slices.Contains(ids, beta) || len(ids) != 2 {
		t.Errorf("OR fallback: got %v, want %s and %s", ids, alpha, beta)
	}
	// gamma and delta are together in one chunk: AND finds it first, and
	// with k = 1 that is enough.
	got, err = s.SearchLexical(ctx, "gamma delta", 1)
	if err != nil || len(got) != 1 || got[0].SnippetID != both {
		t.Errorf("AND first: got %v, %v; want %s", snippetIDs(got), err, both)
	}
	// With a larger k the OR fills in, and the chunk with both words still
	// ranks first.
	got, err = s.SearchLexical(ctx, "gamma delta", 10)
	if err != nil || len(got) != 10 || got[0].SnippetID != both {
		t.Errorf("AND then OR: got %v, %v; want 10 with %s first", snippetIDs(got), err, both)
	}
}

func TestLexicalPlansAreDeterministic(t *testing.T) {
	smallLexTuning(t)
	path := t.TempDir() + "/det.db"
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	plannerCorpus(t, s)
	ctx := context.Background()
	queries := []string{"common", "gamma delta", "alpha common beta", "common filler3 filler9", "delta"}
	first := map[string][]Match{}
	for _, q := range queries {
		ms, err := s.SearchLexical(ctx, q, 10)
		if err != nil || len(ms) == 0 {
			t.Fatalf("%q: %v, %v", q, ms, err)
		}
		first[q] = ms
	}
	s.Close()
	s, err = Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 3 {
		for _, q := range queries {
			ms, err := s.SearchLexical(ctx, q, 10)
			if err != nil || !slices.Equal(ms, first[q]) {
				t.Fatalf("%q: got %v, want %v (%v)", q, ms, first[q], err)
			}
		}
	}
}

// TestChunkWithEveryWordRanksFirst: a question in everyday words, where
// "reset" and "the" are common and so weigh nothing in bm25, still puts
// the one chunk holding every word first, ahead of chunks that mention the
// printer more often.
func TestChunkWithEveryWordRanksFirst(t *testing.T) {
	smallLexTuning(t)
	s := openTest(t, testDim)
	ctx := context.Background()
	var texts []string
	for i := range 200 {
		switch {
		case i == 120:
			texts = append(texts, "To reset the printer, hold the power button for ten seconds.")
		case i%10 == 3:
			texts = append(texts, fmt.Sprintf("The printer in room %d jams; the printer tray needs paper.", i))
		case i%3 == 0:
			texts = append(texts, fmt.Sprintf("Reset the router %d when the light blinks.", i))
		default:
			texts = append(texts, fmt.Sprintf("The meeting %d moved to the large room.", i))
		}
	}
	doc := makeDoc("/notes/office.md", texts...)
	put(t, s, doc)
	want := doc.Chunks[120].SnippetID
	for _, k := range []int{1, 5, 30} {
		got, err := s.SearchLexical(ctx, "how do I reset the printer?", k)
		if err != nil || len(got) == 0 || got[0].SnippetID != want {
			t.Fatalf("k=%d: got %v, %v; want %s first", k, snippetIDs(got), err, want)
		}
		if k == 30 {
			// The fill: other printer chunks, best bm25 first, each
			// scored by bm25 (negative, lower is better).
			if len(got) != 21 {
				t.Errorf("k=30: %d matches, want the 21 printer chunks", len(got))
			}
			for i, m := range got {
				if m.Rank != i+1 || m.Score >= 0 || (i > 1 && m.Score < got[i-1].Score) {
					t.Errorf("match %d: %+v", i, m)
				}
			}
		}
	}
}
