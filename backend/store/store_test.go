package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

const testDim = 4

func openTest(t *testing.T, dim int) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "footnote.db"), Options{Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// makeDoc builds a document whose chunks are texts, in one section.
func makeDoc(path string, texts ...string) corpus.Document {
	docID := corpus.DocID(path)
	doc := corpus.Document{
		DocID: docID, Path: path, Title: filepath.Base(path), Format: "md",
		Rev: corpus.Rev([]byte(strings.Join(texts, "\n"))), Size: 100,
		ModTime: time.Date(2024, 5, 1, 12, 0, 0, 123, time.UTC), Collection: "notes",
		Text:     strings.Join(texts, "\n"),
		Sections: []corpus.Section{{SectionID: "intro", Title: "Intro", Level: 1, Start: 0, End: 10}},
	}
	pos := 0
	for i, text := range texts {
		n := len([]rune(text))
		doc.Chunks = append(doc.Chunks, corpus.Chunk{
			SnippetID: corpus.SnippetID(docID, "intro", text, 0),
			DocID:     docID, SectionID: "intro", Ordinal: i, Text: text,
			Offsets: corpus.Offsets{Start: pos, End: pos + n, Unit: corpus.UnitChar},
			Tokens:  n / 4, Window: corpus.Window{Pre: 3, Post: 5}, Page: i + 1,
			Source: corpus.SourceCorpus, CreatedAt: time.Date(2024, 5, 2, 0, 0, 0, 7, time.UTC),
		})
		pos += n + 1
	}
	return doc
}

// axisVectors gives chunk i the unit vector on axis i mod dim, scaled so
// later chunks on the same axis are distinct.
func axisVectors(n, dim int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		v[i%dim] = 1 + float32(i/dim)
		out[i] = v
	}
	return out
}

func put(t *testing.T, s *Store, doc corpus.Document) {
	t.Helper()
	if err := s.PutDocument(context.Background(), doc, axisVectors(len(doc.Chunks), s.Dim()), "fake/mean"); err != nil {
		t.Fatal(err)
	}
}

// indexRows counts rows in the chunk table and in both chunk indexes.
func indexRows(t *testing.T, s *Store) (chunks, fts, vec int) {
	t.Helper()
	err := s.r.QueryRow(`SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks_fts_docsize),
		(SELECT count(*) FROM chunks_vec)`).Scan(&chunks, &fts, &vec)
	if err != nil {
		t.Fatal(err)
	}
	return chunks, fts, vec
}

func wantRows(t *testing.T, s *Store, n int) {
	t.Helper()
	c, f, v := indexRows(t, s)
	if c != n || f != n || v != n {
		t.Fatalf("rows: chunks=%d fts=%d vec=%d, want %d each", c, f, v, n)
	}
}

func checkIntegrity(t *testing.T, s *Store) {
	t.Helper()
	var res string
	if err := s.w.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil {
		t.Fatal(err)
	}
	if res != "ok" {
		t.Fatalf("integrity_check: %s", res)
	}
	// rank 1 also compares the index against the external content table.
	if _, err := s.w.Exec(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("fts5 integrity-check: %v", err)
	}
}

func ids(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.SnippetID)
	}
	return out
}

