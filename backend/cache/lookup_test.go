package cache

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/footnote-app/footnote/backend/rag"
)

// cachedAnswer stores answered()'s answer as the answer to question, under
// vector vec.
func cachedAnswer(t *testing.T, c *Cache, m *memStore, id, question string, vec []float32) rag.Answer {
	t.Helper()
	a := answered(t, m)
	a.ID, a.Question = id, question
	rec, err := rag.Record(a)
	if err != nil {
		t.Fatal(err)
	}
	m.answers[id] = rec
	if put, err := c.Put(context.Background(), key, vec, a); !put || err != nil {
		t.Fatalf("put: %v %v", put, err)
	}
	return a
}

// The example: similar enough by embedding, but another question.
func TestLookupServesOnlyTheSameAsk(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	c := &Cache{Store: m}
	cachedAnswer(t, c, m, "ans_1", "Which cartridge does model A-100 use?", []float32{1, 0, 0})
	if _, _, found, err := c.Lookup(ctx, query(key, "What does error 52 mean on model A-100?", []float32{1, 0, 0})); found || err != nil {
		t.Fatalf("another question was served the cartridge answer (err %v)", err)
	}
	_, info, found, err := c.Lookup(ctx, query(key, "Could you tell me which cartridge model A-100 uses?", []float32{1, 0, 0}))
	if !found || err != nil {
		t.Fatalf("a paraphrase missed: %v", err)
	}
	want := rag.CacheMatch{Similarity: true, SameAsk: true, Shared: []string{"identifier A-100"}, Passages: true,
		PassagesCited: 1, SameIndex: true, Revisions: true}
	if got := info.Matched; got == nil || !equalMatch(*got, want) {
		t.Fatalf("matched = %+v, want %+v", got, want)
	}
	if len(m.entries) != 1 {
		t.Fatal("a different question must not delete the entry")
	}
}

func equalMatch(a, b rag.CacheMatch) bool {
	return slices.Equal(a.Shared, b.Shared) && a.Similarity == b.Similarity && a.SameAsk == b.SameAsk &&
		a.Passages == b.Passages && a.PassagesCited == b.PassagesCited && a.SameIndex == b.SameIndex &&
		a.Revisions == b.Revisions && a.Reverified == b.Reverified
}

// The new question's own retrieval must pack every cited passage, unchanged.
func TestLookupNeedsTheCitedPassagesRetrievedAgain(t *testing.T) {
	ctx := context.Background()
	cited := rag.Citation{N: 1, DocID: "doc_a", Rev: "r1", SnippetID: "snip_1"}
	cases := map[string]func(context.Context) ([]rag.Citation, error){
		"not retrieved": func(context.Context) ([]rag.Citation, error) {
			return []rag.Citation{{SnippetID: "snip_2", DocID: "doc_a", Rev: "r1"}}, nil
		},
		"nothing packed": func(context.Context) ([]rag.Citation, error) { return nil, nil },
		"other revision": func(context.Context) ([]rag.Citation, error) {
			c := cited
			c.Rev = "r0"
			return []rag.Citation{c}, nil
		},
		"other text": func(context.Context) ([]rag.Citation, error) {
			c := cited
			c.Text = "edited"
			return []rag.Citation{c}, nil
		},
	}
	for name, evidence := range cases {
		m := newMem()
		c := &Cache{Store: m}
		cachedAnswer(t, c, m, "ans_1", "How do I install?", []float32{1, 0, 0})
		q := query(key, "How do I install?", []float32{1, 0, 0})
		q.Evidence = evidence
		if _, _, found, err := c.Lookup(ctx, q); found || err != nil {
			t.Errorf("%s: found=%v err=%v", name, found, err)
		}
	}
	m := newMem()
	c := &Cache{Store: m}
	cachedAnswer(t, c, m, "ans_1", "How do I install?", []float32{1, 0, 0})
	q := query(key, "How do I install?", []float32{1, 0, 0})
	q.Evidence = nil
	if _, _, found, _ := c.Lookup(ctx, q); found {
		t.Error("a lookup that cannot run retrieval must miss")
	}
	boom := errors.New("index gone")
	q.Evidence = func(context.Context) ([]rag.Citation, error) { return nil, boom }
	if _, _, found, err := c.Lookup(ctx, q); found || !errors.Is(err, boom) {
		t.Errorf("retrieval error: found=%v err=%v", found, err)
	}
}

// A more similar entry that asks something else must not hide one that
// asks the same thing.
func TestLookupTriesLessSimilarEntries(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	c := &Cache{Store: m}
	cachedAnswer(t, c, m, "ans_other", "What does error 71 mean?", []float32{1, 0, 0})
	cachedAnswer(t, c, m, "ans_same", "What is the meaning of error 52?", []float32{0.97, 0.2, 0})
	orig, info, found, err := c.Lookup(ctx, query(key, "What does error 52 mean?", []float32{1, 0, 0}))
	if !found || err != nil || orig.ID != "ans_same" || info.Similarity >= 0.999 {
		t.Fatalf("found=%v err=%v served %s (similarity %.3f)", found, err, orig.ID, info.Similarity)
	}
}

// The re-verification step plugs in here: a failed verification drops the
// entry and the question is answered fresh.
func TestLookupReverifyHook(t *testing.T) {
	ctx := context.Background()
	for _, verdict := range []bool{true, false} {
		m := newMem()
		var seen []rag.Citation
		c := &Cache{Store: m, Reverify: func(_ context.Context, cached rag.Answer, packed []rag.Citation) (bool, error) {
			seen = packed
			return verdict, nil
		}}
		cachedAnswer(t, c, m, "ans_1", "How do I install?", []float32{1, 0, 0})
		_, info, found, err := c.Lookup(ctx, query(key, "how do i install", []float32{1, 0, 0}))
		if err != nil || found != verdict || len(seen) != 1 {
			t.Fatalf("verdict %v: found=%v err=%v packed %v", verdict, found, err, seen)
		}
		if verdict && !info.Matched.Reverified {
			t.Error("a re-verified hit must say so")
		}
		if !verdict && len(m.entries) != 0 {
			t.Error("an entry that failed re-verification must be dropped")
		}
	}
	m := newMem()
	c := &Cache{Store: m}
	cachedAnswer(t, c, m, "ans_1", "How do I install?", []float32{1, 0, 0})
	if _, info, found, _ := c.Lookup(ctx, query(key, "How do I install?", []float32{1, 0, 0})); !found || info.Matched.Reverified {
		t.Error("without the step a hit must not claim re-verification")
	}
}
