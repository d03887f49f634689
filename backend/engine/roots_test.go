package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// indexedPaths lists the indexed documents' paths relative to lib.
func indexedPaths(t testing.TB, st *store.Store, lib string) []string {
	t.Helper()
	docs, err := st.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		rel, err := filepath.Rel(lib, d.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = d.Path
		}
		out = append(out, rel)
	}
	return out
}

// lexicalHits returns the texts search finds for query.
func lexicalHits(t testing.TB, en *Engine, query string) []string {
	t.Helper()
	res, err := en.Search(context.Background(), query, searchLexical())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path+": "+h.Text)
	}
	return out
}

func TestIngestedFolderNoticesDeletionsAndRenames(t *testing.T) {
	ctx := context.Background()
	en, counter := newLibraryEngine(t, t.TempDir())
	lib := t.TempDir()
	write(t, filepath.Join(lib, "guide.md"), guide("query"))
	write(t, filepath.Join(lib, "garden.md"), "# Garden\n\nTomatoes grow well in warm sunny gardens.\n")
	write(t, filepath.Join(lib, "sub", "zeppelin.txt"), "Zeppelins are rigid airships.\n")
	if sum, err := en.Ingest(ctx, []string{lib}, nil); err != nil || sum.FilesIndexed != 3 {
		t.Fatalf("ingest: %+v %v", sum, err)
	}

	// Delete, then ingest the folder again: the document leaves at once.
	os.Remove(filepath.Join(lib, "garden.md"))
	sum, err := en.Ingest(ctx, []string{lib}, nil)
	if err != nil || sum.FilesDeleted != 1 || sum.FilesUnchanged != 2 {
		t.Fatalf("re-ingest after a delete: %+v %v", sum, err)
	}
	if hits := lexicalHits(t, en, "tomatoes gardens"); len(hits) != 0 {
		t.Fatalf("deleted document still found: %v", hits)
	}

	// The ingested folder is tracked, so a rescan without a collection name
	// covers it.
	cols, err := en.Collections(ctx)
	if err != nil || len(cols) != 1 || cols[0].Name != "" || !slices.Equal(cols[0].Paths, []string{lib}) {
		t.Fatalf("collections: %+v %v", cols, err)
	}
	os.Remove(filepath.Join(lib, "sub", "zeppelin.txt"))
	sum, err = en.Rescan(ctx, "", nil)
	if err != nil || sum.FilesDeleted != 1 || sum.FilesSeen != 1 {
		t.Fatalf("rescan after a delete: %+v %v", sum, err)
	}
	if hits := lexicalHits(t, en, "zeppelins airships"); len(hits) != 0 {
		t.Fatalf("deleted document still found: %v", hits)
	}

	// Rename: the vectors are reused by content.
	counter.passages.Store(0)
	if err := os.Rename(filepath.Join(lib, "guide.md"), filepath.Join(lib, "sub", "manual.md")); err != nil {
		t.Fatal(err)
	}
	sum, err = en.Rescan(ctx, "", nil)
	if err != nil || sum.FilesIndexed != 1 || sum.FilesDeleted != 1 || sum.ChunksEmbedded != 0 || sum.ChunksReused == 0 || counter.passages.Load() != 0 {
		t.Fatalf("rename: %+v (%d passages) %v", sum, counter.passages.Load(), err)
	}
	if got := indexedPaths(t, en.index(), lib); !slices.Equal(got, []string{"sub/manual.md"}) {
		t.Fatalf("indexed after the rename: %v", got)
	}
	checkConsistent(t, en.index())

	// Ingesting a folder inside a tracked one adds no root; ingesting the
	// parent of a tracked folder replaces it.
	if _, err := en.Ingest(ctx, []string{filepath.Join(lib, "sub")}, nil); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(lib)
	other := filepath.Join(parent, "other-"+filepath.Base(lib))
	write(t, filepath.Join(other, "x.md"), "# X\n\nExtra.\n")
	if _, err := en.Ingest(ctx, []string{other}, nil); err != nil {
		t.Fatal(err)
	}
	roots, _ := en.index().CollectionRoots(ctx)
	if len(roots) != 2 || roots[0].Path != lib || roots[1].Path != other {
		t.Fatalf("roots: %+v", roots)
	}

	// Adding an ingested folder to a named collection moves it there.
	if _, err := en.AddToCollection(ctx, "work", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	roots, _ = en.index().CollectionRoots(ctx)
	if len(roots) != 2 || roots[0] != (store.CollectionRoot{Collection: "work", Path: lib}) || roots[1].Path != other {
		t.Fatalf("roots after adding the folder to a collection: %+v", roots)
	}
	if docs, _ := en.index().DocumentsInCollection(ctx, "work"); len(docs) != 1 {
		t.Fatalf("documents in work: %+v", docs)
	}
}

func TestRescanChecksDocumentsIngestedBeforeFoldersWereTracked(t *testing.T) {
	ctx := context.Background()
	en, _ := newLibraryEngine(t, t.TempDir())
	lib := t.TempDir()
	write(t, filepath.Join(lib, "a.md"), guide("alpha"))
	write(t, filepath.Join(lib, "b.md"), "# B\n\nBananas are berries.\n")
	// As an older version ingested: documents, but no tracked root.
	sum := newSummary()
	if err := en.enqueueScan(ctx, en.index(), "", []string{lib}, false, &sum); err != nil {
		t.Fatal(err)
	}
	if _, err := en.ResumeQueue(ctx, nil); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(lib, "b.md"))
	got, err := en.Rescan(ctx, "", nil)
	if err != nil || got.FilesDeleted != 1 || got.FilesUnchanged != 1 {
		t.Fatalf("rescan: %+v %v", got, err)
	}
	if paths := indexedPaths(t, en.index(), lib); !slices.Equal(paths, []string{"a.md"}) {
		t.Fatalf("indexed: %v", paths)
	}
}

