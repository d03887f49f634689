package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestChunksWithoutVectorsAreSearchedLexicallyThenFilled: a document indexed
// with no embedding model is found by words at once; its vectors, added
// later from the stored text, make it findable by vector too.
func TestChunksWithoutVectorsAreSearchedLexicallyThenFilled(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	doc := makeDoc("/notes/plain.md", "The boiler needs a yearly service.", "Bleed the radiators in autumn.")
	if err := s.PutDocument(ctx, doc, make([][]float32, len(doc.Chunks)), ""); err != nil {
		t.Fatal(err)
	}
	if got, err := s.SearchLexical(ctx, "radiators", 10); err != nil || len(got) != 1 {
		t.Fatalf("lexical before vectors: %v, %v", snippetIDs(got), err)
	}
	if got, err := s.SearchVector(ctx, []float32{1, 0, 0, 0}, 10); err != nil || len(got) != 0 {
		t.Fatalf("vector search found chunks that have no vector: %v, %v", snippetIDs(got), err)
	}
	pending, err := s.PendingVectors(ctx, 10)
	if err != nil || len(pending) != 2 || pending[0].Text != doc.Chunks[0].Text {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	if n, err := s.CountPendingVectors(ctx); err != nil || n != 2 {
		t.Fatalf("pending count %d, %v", n, err)
	}
	vecs := axisVectors(2, testDim)
	if err := s.PutVectors(ctx, map[string][]float32{pending[0].SnippetID: vecs[0], pending[1].SnippetID: vecs[1], "snip_gone": vecs[0]}, "fake/mean"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountPendingVectors(ctx); n != 0 {
		t.Fatalf("%d chunks still pending", n)
	}
	got, err := s.SearchVector(ctx, vecs[1], 1)
	if err != nil || len(got) != 1 || got[0].SnippetID != doc.Chunks[1].SnippetID {
		t.Fatalf("vector search after the fill: %v, %v", snippetIDs(got), err)
	}
	recs, _ := s.Chunks(ctx, []string{doc.Chunks[1].SnippetID})
	if recs[doc.Chunks[1].SnippetID].EmbedModel != "fake/mean" {
		t.Errorf("embed model of a filled chunk = %q", recs[doc.Chunks[1].SnippetID].EmbedModel)
	}
	// A second fill of the same chunk is skipped, not duplicated.
	if err := s.PutVectors(ctx, map[string][]float32{pending[0].SnippetID: vecs[1]}, "fake/mean"); err != nil {
		t.Fatal(err)
	}
	if _, _, vec := indexRows(t, s); vec != 2 {
		t.Errorf("%d vectors for 2 chunks", vec)
	}
}

// TestIndexWithoutVectorsTakesTheFirstModelsDimension: text indexed with
// no model is kept when a model of another length arrives.
func TestIndexWithoutVectorsTakesTheFirstModelsDimension(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "footnote.db")
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	doc := makeDoc("/notes/plain.md", "The boiler needs a yearly service.")
	if err := s.PutDocument(ctx, doc, make([][]float32, 1), ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path, Options{Dim: 8})
	if err != nil {
		t.Fatalf("reopen for an 8-dimension model: %v", err)
	}
	defer s.Close()
	if s.Dim() != 8 {
		t.Fatalf("dim %d, want 8", s.Dim())
	}
	if docs, chunks, err := s.Counts(ctx); err != nil || docs != 1 || chunks != 1 {
		t.Fatalf("after taking the new dimension: %d docs, %d chunks, %v", docs, chunks, err)
	}
	v := make([]float32, 8)
	v[3] = 1
	if err := s.PutVectors(ctx, map[string][]float32{doc.Chunks[0].SnippetID: v}, "fake/mean"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.SearchVector(ctx, v, 1); err != nil || len(got) != 1 {
		t.Fatalf("vector search: %v, %v", snippetIDs(got), err)
	}
}
