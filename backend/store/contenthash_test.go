package store

import (
	"context"
	"testing"
)

// The content hash moves with every document written or removed, stays
// put otherwise (and across reopening), and differs between two indexes
// even when both are empty.
func TestContentHashFollowsTheContent(t *testing.T) {
	ctx := context.Background()
	s, other := openTest(t, testDim), openTest(t, testDim)
	empty := s.ContentHash()
	if len(empty) != 16 || empty == other.ContentHash() {
		t.Fatalf("empty indexes: %q and %q, want two different 16-digit ids", empty, other.ContentHash())
	}
	seen := map[string]string{empty: "empty"}
	step := func(name string, change func()) {
		t.Helper()
		change()
		h := s.ContentHash()
		if prev, ok := seen[h]; ok {
			t.Fatalf("%s: content hash %s repeats the one after %s", name, h, prev)
		}
		seen[h] = name
		if stored, _, _ := s.Meta(ctx, metaContentHash); stored != h {
			t.Fatalf("%s: published %s, stored %s", name, h, stored)
		}
	}
	step("add", func() { put(t, s, makeDoc("/docs/a.md", "The first text of a.")) })
	step("change", func() { put(t, s, makeDoc("/docs/a.md", "The second text of a.")) })
	b := makeDoc("/docs/b.md", "Text of b.")
	step("add another", func() { put(t, s, b) })
	step("remove", func() {
		if err := s.DeleteDocument(ctx, b.DocID); err != nil {
			t.Fatal(err)
		}
	})
	step("reset", func() {
		if err := s.Reset(ctx, testDim); err != nil {
			t.Fatal(err)
		}
	})
	before := s.ContentHash()
	if err := s.DeleteDocument(ctx, "doc_never_indexed"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Traces(ctx, ""); err != nil { // reads leave it alone too
		t.Fatal(err)
	}
	if s.ContentHash() != before {
		t.Fatal("removing a document that was not indexed changed the content hash")
	}
	path := s.Path()
	s.Close()
	again, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.ContentHash() != before {
		t.Fatalf("reopened: %s, was %s", again.ContentHash(), before)
	}
}