func TestDeletedDocumentIsNotCitedOrServedFromTheCache(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	lib := writeLibrary(t)
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	ask := func(id string) rag.Answer {
		t.Helper()
		ans, err := en.Ask(ctx, rag.Request{ID: id, Question: "How do I install on Linux?"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	first := ask("q1")
	cited := filepath.Join(lib, "install.md")
	if !first.Grounded || len(first.Citations) == 0 || first.Citations[0].Path != cited {
		t.Fatalf("first answer should cite install.md: %+v", first.Citations)
	}
	if again := ask("q2"); again.Cache == nil {
		t.Fatal("the repeated question should be served from the cache")
	}

	os.Remove(cited)
	if sum, err := en.Rescan(ctx, "", nil); err != nil || sum.FilesDeleted != 1 {
		t.Fatalf("rescan: %+v %v", sum, err)
	}
	after := ask("q3")
	if after.Cache != nil {
		t.Fatalf("an answer citing a deleted document was served from the cache: %+v", after.Cache)
	}
	for _, c := range after.Citations {
		if c.Path == cited {
			t.Fatalf("the answer cites the deleted document: %+v", c)
		}
	}
	for _, ev := range after.Evidence {
		if ev.Path == cited {
			t.Fatalf("the deleted document was sent to the model: %+v", ev)
		}
	}
}

// linkedNotes builds base/notes holding note.md, a link to a file outside
// (leak.md -> ../secrets/creds.txt) and a link to a folder outside (outdir
// -> ../secrets), and returns notes.
func linkedNotes(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	notes := filepath.Join(base, "notes")
	write(t, filepath.Join(notes, "note.md"), "# Note\n\nAn ordinary note about tulips.\n")
	write(t, filepath.Join(base, "secrets", "creds.txt"), "password hunter2 for the vault\n")
	write(t, filepath.Join(base, "secrets", "keys.md"), "# Keys\n\nThe hunter2 spare key.\n")
	for link, target := range map[string]string{"leak.md": "../secrets/creds.txt", "outdir": "../secrets"} {
		if err := os.Symlink(target, filepath.Join(notes, link)); err != nil {
			t.Fatal(err)
		}
	}
	return notes
}

func TestLinksLeadingOutOfTheFolderAreNotIndexed(t *testing.T) {
	ctx := context.Background()
	en, _ := newLibraryEngine(t, t.TempDir())
	notes := linkedNotes(t)
	write(t, filepath.Join(notes, "later.md"), "# Later\n\nReplaced by a link later: hunter2 is not here yet.\n")
	sum, err := en.Ingest(ctx, []string{notes}, nil)
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, s := range sum.Skipped {
		skipped[filepath.Base(s.Path)] = s.Error
	}
	if !strings.HasPrefix(skipped["leak.md"], "a link to a file outside the folder (../secrets/creds.txt)") ||
		!strings.HasPrefix(skipped["outdir"], "a link to a folder outside the folder (../secrets)") {
		t.Fatalf("skipped: %v", skipped)
	}
	if got := indexedPaths(t, en.index(), notes); !slices.Equal(got, []string{"later.md", "note.md"}) {
		t.Fatalf("indexed: %v", got)
	}

	// A file replaced by a link leading out leaves the index on re-ingest.
	os.Remove(filepath.Join(notes, "later.md"))
	if err := os.Symlink("../secrets/creds.txt", filepath.Join(notes, "later.md")); err != nil {
		t.Fatal(err)
	}
	if sum, err := en.Ingest(ctx, []string{notes}, nil); err != nil || sum.FilesDeleted != 1 {
		t.Fatalf("re-ingest: %+v %v", sum, err)
	}
	if hits := lexicalHits(t, en, "hunter2"); len(hits) != 0 {
		t.Fatalf("a secret outside the folder is searchable: %v", hits)
	}

	// The setting lets them in, and turning it off takes them out again.
	en.SetFollowOutsideLinks(true)
	if _, err := en.Rescan(ctx, "", nil); err != nil {
		t.Fatal(err)
	}
	// later.md and leak.md lead to the same file, indexed once.
	if got := indexedPaths(t, en.index(), notes); !slices.Equal(got, []string{"later.md", "note.md", "outdir/keys.md"}) {
		t.Fatalf("indexed with outside links allowed: %v", got)
	}
	en.SetFollowOutsideLinks(false)
	if sum, err := en.Rescan(ctx, "", nil); err != nil || sum.FilesDeleted != 2 {
		t.Fatalf("rescan with outside links refused again: %+v %v", sum, err)
	}
	if hits := lexicalHits(t, en, "hunter2"); len(hits) != 0 {
		t.Fatalf("a secret outside the folder is searchable: %v", hits)
	}
	checkConsistent(t, en.index())
}

func TestWatchNoticesDeletionsAndOutsideLinksInIngestedFolders(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	en, _ := newLibraryEngine(t, t.TempDir(), WithWatchDebounce(50*time.Millisecond))
	notes := linkedNotes(t)
	write(t, filepath.Join(notes, "a.md"), guide("alpha"))
	write(t, filepath.Join(notes, "b.md"), "# B\n\nBananas are berries.\n")
	if _, err := en.Ingest(ctx, []string{notes}, nil); err != nil {
		t.Fatal(err)
	}
	batches := make(chan Progress, 100)
	watchDone := make(chan error, 1)
	go func() {
		watchDone <- en.Watch(ctx, func(p Progress) {
			if p.Done {
				batches <- p
			}
		})
	}()
	<-batches // the start-up rescan
	if ws := en.WatchState(ctx); !slices.Contains(ws.Roots, notes) {
		t.Fatalf("the ingested folder is not watched: %+v", ws)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !cond() {
			select {
			case <-batches:
			case <-deadline:
				t.Fatalf("watch did not pick up: %s (indexed: %v)", what, indexedPaths(t, en.index(), notes))
			}
		}
	}
	indexed := func(rel string) bool { return slices.Contains(indexedPaths(t, en.index(), notes), rel) }

	os.Remove(filepath.Join(notes, "b.md"))
	waitFor("delete", func() bool { return !indexed("b.md") })

	// A new link leading out is not indexed; a file beside it is.
	if err := os.Symlink("../secrets/creds.txt", filepath.Join(notes, "leak2.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(notes, "c.md"), "# C\n\nCherries.\n")
	waitFor("new file", func() bool { return indexed("c.md") })
	// A file replaced by a link leading out leaves the index.
	os.Remove(filepath.Join(notes, "a.md"))
	if err := os.Symlink("../secrets/keys.md", filepath.Join(notes, "a.md")); err != nil {
		t.Fatal(err)
	}
	waitFor("file replaced by an outside link", func() bool { return !indexed("a.md") })
	if got := indexedPaths(t, en.index(), notes); !slices.Equal(got, []string{"c.md", "note.md"}) {
		t.Fatalf("indexed: %v", got)
	}
	if hits := lexicalHits(t, en, "hunter2"); len(hits) != 0 {
		t.Fatalf("a secret outside the folder is searchable: %v", hits)
	}
	cancel()
	if err := <-watchDone; err != nil {
		t.Fatal(err)
	}
}

func TestRebuildRescansTrackedFolders(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	notes := linkedNotes(t)
	write(t, filepath.Join(notes, "gone.md"), "# Gone\n\nDeleted before the rebuild: walnuts.\n")
	write(t, filepath.Join(notes, "swapped.md"), "# Swapped\n\nReplaced by a link before the rebuild.\n")
	en, _ := newLibraryEngine(t, home)
	if _, err := en.Ingest(ctx, []string{notes}, nil); err != nil {
		t.Fatal(err)
	}
	if got := indexedPaths(t, en.index(), notes); !slices.Equal(got, []string{"gone.md", "note.md", "swapped.md"}) {
		t.Fatalf("indexed: %v", got)
	}
	en.Close()

	os.Remove(filepath.Join(notes, "gone.md"))
	os.Remove(filepath.Join(notes, "swapped.md"))
	if err := os.Symlink("../secrets/creds.txt", filepath.Join(notes, "swapped.md")); err != nil {
		t.Fatal(err)
	}
	// Another chunk size: the index is rebuilt.
	cfg := config.Config{Home: home, Settings: config.Defaults()}
	cfg.Settings.ChunkTokens, cfg.Settings.OverlapTokens = 48, 4
	en2, err := New(cfg, WithEmbedder(closeless{testEmbedder(t)}))
	if err != nil {
		t.Fatal(err)
	}
	defer en2.Close()
	if err := en2.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	active, done := en2.RebuildState()
	if !active {
		t.Fatal("no rebuild started")
	}
	<-done
	if got := indexedPaths(t, en2.index(), notes); !slices.Equal(got, []string{"note.md"}) {
		t.Fatalf("indexed after the rebuild: %v", got)
	}
	if hits := lexicalHits(t, en2, "hunter2"); len(hits) != 0 {
		t.Fatalf("a secret outside the folder is searchable after the rebuild: %v", hits)
	}
	if roots, _ := en2.index().CollectionRoots(ctx); len(roots) != 1 || roots[0].Path != notes {
		t.Fatalf("roots after the rebuild: %+v", roots)
	}
	checkConsistent(t, en2.index())
}

func TestQueuedFileReplacedByAnOutsideLinkIsNotRead(t *testing.T) {
	ctx := context.Background()
	en, _ := newLibraryEngine(t, t.TempDir())
	notes := linkedNotes(t)
	if _, err := en.Ingest(ctx, []string{notes}, nil); err != nil {
		t.Fatal(err)
	}
	// Queued after a scan found a regular file, then swapped for a link
	// before the queue reads it (or the app restarts with it queued).
	path := filepath.Join(notes, "new.md")
	if err := os.Symlink("../secrets/creds.txt", path); err != nil {
		t.Fatal(err)
	}
	if err := en.index().Enqueue(ctx, []store.QueueItem{{Path: path, Op: store.OpIndex}}); err != nil {
		t.Fatal(err)
	}
	sum, err := en.ResumeQueue(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 0 || len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Error, "a link to a file outside the folder") {
		t.Fatalf("summary: %+v", sum)
	}
	if hits := lexicalHits(t, en, "hunter2"); len(hits) != 0 {
		t.Fatalf("a secret outside the folder is searchable: %v", hits)
	}
}
