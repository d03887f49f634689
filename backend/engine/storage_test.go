package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// Storage faults are simulated on the engine's own writer connection
// (store.SimulateFault): a full disk as SQLite's page cap, which fails
// writes with SQLITE_FULL exactly as ENOSPC does; a read-only folder as
// query_only, which fails them with SQLITE_READONLY. A real small
// filesystem or read-only remount needs root, and root ignores file
// permissions, so neither can be produced honestly in a test.

// storageEngine embeds with the fake model (same dimension as the test
// model, so checkAfterKill can reopen the index): these tests are about
// writes, and the real model would only make them slow.
func storageEngine(t *testing.T, home string) *Engine {
	en, _ := newLibraryEngine(t, home, WithEmbedder(embed.NewFake(testEmbedder(t).Info().Dim)))
	return en
}

// storageLibrary writes n large documents (each needs new pages in every
// table) and records their revisions.
func storageLibrary(t *testing.T, n int) (lib string, versions map[string]map[string]bool) {
	t.Helper()
	lib = t.TempDir()
	versions = map[string]map[string]bool{}
	for i := range n {
		writeVersion(t, versions, filepath.Join(lib, fmt.Sprintf("f%02d.md", i)), bigGuide(fmt.Sprintf("v0w%d", i)))
	}
	return lib, versions
}

func writeVersion(t *testing.T, versions map[string]map[string]bool, path, body string) {
	t.Helper()
	write(t, path, body)
	if versions[path] == nil {
		versions[path] = map[string]bool{}
	}
	versions[path][corpus.Rev([]byte(body))] = true
}

func bigGuide(word string) string {
	var b strings.Builder
	for i := range 12 {
		b.WriteString(guide(fmt.Sprintf("%s s%d", word, i)))
	}
	return b.String()
}

// faultAfter returns a progress callback that puts st into fault f once
// files have been written, simulating a disk that fills (or a folder that
// turns read-only) in the middle of an ingest.
func faultAfter(t *testing.T, st *store.Store, f store.Fault, files int) func(Progress) {
	return func(p Progress) {
		if p.FilesDone == files && !p.Done {
			if err := st.SimulateFault(context.Background(), f); err != nil {
				t.Error(err)
			}
		}
	}
}

// checkStorageMessage asserts msg is the one-sentence storage error.
func checkStorageMessage(t *testing.T, msg, home, what string) {
	t.Helper()
	if !strings.Contains(msg, home) || !strings.Contains(msg, what) || !strings.Contains(msg, "continue where it stopped") ||
		strings.Contains(msg, "\n") {
		t.Errorf("message %q should be one sentence naming %s and what to do", msg, home)
	}
}

func TestDiskFullDuringIngest(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	en := storageEngine(t, home)
	lib, versions := storageLibrary(t, 12)
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	// Change half the files so the full disk hits replacements too.
	for i := 0; i < 12; i += 2 {
		writeVersion(t, versions, filepath.Join(lib, fmt.Sprintf("f%02d.md", i)), bigGuide(fmt.Sprintf("v1w%d", i)))
	}
	for i := 12; i < 24; i++ {
		writeVersion(t, versions, filepath.Join(lib, fmt.Sprintf("f%02d.md", i)), bigGuide(fmt.Sprintf("v0w%d", i)))
	}

	st := en.index()
	sum, err := en.Ingest(ctx, []string{lib}, faultAfter(t, st, store.FaultDiskFull, 2))
	var messages []string
	if err != nil {
		messages = append(messages, err.Error())
	}
	for _, fe := range sum.Errors {
		messages = append(messages, fe.Error)
	}
	if len(messages) == 0 {
		t.Fatal("ingest on a full disk reported nothing")
	}
	for _, m := range messages {
		checkStorageMessage(t, m, home, "is full")
	}
	checkAfterKill(t, home, versions).Close() // integrity ok, indexes agree, one revision each

	// Space returns: the queue resumes, and a rescan picks up what failed.
	if err := st.SimulateFault(ctx, store.FaultNone); err != nil {
		t.Fatal(err)
	}
	if _, err := en.ResumeQueue(ctx, nil); err != nil {
		t.Fatalf("resume after space returned: %v", err)
	}
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatalf("ingest after space returned: %v", err)
	}
	checkIndexedAtCurrent(t, en, home, lib, versions)
	t.Logf("disk full: %d files failed with the disk-full sentence (run error: %v); all 24 indexed after space returned",
		len(sum.Errors), err != nil)
}

