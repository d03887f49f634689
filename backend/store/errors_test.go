package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bigDoc has enough text to need new pages in every chunk table.
func bigDoc(path string, chunks int) (docText []string) {
	for i := range chunks {
		docText = append(docText, fmt.Sprintf("chunk %d of %s: %s", i, path, strings.Repeat("spacious words fill pages ", 40)))
	}
	return docText
}

// checkStorageSentence asserts err is the one-sentence StorageError for dir.
func checkStorageSentence(t *testing.T, err, kind error, dir string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("err = %v, want %v", err, kind)
	}
	msg := ExplainStorage(dir, err).Error()
	if !strings.Contains(msg, dir) || strings.Count(msg, ".") < 1 || strings.Contains(msg, "\n") ||
		!strings.Contains(msg, "continue where it stopped") {
		t.Errorf("message %q should be one sentence naming %s and what to do", msg, dir)
	}
}

// TestDiskFullKeepsIndexIntact fills the "disk" (SQLite's page cap on the
// writer, which fails writes with SQLITE_FULL exactly as ENOSPC does) in the
// middle of replacing a document: the write fails with a clear sentence,
// the previous version and the indexes stay consistent, reads go on, and
// writes succeed again once space returns.
func TestDiskFullKeepsIndexIntact(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	dir := filepath.Dir(s.Path())
	old := makeDoc("/notes/a.md", "alpha original text", "beta original text")
	put(t, s, old)

	if err := s.SimulateFault(ctx, FaultDiskFull); err != nil {
		t.Fatal(err)
	}
	replacement := makeDoc("/notes/a.md", bigDoc("a", 60)...)
	err := s.PutDocument(ctx, replacement, axisVectors(len(replacement.Chunks), testDim), "fake/mean")
	checkStorageSentence(t, err, ErrDiskFull, dir)
	var se *StorageError
	if !errors.As(err, &se) || se.Dir != dir {
		t.Fatalf("want a *StorageError for %s, got %#v", dir, err)
	}
	if err := s.Enqueue(ctx, manyItems(2000)); !errors.Is(err, ErrDiskFull) {
		t.Errorf("queueing on a full disk: %v", err)
	}
	// Reads still work and see the old version whole.
	rev, ok, err := s.DocumentRev(ctx, old.DocID)
	if err != nil || !ok || rev != old.Rev {
		t.Fatalf("old version lost on a full disk: %q %v %v", rev, ok, err)
	}
	wantRows(t, s, 2)

	if err := s.SimulateFault(ctx, FaultNone); err != nil {
		t.Fatal(err)
	}
	checkIntegrity(t, s)
	if err := s.PutDocument(ctx, replacement, axisVectors(len(replacement.Chunks), testDim), "fake/mean"); err != nil {
		t.Fatalf("write after space returned: %v", err)
	}
	wantRows(t, s, 60)
	checkIntegrity(t, s)
}

func manyItems(n int) []QueueItem {
	items := make([]QueueItem, n)
	for i := range items {
		items[i] = QueueItem{Path: fmt.Sprintf("/notes/%s-%d.md", strings.Repeat("long-name-", 8), i), Op: OpIndex}
	}
	return items
}

// TestReadOnlyKeepsIndexIntact makes the writer read-only mid-run: every
// kind of write fails with the read-only sentence, nothing changes, and
// writing works again once the folder is writable.
func TestReadOnlyKeepsIndexIntact(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	dir := filepath.Dir(s.Path())
	old := makeDoc("/notes/a.md", "alpha original text", "beta original text")
	put(t, s, old)
	if err := s.SimulateFault(ctx, FaultReadOnly); err != nil {
		t.Fatal(err)
	}
	err := s.PutDocument(ctx, makeDoc("/notes/a.md", "changed"), axisVectors(1, testDim), "fake/mean")
	checkStorageSentence(t, err, ErrReadOnly, dir)
	checkStorageSentence(t, s.Enqueue(ctx, manyItems(1)), ErrReadOnly, dir)
	checkStorageSentence(t, s.SetMeta(ctx, "k", "v"), ErrReadOnly, dir)
	checkStorageSentence(t, s.DeleteDocument(ctx, old.DocID), ErrReadOnly, dir)
	wantRows(t, s, 2)
	if err := s.SimulateFault(ctx, FaultNone); err != nil {
		t.Fatal(err)
	}
	checkIntegrity(t, s)
	put(t, s, makeDoc("/notes/a.md", "changed"))
	wantRows(t, s, 1)
}

