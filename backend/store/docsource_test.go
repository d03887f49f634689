package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// A document detected as a chat is listed with its reason, its model chunks
// are never retrieved, the override is kept by path and clears the stored
// revision (so the next index re-reads the file), and deleting the document
// drops its row.
func TestDocumentSourcesAndOverrides(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	chat := makeDoc("/n/chat.txt", "assistant: zeppelin hangar 40 m [#1]")
	chat.DetectedSource, chat.DetectedReason = corpus.SourceModel, "looks like a chat transcript"
	for i := range chat.Chunks {
		chat.Chunks[i].Source = corpus.SourceModel
	}
	put(t, s, chat)
	put(t, s, makeDoc("/n/doc.md", "zeppelin hangar 55 m"))

	list, err := s.DocumentSources(ctx)
	if err != nil || len(list) != 1 || list[0].Path != "/n/chat.txt" || list[0].Reason != "looks like a chat transcript" || list[0].Overridden {
		t.Fatalf("document sources: %+v %v", list, err)
	}
	hits, err := s.SearchLexicalFiltered(ctx, "zeppelin hangar", 10, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].SnippetID == chat.Chunks[0].SnippetID {
		t.Errorf("lexical hits %+v: want only the document's chunk, never the model chunk", hits)
	}

	if err := s.SetEvidenceOverride(ctx, "/n/chat.txt", true, time.Now()); err != nil {
		t.Fatal(err)
	}
	if on, err := s.EvidenceOverride(ctx, "/n/chat.txt"); err != nil || !on {
		t.Fatalf("override: %v %v", on, err)
	}
	if rev, _, _ := s.DocumentRev(ctx, chat.DocID); rev != "" {
		t.Errorf("the override left the stored revision %q; the file would not be read again", rev)
	}
	if list, _ := s.DocumentSources(ctx); len(list) != 1 || !list[0].Overridden {
		t.Fatalf("after override: %+v", list)
	}

	if err := s.DeleteDocument(ctx, chat.DocID); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.DocumentSources(ctx); len(list) != 0 {
		t.Fatalf("after delete: %+v", list)
	}
	// The choice belongs to the path: it outlives the document.
	if on, _ := s.EvidenceOverride(ctx, "/n/chat.txt"); !on {
		t.Error("the override was dropped with the document")
	}
	if err := s.SetEvidenceOverride(ctx, "/n/chat.txt", false, time.Now()); err != nil {
		t.Fatal(err)
	}
	if on, _ := s.EvidenceOverride(ctx, "/n/chat.txt"); on {
		t.Error("the override could not be removed")
	}
}

// Upgrading an index from before content checks clears every stored
// revision, so the next ingest or rescan checks each file once.
func TestMigrationMarksDocumentsForContentCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "footnote.db")
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	doc := makeDoc("/n/chat.txt", "assistant: zeppelin hangar 40 m [#1]")
	put(t, s, doc)
	s.Close()
	rollBackTo(t, path, 5) // before migrateDocSources
	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE documents SET rev = 'abc'`); err != nil { // as an old index holds it
		t.Fatal(err)
	}
	raw.Close()

	s, err = Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rev, found, err := s.DocumentRev(ctx, doc.DocID); err != nil || !found || rev != "" {
		t.Fatalf("after the upgrade: rev %q found %v (%v); want it cleared", rev, found, err)
	}
	if n, _, _ := s.Counts(ctx); n != 1 {
		t.Fatalf("documents after the upgrade: %d", n)
	}
}
