package store

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

func snippetIDs(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.SnippetID
	}
	return out
}

func TestKoreanLexicalHits(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	doc := makeDoc("/notes/ko.md",
		"학교에서 친구를 만났다",
		"도서관은 조용하다",
		"나는 학생이다",
		"오늘은 비가 온다")
	put(t, s, doc)
	school, library, student := doc.Chunks[0].SnippetID, doc.Chunks[1].SnippetID, doc.Chunks[2].SnippetID
	cases := map[string]string{
		"학교":     school,  // 2-syllable stem finds 학교에서
		"학교에":    school,  // query particle stripped
		"학교가 어디": school,  // another particle; 어디 matches nothing
		"친구":     school,  // 친구를
		"도서관":    library, // 3 syllables, particle 은 in the text
		"도서관에서":  library,
		"학생":     student, // 학생이다
	}
	for q, want := range cases {
		got, err := s.SearchLexical(ctx, q, 10)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if len(got) == 0 || got[0].SnippetID != want {
			t.Errorf("%q: got %v, want %s first", q, snippetIDs(got), want)
		}
	}
	if got, _ := s.SearchLexical(ctx, "병원", 10); len(got) != 0 {
		t.Errorf("병원 (hospital) must not match: %v", got)
	}
}

func TestKoreanStemKeepsShortWords(t *testing.T) {
	cases := map[string]string{"학교에서": "학교", "학교": "학교", "아이": "아이", "나라": "나라", "사과를": "사과", "도서관에서부터": "도서관"}
	for in, want := range cases {
		if got := koreanStem(in); got != want {
			t.Errorf("koreanStem(%q) = %q, want %q", in, got, want)
		}
	}
	if got := strings.Join(analyzeQuery("학교에서 printer").words, " OR "); got != `"학교"* OR "printer"` {
		t.Errorf("analyzeQuery words = %s", got)
	}
}

func TestChineseJapaneseBigrams(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	doc := makeDoc("/notes/cjk.md",
		"東京大学に行きました",
		"我们在北京学习中文",
		"図書館で本を読む",
		"plain english text")
	put(t, s, doc)
	if got := cjkGrams("東京大学に x 本"); got != "東京 京大 大学 学に 本" {
		t.Errorf("cjkGrams = %q", got)
	}
	cases := map[string]string{
		"東京":   doc.Chunks[0].SnippetID,
		"大学":   doc.Chunks[0].SnippetID,
		"北京":   doc.Chunks[1].SnippetID,
		"学习中文": doc.Chunks[1].SnippetID,
		"図書館":  doc.Chunks[2].SnippetID,
	}
	for q, want := range cases {
		got, err := s.SearchLexical(ctx, q, 10)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if len(got) == 0 || got[0].SnippetID != want {
			t.Errorf("%q: got %v, want %s first", q, snippetIDs(got), want)
		}
	}
	// Deleting the document empties the bigram index too.
	if err := s.DeleteDocument(ctx, doc.DocID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM chunks_cjk WHERE chunks_cjk MATCH '"東京"'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("bigram rows left after delete: %d, %v", n, err)
	}
}

