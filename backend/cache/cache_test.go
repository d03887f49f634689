package cache

import (
	"context"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

type memStore struct {
	entries map[string]store.CacheRecord
	revs    map[string]string
	answers map[string]store.AnswerRecord
}

func newMem() *memStore {
	return &memStore{entries: map[string]store.CacheRecord{}, revs: map[string]string{"doc_a": "r1"}, answers: map[string]store.AnswerRecord{}}
}

func (m *memStore) PutCache(_ context.Context, c store.CacheRecord) error {
	m.entries[c.AnswerID] = c
	return nil
}
func (m *memStore) CacheCandidates(_ context.Context, h, model, tpl string) ([]store.CacheRecord, error) {
	var out []store.CacheRecord
	for _, e := range m.entries {
		if e.IndexHash == h && e.Model == model && e.Template == tpl {
			out = append(out, e)
		}
	}
	return out, nil
}
func (m *memStore) DeleteCache(_ context.Context, ids ...string) error {
	for _, id := range ids {
		delete(m.entries, id)
	}
	return nil
}
func (m *memStore) DocumentRev(_ context.Context, id string) (string, bool, error) {
	r, ok := m.revs[id]
	return r, ok, nil
}
func (m *memStore) AnswerByID(_ context.Context, id string) (store.AnswerRecord, bool, error) {
	a, ok := m.answers[id]
	return a, ok, nil
}

var t0 = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

func answered(t *testing.T, m *memStore) rag.Answer {
	a := rag.Answer{ID: "ans_1", RequestID: "1", Question: "How do I install?", Answer: "Use apt [#1].", Grounded: true,
		Citations: []rag.Citation{{N: 1, DocID: "doc_a", Rev: "r1", SnippetID: "snip_1"}}, Evidence: []rag.Citation{},
		Validation: provenance.Report{OK: true}, CreatedAt: t0, FinishedAt: t0.Add(time.Second),
		Provenance: provenance.Provenance{DerivationChain: []string{provenance.StepLexical, "LLM:ollama/m"}}}
	rec, err := rag.Record(a)
	if err != nil {
		t.Fatal(err)
	}
	m.answers[a.ID] = rec
	return a
}

var key = Key{SettingsHash: "h", Model: "m", Template: "t"}

// retrieved is a new question's retrieval that packs the passage answered()
// cites, unchanged.
func retrieved(context.Context) ([]rag.Citation, error) {
	return []rag.Citation{{N: 1, DocID: "doc_a", Rev: "r1", SnippetID: "snip_1"}}, nil
}

func query(k Key, question string, vec []float32) Query {
	return Query{Key: k, Question: question, Vector: vec, Evidence: retrieved}
}

func TestHitMissInvalidation(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	c := &Cache{Store: m}
	a := answered(t, m)
	if put, err := c.Put(ctx, key, []float32{1, 0, 0}, a); !put || err != nil {
		t.Fatalf("put %v %v", put, err)
	}
	// hit: near-identical question vector
	orig, info, found, err := c.Lookup(ctx, query(key, "how to install", []float32{0.99, 0.05, 0}))
	if err != nil || !found || orig.ID != "ans_1" || info.OriginalQuestion != "How do I install?" || info.Similarity < 0.95 || info.Policy == "" {
		t.Fatalf("hit: %v %+v %v", found, info, err)
	}
	if !info.AnsweredAt.Equal(a.FinishedAt) {
		t.Fatalf("answered at %v", info.AnsweredAt)
	}
	served := Serve(orig, rag.Request{ID: "2", Question: "how to install"}, info, t0.Add(time.Hour))
	if served.Provenance.DerivationChain[0] != provenance.StepCache || served.Cache == nil || served.ID != "ans_2" ||
		served.Question != "how to install" || orig.Provenance.DerivationChain[0] == provenance.StepCache {
		t.Fatalf("served %+v", served)
	}
	// miss: a different question
	if _, _, found, _ := c.Lookup(ctx, query(key, "how to install", []float32{0, 1, 0})); found {
		t.Fatal("unrelated question hit the cache")
	}
	// miss: another index, model or template
	for _, k := range []Key{{"h2", "m", "t"}, {"h", "m2", "t"}, {"h", "m", "t2"}} {
		if _, _, found, _ := c.Lookup(ctx, query(k, "How do I install?", []float32{1, 0, 0})); found {
			t.Fatalf("key %+v must miss", k)
		}
	}
	// invalidation: the cited document changed
	m.revs["doc_a"] = "r2"
	if _, _, found, _ := c.Lookup(ctx, query(key, "How do I install?", []float32{1, 0, 0})); found {
		t.Fatal("changed document must invalidate the entry")
	}
	if len(m.entries) != 0 {
		t.Fatal("the stale entry should be deleted")
	}
}

func TestRefusalsNotCached(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	c := &Cache{Store: m}
	a := answered(t, m)
	reason := rag.RefusalScoreGate
	cases := map[string]func(*rag.Answer){
		"refused":   func(a *rag.Answer) { a.Grounded, a.RefusalReason = false, &reason },
		"stopped":   func(a *rag.Answer) { a.Stopped = true },
		"invalid":   func(a *rag.Answer) { a.Validation.OK = false },
		"cached":    func(a *rag.Answer) { a.Cache = &rag.CacheInfo{Hit: true} },
		"uncited":   func(a *rag.Answer) { a.Citations = nil },
		"llm error": func(a *rag.Answer) { a.Error = "boom" },
	}
	for name, mod := range cases {
		b := a
		mod(&b)
		if put, err := c.Put(ctx, key, []float32{1}, b); put || err != nil {
			t.Errorf("%s: put=%v err=%v", name, put, err)
		}
	}
	if len(m.entries) != 0 {
		t.Fatal("nothing should be cached")
	}
}