func TestPutReplaceDeleteKeepsIndexesInStep(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	a := makeDoc("/notes/a.md", "alpha apples", "beta bananas", "gamma grapes")
	b := makeDoc("/notes/b.md", "delta dates", "epsilon elderberries")
	put(t, s, a)
	put(t, s, b)
	wantRows(t, s, 5)
	checkIntegrity(t, s)

	docs, chunks, err := s.Counts(ctx)
	if err != nil || docs != 2 || chunks != 5 {
		t.Fatalf("Counts = %d, %d, %v; want 2, 5", docs, chunks, err)
	}

	a2 := makeDoc("/notes/a.md", "alpha apples", "zeta zucchini")
	put(t, s, a2)
	wantRows(t, s, 4)
	checkIntegrity(t, s)
	if rev, ok, err := s.DocumentRev(ctx, a.DocID); err != nil || !ok || rev != a2.Rev {
		t.Fatalf("DocumentRev = %q, %v, %v; want %q", rev, ok, err, a2.Rev)
	}
	if got, _ := s.SearchLexical(ctx, "grapes", 10); len(got) != 0 {
		t.Fatalf("replaced chunk still found: %v", got)
	}
	if got, _ := s.SearchLexical(ctx, "zucchini", 10); len(got) != 1 {
		t.Fatalf("new chunk not found: %v", got)
	}
	// The vector of the removed chunk "gamma grapes" (axis 2) must be gone.
	got, err := s.SearchVector(ctx, []float32{0, 0, 1, 0}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range got {
		if m.SnippetID == a.Chunks[2].SnippetID {
			t.Fatalf("vector of replaced chunk still found")
		}
	}

	if err := s.DeleteDocument(ctx, b.DocID); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, 2)
	if err := s.DeleteDocument(ctx, "doc_missing"); err != nil {
		t.Fatalf("deleting a missing document: %v", err)
	}
	if _, ok, _ := s.DocumentRev(ctx, b.DocID); ok {
		t.Fatal("deleted document still has a revision")
	}
	if _, _, err := s.Document(ctx, b.DocID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Document(deleted) err = %v, want ErrNotFound", err)
	}
	var sections int
	s.r.QueryRow(`SELECT count(*) FROM sections WHERE doc_id = ?`, b.DocID).Scan(&sections)
	if sections != 0 {
		t.Fatalf("sections of deleted document remain: %d", sections)
	}
	checkIntegrity(t, s)

	// An empty document (no chunks) is stored and listed.
	empty := makeDoc("/notes/empty.md")
	put(t, s, empty)
	wantRows(t, s, 2)
	if docs, _, _ := s.Counts(ctx); docs != 2 {
		t.Fatalf("docs = %d, want 2", docs)
	}
}

func TestFailedPutLeavesPreviousVersion(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	a := makeDoc("/notes/a.md", "alpha apples", "beta bananas")
	b := makeDoc("/notes/b.md", "delta dates")
	put(t, s, a)
	put(t, s, b)

	intact := func(step string) {
		t.Helper()
		wantRows(t, s, 3)
		if rev, _, _ := s.DocumentRev(ctx, a.DocID); rev != a.Rev {
			t.Fatalf("%s: rev = %q, want %q", step, rev, a.Rev)
		}
		if got, _ := s.SearchLexical(ctx, "bananas", 5); len(got) != 1 || got[0].SnippetID != a.Chunks[1].SnippetID {
			t.Fatalf("%s: old chunk not found: %v", step, got)
		}
		checkIntegrity(t, s)
	}

	a2 := makeDoc("/notes/a.md", "new text", "more new text", "third")
	if err := s.PutDocument(ctx, a2, axisVectors(2, testDim), "m"); err == nil {
		t.Fatal("wrong vector count accepted")
	}
	intact("vector count")

	bad := axisVectors(3, testDim)
	bad[1] = []float32{1, 2, 3}
	if err := s.PutDocument(ctx, a2, bad, "m"); !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("wrong vector length: err = %v, want ErrDimensionMismatch", err)
	}
	intact("vector length")

	// A snippet id already owned by another document fails inside the
	// transaction, after the old version was deleted: the rollback must
	// restore it.
	a3 := makeDoc("/notes/a.md", "fresh", "text")
	a3.Chunks[1].SnippetID = b.Chunks[0].SnippetID
	if err := s.PutDocument(ctx, a3, axisVectors(2, testDim), "m"); err == nil {
		t.Fatal("colliding snippet id accepted")
	}
	intact("mid-transaction failure")

	a4 := makeDoc("/notes/a.md", "x")
	a4.Chunks[0].SnippetID = "chat:1"
	if err := s.PutDocument(ctx, a4, axisVectors(1, testDim), "m"); err == nil {
		t.Fatal("reserved snippet id accepted")
	}
	intact("reserved id")
}

