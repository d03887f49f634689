package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/footnote-app/footnote/backend/embed"
)

func TestQueryMemoReturnsCopiesAndForgetsOldest(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{Embedder: embed.NewFake(8)}
	m := rememberQueries(inner)
	first, err := m.EmbedQuery(ctx, "q0")
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(first)
	first[0] = 42 // a caller changing its copy must not change the memo
	again, _ := m.EmbedQuery(ctx, "q0")
	if !slices.Equal(again, want) || inner.queries != 1 {
		t.Fatalf("repeat: %v (want %v), model calls %d (want 1)", again, want, inner.queries)
	}
	for i := 1; i <= queryMemoSize; i++ {
		if _, err := m.EmbedQuery(ctx, fmt.Sprint("q", i)); err != nil {
			t.Fatal(err)
		}
	}
	calls := inner.queries
	if _, err := m.EmbedQuery(ctx, "q0"); err != nil || inner.queries != calls+1 {
		t.Fatalf("the oldest query should have been forgotten after %d newer ones (calls %d→%d)", queryMemoSize, calls, inner.queries)
	}
	if rememberQueries(m) != m {
		t.Fatal("wrapping twice should keep one memo")
	}
}