func TestFiltersAndEligibilityInSQL(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	a := makeDoc("/notes/a.md", "shared topic alpha", "shared topic beta")
	b := makeDoc("/docs/b.md", "shared topic gamma")
	b.Collection = "work"
	late := makeDoc("/notes/late.md", "shared topic late")
	for i := range late.Chunks {
		late.Chunks[i].CreatedAt = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	reserved := makeDoc("/notes/draft.md", "shared topic draft")
	reserved.DocID = "draft:1"
	for i := range reserved.Chunks {
		reserved.Chunks[i].DocID = reserved.DocID
	}
	for _, d := range []corpus.Document{a, b, late, reserved} {
		put(t, s, d)
	}
	asOf := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := func(ms []Match, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		got := snippetIDs(ms)
		slices.Sort(got)
		return got
	}
	sorted := func(xs ...string) []string { slices.Sort(xs); return xs }
	allEligible := sorted(a.Chunks[0].SnippetID, a.Chunks[1].SnippetID, b.Chunks[0].SnippetID)
	if got := ids(s.SearchLexicalFiltered(ctx, "shared topic", 10, Filter{AsOf: asOf})); !slices.Equal(got, allEligible) {
		t.Errorf("lexical eligibility: got %v, want %v (late and draft: excluded)", got, allEligible)
	}
	vq := []float32{1, 1, 1, 1}
	if got := ids(s.SearchVectorFiltered(ctx, vq, 10, Filter{AsOf: asOf})); !slices.Equal(got, allEligible) {
		t.Errorf("vector eligibility: got %v, want %v", got, allEligible)
	}
	if got := ids(s.SearchLexicalFiltered(ctx, "shared", 10, Filter{AsOf: asOf, Collections: []string{"work"}})); !slices.Equal(got, []string{b.Chunks[0].SnippetID}) {
		t.Errorf("lexical collection filter: got %v", got)
	}
	if got := ids(s.SearchVectorFiltered(ctx, vq, 10, Filter{AsOf: asOf, Collections: []string{"work"}})); !slices.Equal(got, []string{b.Chunks[0].SnippetID}) {
		t.Errorf("vector collection filter: got %v", got)
	}
	wantA := sorted(a.Chunks[0].SnippetID, a.Chunks[1].SnippetID)
	if got := ids(s.SearchLexicalFiltered(ctx, "shared", 10, Filter{DocIDs: []string{a.DocID}})); !slices.Equal(got, wantA) {
		t.Errorf("lexical doc filter: got %v", got)
	}
	if got := ids(s.SearchVectorFiltered(ctx, vq, 10, Filter{DocIDs: []string{a.DocID, reserved.DocID}})); !slices.Equal(got, wantA) {
		t.Errorf("vector doc filter must still drop reserved ids: got %v", got)
	}
	// Without a time bound the late chunk is eligible again.
	if got := ids(s.SearchLexicalFiltered(ctx, "late", 10, Filter{})); len(got) != 1 {
		t.Errorf("no AsOf: got %v, want the late chunk", got)
	}
}

// clustered returns n unit vectors around a few centres, like sentence
// embeddings of a topical corpus.
func clustered(rng *rand.Rand, n, dim, centres int) [][]float32 {
	cs := make([][]float64, centres)
	for i := range cs {
		cs[i] = make([]float64, dim)
		for d := range cs[i] {
			cs[i][d] = rng.NormFloat64()
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[rng.IntN(centres)]
		v := make([]float32, dim)
		var norm float64
		for d := range v {
			x := c[d] + 0.8*rng.NormFloat64()
			v[d] = float32(x)
			norm += x * x
		}
		for d := range v {
			v[d] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out
}

func TestQuantisedRecallAgainstExact(t *testing.T) {
	const dim, n, queries = 384, 3000, 40
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := clustered(rng, n, dim, 20)
	doc := corpus.Document{DocID: "doc_q", Path: "/q.md", Title: "q", Format: "md", Rev: "r", Collection: "c"}
	for i := range n {
		text := fmt.Sprintf("chunk %d", i)
		doc.Chunks = append(doc.Chunks, corpus.Chunk{SnippetID: corpus.SnippetID("doc_q", "s", text, 0), DocID: "doc_q",
			SectionID: "s", Ordinal: i, Text: text, Source: corpus.SourceCorpus})
	}
	path := filepath.Join(t.TempDir(), "q.db")
	qs := clustered(rng, queries, dim, 20)
	ctx := context.Background()
	for _, kind := range []string{VectorInt8, VectorBinary} {
		s, err := Open(path, Options{Dim: dim, VectorStorage: kind})
		if err != nil {
			t.Fatal(err)
		}
		if kind == VectorInt8 {
			// Written through PutDocument; the binary copy is then rebuilt
			// from the stored float32 vectors by Open.
			if err := s.PutDocument(ctx, doc, vecs, "m"); err != nil {
				t.Fatal(err)
			}
		}
		found, total := 0, 0
		for _, q := range qs {
			exact, err := s.SearchVectorExact(ctx, q, 10, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			approx, err := s.SearchVector(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range approx {
				if slices.Contains(snippetIDs(exact), m.SnippetID) {
					found++
				}
			}
			total += len(exact)
			if len(approx) > 0 && math.Abs(approx[0].Score-exact[0].Score) > 1e-5 && approx[0].SnippetID == exact[0].SnippetID {
				t.Fatalf("%s: rescored distance %v differs from exact %v", kind, approx[0].Score, exact[0].Score)
			}
		}
		recall := float64(found) / float64(total)
		t.Logf("%s recall@10 = %.3f", kind, recall)
		// int8 (the default) must meet the ≥ 0.95 target. One bit per
		// dimension is much coarser: on this deliberately hard data (isotropic
		// noise inside each cluster) rescoring 320 of 3000 candidates gives
		// about 0.77; bench/retrieval measures it at scale.
		want := map[string]float64{VectorInt8: 0.95, VectorBinary: 0.7}[kind]
		if recall < want {
			t.Errorf("%s recall@10 = %.3f, want ≥ %.2f", kind, recall, want)
		}
		if s.VectorStorage() != kind {
			t.Errorf("VectorStorage() = %s, want %s", s.VectorStorage(), kind)
		}
		s.Close()
	}
}

func TestQuantisedIndexFollowsDeletesAndResets(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim) // default storage
	if s.VectorStorage() != DefaultVectorStorage {
		t.Fatalf("default storage %s", s.VectorStorage())
	}
	a := makeDoc("/notes/a.md", "one", "two", "three")
	put(t, s, a)
	count := func() int {
		var n int
		if err := s.r.QueryRow(`SELECT count(*) FROM ` + quantTable(DefaultVectorStorage)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count() != 3 {
		t.Fatalf("quantised rows %d, want 3", count())
	}
	if err := s.DeleteDocument(ctx, a.DocID); err != nil {
		t.Fatal(err)
	}
	if count() != 0 {
		t.Fatalf("quantised rows after delete %d, want 0", count())
	}
	if err := s.Reset(ctx, 6); err != nil {
		t.Fatal(err)
	}
	b := makeDoc("/notes/b.md", "four")
	put(t, s, b)
	got, err := s.SearchVector(ctx, axisVectors(1, 6)[0], 5)
	if err != nil || len(got) != 1 || got[0].SnippetID != b.Chunks[0].SnippetID {
		t.Fatalf("after reset: %v, %v", got, err)
	}
}