func TestLexicalSearch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	doc := makeDoc("/notes/food.md",
		"Le café crème est servi à Zürich",
		"Install the printer driver on Linux",
		"The printer needs paper and the driver needs updates",
		"학교에서 공부했다",
	)
	put(t, s, doc)

	for _, q := range []string{"cafe", "CAFÉ", "creme", "zurich", "Zürich"} {
		got, err := s.SearchLexical(ctx, q, 10)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if len(got) != 1 || got[0].SnippetID != doc.Chunks[0].SnippetID {
			t.Fatalf("%q: got %v, want the café chunk", q, ids(got))
		}
	}

	// OR semantics: partial matches still count, and more matching terms rank higher.
	got, err := s.SearchLexical(ctx, "printer driver paper", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].SnippetID != doc.Chunks[2].SnippetID || got[0].Rank != 1 || got[1].Rank != 2 {
		t.Fatalf("got %+v, want the paper chunk first of two", got)
	}
	if got[0].Score > got[1].Score {
		t.Fatalf("bm25 scores not ascending: %+v", got)
	}
	if got, _ := s.SearchLexical(ctx, "printer driver paper", 1); len(got) != 1 {
		t.Fatalf("k=1 returned %d matches", len(got))
	}

	hostile := []string{
		`"`, `""`, `"printer`, `*`, `printer*`, `NEAR(`, `NEAR(printer driver`, `AND`, `printer AND`,
		`OR OR`, `NOT printer`, `-printer`, `printer -`, `(printer`, `printer)`, `((`, `)(`, `col:printer`,
		`text:printer`, `^printer`, `printer + driver`, `{printer}`, `'`, `\`, `printer"driver`, "\x00",
	}
	for _, q := range hostile {
		if _, err := s.SearchLexical(ctx, q, 10); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	if got, _ := s.SearchLexical(ctx, `NEAR(printer`, 10); len(got) != 2 {
		t.Errorf("NEAR(printer: got %v, want both printer chunks", ids(got))
	}
	for _, q := range []string{"", "   ", `"*()-`, "?!"} {
		got, err := s.SearchLexical(ctx, q, 10)
		if err != nil || len(got) != 0 {
			t.Errorf("query %q: got %v, %v; want nothing, no error", q, got, err)
		}
	}
}

func TestOnlyCorpusChunksAreReturned(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	doc := makeDoc("/notes/mixed.md", "shared word evidence", "shared word user note")
	doc.Chunks[1].Source = corpus.SourceUser
	put(t, s, doc)
	lex, err := s.SearchLexical(ctx, "shared", 10)
	if err != nil || len(lex) != 1 || lex[0].SnippetID != doc.Chunks[0].SnippetID {
		t.Fatalf("lexical: %v, %v; want only the corpus chunk", ids(lex), err)
	}
	vec, err := s.SearchVector(ctx, []float32{0, 1, 0, 0}, 10) // nearest is the user chunk
	if err != nil || len(vec) != 1 || vec[0].SnippetID != doc.Chunks[0].SnippetID {
		t.Fatalf("vector: %v, %v; want only the corpus chunk", ids(vec), err)
	}
}

func TestVectorSearchReturnsNearest(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	doc := makeDoc("/notes/v.md", "one", "two", "three", "four")
	vecs := [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0.9, 0.1, 0, 0}, {0, 0, 0, 1}}
	if err := s.PutDocument(ctx, doc, vecs, "m"); err != nil {
		t.Fatal(err)
	}
	got, err := s.SearchVector(ctx, []float32{1, 0, 0, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{doc.Chunks[0].SnippetID, doc.Chunks[2].SnippetID}
	if len(got) != 3 || !reflect.DeepEqual(ids(got)[:2], want) {
		t.Fatalf("got %+v, want %v first", got, want)
	}
	if got[0].Score != 0 || got[0].Rank != 1 || got[2].Rank != 3 || got[1].Score >= got[2].Score {
		t.Fatalf("scores/ranks wrong: %+v", got)
	}
	if _, err := s.SearchVector(ctx, []float32{1, 0}, 3); !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("short query vector: err = %v", err)
	}
	if got, err := s.SearchVector(ctx, []float32{1, 0, 0, 0}, 0); err != nil || got != nil {
		t.Fatalf("k=0: %v, %v", got, err)
	}
	if got, err := s.SearchVector(ctx, []float32{1, 0, 0, 0}, 100000); err != nil || len(got) != 4 {
		t.Fatalf("huge k: %d matches, %v", len(got), err)
	}
}

