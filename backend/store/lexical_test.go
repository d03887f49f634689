package store

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	if n, _, err := ftsState(ctx, s.r, "chunks_fts"); err != nil || n != 0 {
		t.Fatalf("empty index: %d, %v", n, err)
	}
	_, _, _, doc := plannerCorpus(t, s)
	if n, _, err := ftsState(ctx, s.r, "chunks_fts"); err != nil || n != len(doc.Chunks) {
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

// TestLexicalKeepsWhatPlainBM25Finds: on an index large enough for the
// planner's bounded plans (small tuning), the chunk a three-word query was
// drawn from ranks at least as high in lexical search as in plain FTS5 BM25
// over the OR of the same terms, for every query whose rarest word is within
// the OR budget. Common words used to weigh nothing, and that lost chunks.
func TestLexicalKeepsWhatPlainBM25Finds(t *testing.T) {
	saved := lexTune
	lexTune = lexical.Tuning{CommonShare: 20, MinCommonRows: 10, MaxCommonRows: 1000, ExactBudget: 20, OrBudget: 400, AllBudget: 1000, CapRows: 30, WindowFactor: 2, MinWindow: 8}
	t.Cleanup(func() { lexTune = saved })
	s := openTest(t, testDim)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dq", i)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	var texts []string
	for range 600 {
		words := make([]string, 12)
		for i := range words {
			words[i] = vocab[zipf.Uint64()]
		}
		texts = append(texts, strings.Join(words, " "))
	}
	doc := makeDoc("/notes/zipf.md", texts...)
	put(t, s, doc)
	worse, compared := 0, 0
	for q := range 150 {
		src := rng.IntN(len(texts))
		words := strings.Fields(texts[src])
		query := strings.Join([]string{words[q%12], words[(q+5)%12], words[(q+9)%12]}, " ")
		rarest := len(texts)
		for _, w := range strings.Fields(query) {
			var n int
			if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, w).Scan(&n); err != nil {
				t.Fatal(err)
			}
			rarest = min(rarest, n)
		}
		if rarest > lexTune.OrBudget {
			continue // every word beyond the budget: the capped plan
		}
		got, err := s.SearchLexical(ctx, query, 10)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.r.QueryContext(ctx, `SELECT c.snippet_id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
			WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts), c.snippet_id LIMIT 10`, strings.Join(lexical.Analyze(query).Words, " OR "))
		if err != nil {
			t.Fatal(err)
		}
		var plain []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			plain = append(plain, id)
		}
		rows.Close()
		want := doc.Chunks[src].SnippetID
		pr, lr := slices.Index(plain, want), slices.Index(snippetIDs(got), want)
		if pr < 0 {
			continue
		}
		compared++
		if lr < 0 || lr > pr {
			worse++
			t.Logf("%q: source at lexical rank %d, plain BM25 rank %d", query, lr+1, pr+1)
		}
	}
	if compared < 50 || worse > 0 {
		t.Fatalf("lexical ranked the source below plain BM25 for %d of %d queries", worse, compared)
	}
}
