package engine

import (
	"context"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

// TestCacheKeysOnStandaloneQuestion: a follow-up whose standalone question
// is one answered before is served from the cache under that question, and
// still records what it searched for.
func TestCacheKeysOnStandaloneQuestion(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	first, err := en.Ask(ctx, rag.Request{ID: "q1", Question: "How do I install on Linux?"}, nil)
	if err != nil || !first.Grounded {
		t.Fatalf("first: %v %+v", err, first)
	}
	opener, err := en.AskInThread(ctx, "", rag.Request{ID: "t1", Question: "Which platforms does the guide cover?"}, "", nil, AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	follow, err := en.AskInThread(ctx, opener.Thread.ID, rag.Request{ID: "t2", Question: "And how do I install it there?"},
		"How do I install on Linux?", nil, AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := follow.Answer
	if a.Cache == nil || a.Cache.OriginalID != first.ID {
		t.Fatalf("the follow-up was not served from the cache of its standalone question: cache %+v", a.Cache)
	}
	if a.Followup == nil || a.Followup.Standalone != "How do I install on Linux?" || a.Question != "And how do I install it there?" || follow.Turn.Seq != 2 {
		t.Errorf("served follow-up: question %q followup %+v turn %d", a.Question, a.Followup, follow.Turn.Seq)
	}
}