func TestSearchIsDeterministicOnTies(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	// Identical texts in different documents tie on bm25; identical vectors
	// tie on distance. Order must then follow snippet_id, every time.
	var all []string
	for i := range 6 {
		doc := makeDoc(fmt.Sprintf("/notes/%d.md", i), "same words here")
		if err := s.PutDocument(ctx, doc, [][]float32{{0.5, 0.5, 0.5, 0.5}}, "m"); err != nil {
			t.Fatal(err)
		}
		all = append(all, doc.Chunks[0].SnippetID)
	}
	sorted := slices.Sorted(slices.Values(all))
	for range 5 {
		lex, err := s.SearchLexical(ctx, "same words", 10)
		if err != nil || !reflect.DeepEqual(ids(lex), sorted) {
			t.Fatalf("lexical order %v, %v; want %v", ids(lex), err, sorted)
		}
		vec, err := s.SearchVector(ctx, []float32{0.5, 0.5, 0.5, 0.5}, 10)
		if err != nil || !reflect.DeepEqual(ids(vec), sorted) {
			t.Fatalf("vector order %v, %v; want %v", ids(vec), err, sorted)
		}
	}
}

func TestDocumentsAndChunks(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	b := makeDoc("/notes/b.md", "bravo text")
	a := makeDoc("/notes/a.md", "alpha text", "second chunk")
	put(t, s, b)
	put(t, s, a)

	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != 2 {
		t.Fatalf("Documents: %v, %v", docs, err)
	}
	d := docs[0]
	if d.DocID != a.DocID || d.Path != a.Path || d.Title != "a.md" || d.Format != "md" || d.Rev != a.Rev ||
		d.Chunks != 2 || d.Size != 100 || d.Collection != "notes" || !d.ModTime.Equal(a.ModTime) {
		t.Fatalf("Documents[0] = %+v", d)
	}
	if time.Since(d.IndexedAt) > time.Minute || d.IndexedAt.After(time.Now()) {
		t.Fatalf("IndexedAt = %v", d.IndexedAt)
	}
	info, text, err := s.Document(ctx, a.DocID)
	if err != nil || text != a.Text || info.Chunks != 2 {
		t.Fatalf("Document = %+v, %q, %v", info, text, err)
	}

	recs, err := s.Chunks(ctx, []string{a.Chunks[1].SnippetID, b.Chunks[0].SnippetID, "snip_unknown"})
	if err != nil || len(recs) != 2 {
		t.Fatalf("Chunks: %v, %v", recs, err)
	}
	r := recs[a.Chunks[1].SnippetID]
	if !reflect.DeepEqual(r.Chunk, a.Chunks[1]) {
		t.Fatalf("chunk round trip:\n got %+v\nwant %+v", r.Chunk, a.Chunks[1])
	}
	if r.Title != "a.md" || r.Path != a.Path || r.Rev != a.Rev || r.EmbedModel != "fake/mean" {
		t.Fatalf("chunk record = %+v", r)
	}

	// More ids than one batch.
	many := make([]string, 0, 1200)
	for i := range 1200 {
		many = append(many, fmt.Sprintf("snip_%d", i))
	}
	many = append(many, a.Chunks[0].SnippetID)
	if recs, err := s.Chunks(ctx, many); err != nil || len(recs) != 1 {
		t.Fatalf("batched Chunks: %d, %v", len(recs), err)
	}

	vecs, err := s.ChunkVectorsByText(ctx, a.DocID, "fake/mean")
	if err != nil || len(vecs) != 2 || !reflect.DeepEqual(vecs[a.Chunks[1].Text], axisVectors(2, testDim)[1]) {
		t.Fatalf("ChunkVectorsByText = %v, %v", vecs, err)
	}
	if vecs, _ := s.ChunkVectorsByText(ctx, a.DocID, "other/model"); len(vecs) != 0 {
		t.Fatalf("ChunkVectorsByText for another model = %v", vecs)
	}
}

