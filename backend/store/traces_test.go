package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestTracesAndCacheTables(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "index.db"), Options{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []TraceRecord{
		{TS: now, QID: "q1", Kind: "question", Store: "index.db", IndexHash: "h", EmbedModel: "m", Text: "why?"},
		{TS: now, QID: "q1", Seg: 1, Kind: "segment", Citations: []string{"snip_a"}, Scores: []float64{0.5},
			KPos: []int{2}, KFinal: []int{1}, SectionIDs: []string{"s"}, Revs: []string{"r"}, Text: "because [#1]."},
		{TS: now, QID: "q2", Kind: "question", Text: "other"},
	}
	if err := s.AddTraces(ctx, rows); err != nil {
		t.Fatal(err)
	}
	got, err := s.Traces(ctx, "q1")
	if err != nil || len(got) != 2 {
		t.Fatalf("traces %v %v", got, err)
	}
	if got[1].Seg != 1 || !slices.Equal(got[1].KPos, []int{2}) || got[1].Revs[0] != "r" || !got[0].TS.Equal(now) || got[0].Citations == nil {
		t.Fatalf("round trip: %+v", got)
	}
	all, _ := s.Traces(ctx, "")
	if len(all) != 3 {
		t.Fatalf("all traces: %d", len(all))
	}

	entry := CacheRecord{AnswerID: "ans_1", Question: "q", Embedding: []float32{1, 0, 0, 0.5}, IndexHash: "h", Model: "llm",
		Template: "t1", Revs: map[string]string{"doc_a": "r1"}, CreatedAt: now}
	if err := s.PutCache(ctx, entry); err != nil {
		t.Fatal(err)
	}
	c, err := s.CacheCandidates(ctx, "h", "llm", "t1")
	if err != nil || len(c) != 1 || !slices.Equal(c[0].Embedding, entry.Embedding) || c[0].Revs["doc_a"] != "r1" {
		t.Fatalf("candidates %+v %v", c, err)
	}
	for _, key := range [][3]string{{"h2", "llm", "t1"}, {"h", "other", "t1"}, {"h", "llm", "t2"}} {
		if c, _ := s.CacheCandidates(ctx, key[0], key[1], key[2]); len(c) != 0 {
			t.Fatalf("key %v must not match", key)
		}
	}
	if err := s.DeleteCache(ctx, "ans_1"); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.CacheCandidates(ctx, "h", "llm", "t1"); len(c) != 0 {
		t.Fatal("entry not deleted")
	}
	if _, found, err := s.DocumentRev(ctx, "doc_missing"); found || err != nil {
		t.Fatalf("missing doc: %v %v", found, err)
	}
}