// TestRealReadOnlyFile checks the mapping against what the system really
// reports. A file opened read-only (mode=ro, which works for root too)
// gives SQLITE_READONLY; a folder without write permission refuses to
// open, which only a non-root user can see (root ignores permissions).
func TestRealReadOnlyFile(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	put(t, s, makeDoc("/notes/a.md", "alpha"))
	path, dir := s.Path(), filepath.Dir(s.Path())
	ro, err := sql.Open(driverName, dsn(path, "mode=ro"))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.ExecContext(ctx, upsertMeta, "k", "v")
	if err == nil {
		t.Fatal("write through a read-only handle succeeded")
	}
	checkStorageSentence(t, ExplainStorage(dir, fmt.Errorf("write metadata: %w", err)), ErrReadOnly, dir)
	s.Close()

	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
		_, err := Open(filepath.Join(dir, "new.db"), Options{Dim: testDim})
		if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), dir) {
			t.Errorf("opening in a read-only folder: %v", err)
		}
	}
}

// TestExplainStorage maps system and SQLite failures to the sentences; an
// unrelated error passes through untouched.
func TestExplainStorage(t *testing.T) {
	dir := "/data/footnote"
	cases := []struct {
		err  error
		want error
	}{
		{&fs.PathError{Op: "write", Path: dir + "/audit.log", Err: syscall.ENOSPC}, ErrDiskFull},
		{fmt.Errorf("x: %w", syscall.EDQUOT), ErrDiskFull},
		{&fs.PathError{Op: "open", Path: dir, Err: syscall.EROFS}, ErrReadOnly},
		{&fs.PathError{Op: "open", Path: dir, Err: syscall.EACCES}, ErrReadOnly},
		{fmt.Errorf("save: %w", sql.ErrConnDone), ErrClosed},
	}
	for _, c := range cases {
		got := ExplainStorage(dir, c.err)
		if !errors.Is(got, c.want) || !errors.Is(got, c.err) {
			t.Errorf("ExplainStorage(%v) = %v, want %v wrapping the cause", c.err, got, c.want)
		}
		if c.want != ErrClosed && !strings.Contains(got.Error(), dir) {
			t.Errorf("%q does not name the data folder", got)
		}
	}
	other := errors.New("UNIQUE constraint failed")
	if got := ExplainStorage(dir, other); got != other {
		t.Errorf("unrelated error changed: %v", got)
	}
	if ExplainStorage(dir, nil) != nil {
		t.Error("nil must stay nil")
	}
	// At the app boundary only SQLite's reports count: a refused dial to a
	// model server is not a read-only data folder.
	s := openTest(t, testDim)
	dial := fmt.Errorf("ollama /api/chat: %w", &os.SyscallError{Syscall: "connect", Err: syscall.EACCES})
	if got := s.Explain(dial); got != dial {
		t.Errorf("Explain mapped a network error: %v", got)
	}
	s.Close()
	if err := s.SetMeta(context.Background(), "k", "v"); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Close: %v, want ErrClosed", err)
	}
	// Explaining twice keeps one sentence, dropping wrapped context.
	once := ExplainStorage(dir, syscall.ENOSPC)
	if got := ExplainStorage(dir, fmt.Errorf("store a.md: %w", once)); got.Error() != once.Error() {
		t.Errorf("re-explained: %q", got)
	}
}