func TestMetaAndAnswers(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	if _, ok, err := s.Meta(ctx, "index_hash"); ok || err != nil {
		t.Fatalf("missing key: %v, %v", ok, err)
	}
	for _, v := range []string{"h1", "h2"} {
		if err := s.SetMeta(ctx, "index_hash", v); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.Meta(ctx, "index_hash"); got != v || !ok || err != nil {
			t.Fatalf("Meta = %q, %v, %v; want %q", got, ok, err, v)
		}
	}
	v, err := s.Versions(ctx)
	if err != nil || !strings.Contains(v, "FTS5, sqlite-vec v") || !strings.Contains(v, "dim 4") {
		t.Fatalf("Versions = %q, %v", v, err)
	}
	if _, err := s.r.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('r', 'w')`); err == nil {
		t.Fatal("the reader pool accepted a write")
	}
	if got, _, _ := s.Meta(ctx, metaAnalyzer); got != Analyzer {
		t.Fatalf("analyzer meta = %q", got)
	}

	base := time.Date(2024, 6, 1, 10, 0, 0, 42, time.UTC)
	first := AnswerRecord{
		ID: "ans_1", RequestID: "req_1", Question: "What?", Answer: "That [#1].", Grounded: true,
		CitationsJSON: `[{"n":1}]`, Model: "llama", EmbedModel: "mini/mean", PromptTemplate: "v1",
		RetrievalJSON: `{"k":20}`, PromptTokens: 123, AnswerTokens: 45, DurationMS: 6789, CreatedAt: base,
	}
	second := AnswerRecord{
		ID: "ans_2", RequestID: "req_2", Question: "Why?", Stopped: true, RefusalReason: "no evidence",
		Error: "cancelled", CreatedAt: base.Add(time.Second),
	}
	for _, a := range []AnswerRecord{first, second} {
		if err := s.SaveAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Answers(ctx, 0)
	if err != nil || len(got) != 2 {
		t.Fatalf("Answers: %v, %v", got, err)
	}
	if !reflect.DeepEqual(got[0], second) || !reflect.DeepEqual(got[1], first) {
		t.Fatalf("round trip:\n got %+v\nwant %+v, %+v", got, second, first)
	}
	if got, _ := s.Answers(ctx, 1); len(got) != 1 || got[0].ID != "ans_2" {
		t.Fatalf("limit 1: %+v", got)
	}
	first.Answer = "Updated."
	if err := s.SaveAnswer(ctx, first); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Answers(ctx, 0); len(got) != 2 || got[1].Answer != "Updated." {
		t.Fatalf("after update: %+v", got)
	}
	if err := s.SaveAnswer(ctx, AnswerRecord{}); err == nil {
		t.Fatal("answer without id accepted")
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "footnote.db")
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	s, err = Open(path, Options{Dim: testDim})
	if !errors.Is(err, ErrNewerSchema) || s != nil {
		t.Fatalf("Open newer schema: %v, %v; want ErrNewerSchema", s, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error does not name the file: %v", err)
	}
}

func TestDimensionChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "footnote.db")
	s, err := Open(path, Options{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, makeDoc("/notes/a.md", "alpha"))
	if err := s.SaveAnswer(ctx, AnswerRecord{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	if s, err := Open(path, Options{Dim: 8}); !errors.Is(err, ErrDimensionMismatch) || s != nil {
		t.Fatalf("Open with another dim: %v, %v; want ErrDimensionMismatch", s, err)
	}
	s, err = Open(path, Options{}) // Dim 0: use what the index has
	if err != nil || s.Dim() != 4 {
		t.Fatalf("Open with Dim 0: %v", err)
	}
	s.Close()

	s, err = Open(path, Options{Dim: 8, ResetOnDimensionChange: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if docs, chunks, _ := s.Counts(ctx); docs != 0 || chunks != 0 || s.Dim() != 8 {
		t.Fatalf("after reset: %d docs, %d chunks, dim %d", docs, chunks, s.Dim())
	}
	if got, _ := s.Answers(ctx, 0); len(got) != 1 {
		t.Fatalf("answers lost on reset: %v", got)
	}
	put(t, s, makeDoc("/notes/b.md", "bravo", "charlie"))
	wantRows(t, s, 2)
	checkIntegrity(t, s)

	// An index without chunks adopts a new dimension silently.
	if err := s.Reset(ctx, 8); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path, Options{Dim: 6})
	if err != nil || s.Dim() != 6 {
		t.Fatalf("empty index with new dim: %v", err)
	}
	s.Close()
}

func TestReset(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	put(t, s, makeDoc("/notes/a.md", "alpha apples", "beta"))
	s.SetMeta(ctx, "index_hash", "x")
	if err := s.Reset(ctx, 6); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, 0)
	if got, _ := s.SearchLexical(ctx, "apples", 5); len(got) != 0 {
		t.Fatalf("search after reset: %v", got)
	}
	if v, _, _ := s.Meta(ctx, "index_hash"); v != "x" {
		t.Fatalf("meta lost on reset")
	}
	if v, _, _ := s.Meta(ctx, metaVectorDim); v != "6" {
		t.Fatalf("vector_dim = %q", v)
	}
	put(t, s, makeDoc("/notes/a.md", "alpha apples", "beta"))
	wantRows(t, s, 2)
	if got, err := s.SearchVector(ctx, []float32{1, 0, 0, 0, 0, 0}, 1); err != nil || len(got) != 1 {
		t.Fatalf("vector search after reset: %v, %v", got, err)
	}
	checkIntegrity(t, s)
	if err := s.Reset(ctx, 0); err == nil {
		t.Fatal("Reset(0) accepted")
	}
}

func TestOpenExplainsBadLocations(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(filepath.Join(dir, "missing", "footnote.db"), Options{Dim: 4})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing folder: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if _, err := Open(filepath.Join(file, "footnote.db"), Options{Dim: 4}); err == nil {
		t.Fatal("file as folder accepted")
	}
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o644)
	if _, err := Open(junk, Options{Dim: 4}); err == nil || !strings.Contains(err.Error(), "not a Footnote index") {
		t.Fatalf("junk file: %v", err)
	}
	if _, err := Open(dir, Options{Dim: 4}); err == nil {
		t.Fatal("folder as index file accepted")
	}
	if _, err := Open(filepath.Join(dir, "x.db"), Options{}); err == nil {
		t.Fatal("new index without a dimension accepted")
	}
	// Characters that mean something in URIs must not break the path.
	odd := filepath.Join(dir, "odd ?#% name.db")
	s, err := Open(odd, Options{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(odd); err != nil {
		t.Fatalf("index not created at the literal path: %v", err)
	}
}

// TestConcurrentReadsDuringWrites checks that readers never see an error or
// a half-written document while a writer replaces and deletes documents.
func TestConcurrentReadsDuringWrites(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	for i := range 5 {
		put(t, s, makeDoc(fmt.Sprintf("/notes/%d.md", i), "stable words here", "more stable words"))
	}

	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for r := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				if _, err := s.SearchLexical(ctx, "stable words round", 10); err != nil {
					errs <- err
					return
				}
				if _, err := s.SearchVector(ctx, []float32{1, 0, 0, 0}, 10); err != nil {
					errs <- err
					return
				}
				if err := consistentSnapshot(ctx, s); err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
			}
		})
	}
	// Concurrent writers too: all writes go through the one writer connection.
	var writers sync.WaitGroup
	for w := range 2 {
		writers.Go(func() {
			for i := range 40 {
				path := fmt.Sprintf("/notes/w%d-%d.md", w, i%4)
				texts := []string{fmt.Sprintf("round %d text", i), "stable words", fmt.Sprintf("extra %d", i)}
				doc := makeDoc(path, texts[:1+i%3]...)
				if err := s.PutDocument(ctx, doc, axisVectors(len(doc.Chunks), testDim), "m"); err != nil {
					errs <- err
					return
				}
				if i%5 == 4 {
					if err := s.DeleteDocument(ctx, doc.DocID); err != nil {
						errs <- err
						return
					}
				}
				if err := s.SaveAnswer(ctx, AnswerRecord{ID: path}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	writers.Wait()
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c, _, _ := indexRows(t, s)
	wantRows(t, s, c)
	checkIntegrity(t, s)
}

// consistentSnapshot checks, inside one read transaction, that every chunk
// has exactly one full-text row and one vector.
func consistentSnapshot(ctx context.Context, s *Store) error {
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var chunks, fts, vec, docsWithoutChunks int
	err = tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks_fts_docsize),
		(SELECT count(*) FROM chunks_vec),
		(SELECT count(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.doc_id))`).
		Scan(&chunks, &fts, &vec, &docsWithoutChunks)
	if err != nil {
		return err
	}
	if chunks != fts || chunks != vec || docsWithoutChunks != 0 {
		return fmt.Errorf("inconsistent snapshot: chunks=%d fts=%d vec=%d empty docs=%d", chunks, fts, vec, docsWithoutChunks)
	}
	return nil
}
