package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/store"
)

// A file skipped for crashing the reader (recorded by an earlier run, so
// the failure outlives the session that saw it) shows as failed, with the
// reason, on the library screen.
func TestCollectionFilesShowsReaderCrash(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "good.md"), []byte("# Good\n\nIndexed text.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := en.AddToCollection(ctx, "lib", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	crashed := filepath.Join(lib, "crashed.pdf")
	if err := os.WriteFile(crashed, []byte("%PDF-1.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := en.index().RecordReaderCrash(ctx, store.ReaderCrash{
		Path: crashed, Rev: "0123456789abcdef", Error: ErrCrashedReader.Error(), CrashedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	files, err := en.CollectionFiles(ctx, "lib")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range files {
		if f.Path == crashed {
			found = true
			if f.Status != FileFailed || f.Reason != ErrCrashedReader.Error() {
				t.Errorf("crashed file: %+v", f)
			}
		}
	}
	if !found {
		t.Fatalf("crashed file not listed: %+v", files)
	}
	if cols, _ := en.CollectionOverview(ctx); len(cols) != 1 || cols[0].Failed != 1 {
		t.Errorf("failed count: %+v", cols)
	}
}