func TestReadOnlyDuringIngest(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	en := storageEngine(t, home)
	lib, versions := storageLibrary(t, 10)
	st := en.index()
	sum, err := en.Ingest(ctx, []string{lib}, faultAfter(t, st, store.FaultReadOnly, 3))
	if !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("ingest into a read-only folder: %v, want ErrReadOnly", err)
	}
	checkStorageMessage(t, err.Error(), home, "read-only")
	for _, fe := range sum.Errors {
		checkStorageMessage(t, fe.Error, home, "read-only")
	}
	if sum.FilesIndexed != 3 {
		t.Errorf("indexed %d files before the folder turned read-only, want 3", sum.FilesIndexed)
	}
	if n, _ := st.QueueLen(ctx); n != 10-3 {
		t.Errorf("queue holds %d files, want the 7 not yet indexed", n)
	}
	checkAfterKill(t, home, versions).Close()

	// Writable again: the queue resumes and finishes on its own.
	if err := st.SimulateFault(ctx, store.FaultNone); err != nil {
		t.Fatal(err)
	}
	rs, err := en.ResumeQueue(ctx, nil)
	if err != nil {
		t.Fatalf("resume after the folder became writable: %v", err)
	}
	if rs.FilesIndexed != 7 {
		t.Errorf("resume indexed %d files, want 7", rs.FilesIndexed)
	}
	checkIndexedAtCurrent(t, en, home, lib, versions)
}

// TestReadOnlyFolderAtStart makes the data folder really read-only before
// the engine opens it. Only a non-root user sees this (root ignores
// permissions; TestReadOnlyDuringIngest covers the fault for root): start
// fails with one sentence naming the folder, and once it is writable again
// Reload opens it and the queued work finishes.
func TestReadOnlyFolderAtStart(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	lib, versions := storageLibrary(t, 4)
	en := storageEngine(t, home)
	if err := en.index().Enqueue(ctx, []store.QueueItem{{Path: filepath.Join(lib, "f00.md"), Op: store.OpIndex}}); err != nil {
		t.Fatal(err)
	}
	en.Close()
	if os.Geteuid() == 0 {
		// Root: permissions cannot stop the open, so the check is that the
		// queued work left by the last run is still there to resume.
		en2 := storageEngine(t, home)
		if n, _ := en2.index().QueueLen(ctx); n != 1 {
			t.Fatalf("queued work lost across restart: %d items", n)
		}
		return
	}
	for _, p := range []string{home, filepath.Join(home, "footnote.db")} {
		if err := os.Chmod(p, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(home, 0o755) })
	cfg := en.Config()
	en2, err := New(cfg, WithEmbedder(embed.NewFake(testEmbedder(t).Info().Dim)))
	if err != nil {
		t.Fatal(err)
	}
	defer en2.Close()
	err = en2.Ready(ctx)
	if err == nil || !strings.Contains(err.Error(), home) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("start on a read-only folder: %v", err)
	}
	t.Logf("read-only folder at start: %v", err)
	for _, p := range []string{home, filepath.Join(home, "footnote.db")} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := en2.Reload(ctx); err != nil {
		t.Fatalf("reload once writable: %v", err)
	}
	if _, err := en2.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	checkIndexedAtCurrent(t, en2, home, lib, versions)
}

// TestAskOnReadOnlyFolder: an answer that cannot be stored reaches the
// caller as the read-only sentence, with its text still returned; once the
// folder is writable answers are stored again.
func TestAskOnReadOnlyFolder(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en := faultEngine(t, fake.URL(), nil)
	ctx := context.Background()
	home := en.Config().Home
	st := en.index()
	if err := st.SimulateFault(ctx, store.FaultReadOnly); err != nil {
		t.Fatal(err)
	}
	ans, err := en.AskWith(ctx, rag.Request{ID: "ro", Question: question}, nil, AskOptions{Fresh: true})
	if !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("ask with a read-only folder: %v, want ErrReadOnly", err)
	}
	checkStorageMessage(t, err.Error(), home, "read-only")
	if ans.Answer == "" {
		t.Error("the generated answer was not returned")
	}
	if res, err := en.Search(ctx, "install Linux", searchOpts()); err != nil || len(res.Hits) == 0 {
		t.Errorf("search on a read-only folder: %v", err)
	}
	if err := st.SimulateFault(ctx, store.FaultNone); err != nil {
		t.Fatal(err)
	}
	ans, err = en.AskWith(ctx, rag.Request{ID: "rw", Question: question}, nil, AskOptions{Fresh: true})
	if err != nil || !ans.Grounded {
		t.Fatalf("ask once writable: %v", err)
	}
	if _, found, err := st.AnswerByID(ctx, ans.ID); err != nil || !found {
		t.Errorf("answer not stored once writable: %v", err)
	}
}

// checkIndexedAtCurrent asserts every file is indexed at its current
// content, the queue is empty, and the index is consistent.
func checkIndexedAtCurrent(t *testing.T, en *Engine, home, lib string, versions map[string]map[string]bool) {
	t.Helper()
	ctx := context.Background()
	checkAfterKill(t, home, versions).Close()
	st := en.index()
	if n, err := st.QueueLen(ctx); err != nil || n != 0 {
		t.Errorf("queue holds %d items (%v), want 0", n, err)
	}
	docs, err := st.DocumentsUnder(ctx, lib)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(versions) {
		t.Errorf("%d documents indexed, want %d", len(docs), len(versions))
	}
	for _, d := range docs {
		data, err := os.ReadFile(d.Path)
		if err != nil || d.Rev != corpus.Rev(data) {
			t.Errorf("%s indexed at an old revision", d.Path)
		}
	}
}
