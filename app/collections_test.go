package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func TestAddFolderEmitsProgressAndListsCollection(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, rec, _ := newTestApp(t, fake)
	lib := t.TempDir()
	for _, n := range []string{"one.md", "two.md", "three.txt"} {
		if err := os.WriteFile(filepath.Join(lib, n), []byte("# "+n+"\n\nSome text about "+n+".\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := a.AddFolder("notes", lib)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 3 {
		t.Fatalf("summary: %+v", sum)
	}
	var final engine.Progress
	rec.mu.Lock()
	for _, e := range rec.events {
		if p, ok := e.payload.(engine.Progress); ok && e.name == EventIngestProgress && p.Collection == "notes" {
			final = p
		}
	}
	rec.mu.Unlock()
	if !final.Done || final.FilesDone != 3 || final.FilesTotal != 3 || final.FilesPerSec <= 0 {
		t.Fatalf("last ingest:progress for the collection: %+v", final)
	}
	cols, err := a.Collections()
	if err != nil || len(cols) != 1 || cols[0].Name != "notes" || cols[0].Documents != 3 {
		t.Fatalf("collections: %+v, %v", cols, err)
	}
	if cols[0].LastIndexedAt == nil || cols[0].LastIndexedAt.IsZero() || cols[0].Watched {
		t.Errorf("last indexed time or watch state: %+v", cols[0])
	}
	if again, err := a.Rescan("notes"); err != nil || again.FilesUnchanged != 3 || again.ChunksEmbedded != 0 {
		t.Fatalf("rescan: %+v, %v", again, err)
	}
	if ws := a.WatchState(); ws.Watching || ws.Pending != 0 {
		t.Fatalf("watch state without a running watch: %+v", ws)
	}
	if err := a.RemoveCollection("notes"); err != nil {
		t.Fatal(err)
	}
	if cols, _ := a.Collections(); len(cols) != 0 {
		t.Fatalf("collection still listed after removal: %+v", cols)
	}
}

func TestCollectionFilesSaysWhyFilesAreMissing(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, _, _ := newTestApp(t, fake)
	lib := t.TempDir()
	write := func(name string, body []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(lib, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good.md", []byte("# Good\n\nIndexed text.\n"))
	write("broken.pdf", []byte("# Not a PDF\n\nJust markdown.\n"))
	write("binary.md", []byte("\x00\x01\x02binary\x00data"))
	if _, err := a.AddFolder("mixed", lib); err != nil {
		t.Fatal(err)
	}
	write("later.md", []byte("# Later\n\nAdded after the scan.\n"))

	files, err := a.CollectionFiles("mixed")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileStatus{}
	for _, f := range files {
		got[filepath.Base(f.Path)] = f
	}
	want := map[string]string{"good.md": FileIndexed, "broken.pdf": FileFailed, "binary.md": FileSkipped, "later.md": FilePending}
	for name, status := range want {
		f := got[name]
		if f.Status != status {
			t.Errorf("%s: status %q, want %q (%+v)", name, f.Status, status, f)
		}
		if status != FileIndexed && f.Reason == "" {
			t.Errorf("%s is %s without a reason", name, status)
		}
	}
	if g := got["good.md"]; g.DocID == "" || g.IndexedAt == nil || g.Chunks == 0 {
		t.Errorf("indexed file lacks its document: %+v", g)
	}
	if !strings.Contains(got["broken.pdf"].Reason, "damaged") {
		t.Errorf("failure reason: %q", got["broken.pdf"].Reason)
	}
	cols, _ := a.Collections()
	if len(cols) != 1 || cols[0].Failed != 1 {
		t.Errorf("failed count: %+v", cols)
	}

	// Fixing the file and rescanning clears the failure.
	write("broken.pdf", nil)
	if err := os.Remove(filepath.Join(lib, "broken.pdf")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Rescan("mixed"); err != nil {
		t.Fatal(err)
	}
	files, _ = a.CollectionFiles("mixed")
	for _, f := range files {
		if f.Status == FileFailed || f.Status == FilePending {
			t.Errorf("after the rescan %s is still %s: %s", f.Path, f.Status, f.Reason)
		}
	}
	if cols, _ := a.Collections(); cols[0].Failed != 0 {
		t.Errorf("failure still counted after the rescan: %+v", cols[0])
	}
	if _, err := a.CollectionFiles("nope"); err == nil {
		t.Error("an unknown collection listed files")
	}
}

func TestDocumentsOutsideCollectionsAreListed(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, _, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	cols, err := a.Collections()
	if err != nil || len(cols) != 1 || cols[0].Name != "" || cols[0].Documents != 1 {
		t.Fatalf("collections: %+v %v", cols, err)
	}
	files, err := a.CollectionFiles("")
	if err != nil || len(files) != 1 || files[0].Status != FileIndexed {
		t.Fatalf("files: %+v %v", files, err)
	}
}

func TestIngestedFolderListsOutsideLinksAndTheSettingLetsThemIn(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, _, _ := newTestApp(t, fake)
	base := t.TempDir()
	notes := filepath.Join(base, "notes")
	for path, body := range map[string]string{
		filepath.Join(notes, "note.md"):             "# Note\n\nTulips.\n",
		filepath.Join(base, "secrets", "creds.txt"): "password hunter2\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	leak := filepath.Join(notes, "leak.md")
	if err := os.Symlink("../secrets/creds.txt", leak); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Ingest([]string{notes}); err != nil {
		t.Fatal(err)
	}
	// The ingested folder is listed once, under the collection named "".
	cols, err := a.Collections()
	if err != nil || len(cols) != 1 || cols[0].Name != "" || cols[0].Documents != 1 || len(cols[0].Paths) != 1 || cols[0].Paths[0] != notes {
		t.Fatalf("collections: %+v %v", cols, err)
	}
	statusOf := func() map[string]FileStatus {
		t.Helper()
		files, err := a.CollectionFiles("")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]FileStatus{}
		for _, f := range files {
			out[filepath.Base(f.Path)] = f
		}
		return out
	}
	if f := statusOf()["leak.md"]; f.Status != FileSkipped || !strings.Contains(f.Reason, "a link to a file outside the folder (../secrets/creds.txt)") {
		t.Fatalf("leak.md: %+v", f)
	}

	// Saving without the field keeps the choice; turning it on rescans.
	s := a.Settings()
	if s.FollowOutsideLinks == nil || *s.FollowOutsideLinks {
		t.Fatalf("follow_outside_links should start off: %v", s.FollowOutsideLinks)
	}
	s.FollowOutsideLinks = nil
	if _, err := a.SaveSettings(s); err != nil || a.engine.FollowOutsideLinks() {
		t.Fatalf("saving without the field changed it: %v", err)
	}
	on := true
	s.FollowOutsideLinks = &on
	if res, err := a.SaveSettings(s); err != nil || !*res.Settings.FollowOutsideLinks {
		t.Fatalf("save: %+v %v", res, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for statusOf()["leak.md"].Status != FileIndexed {
		if time.Now().After(deadline) {
			t.Fatalf("leak.md not indexed after allowing outside links: %+v", statusOf()["leak.md"])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
