//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/store"
)

// A path queued as a regular file and replaced before the queue reaches
// it — by a FIFO, or by a link to /dev/zero — must fail with a reason at
// once: not block the parse worker, not read without end, and not stop the
// files queued after it.
func TestQueuedPathReplacedBeforeReading(t *testing.T) {
	cases := []struct {
		name    string
		replace func(t *testing.T, path string)
		says    string
	}{
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a named pipe (FIFO), not a regular file"},
		{"link to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "is a device, not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			en, _ := newLibraryEngine(t, t.TempDir())
			ctx := context.Background()
			lib, later := t.TempDir(), t.TempDir()
			swapped := filepath.Join(lib, "b.md")
			for _, name := range []string{"a.md", "b.md", "c.md"} {
				write(t, filepath.Join(lib, name), guide(strings.TrimSuffix(name, ".md")))
			}
			write(t, filepath.Join(later, "d.md"), guide("delta"))
			// Queued by an earlier scan, as the watch or an interrupted
			// run leaves them.
			var items []store.QueueItem
			for _, name := range []string{"a.md", "b.md", "c.md"} {
				items = append(items, store.QueueItem{Path: filepath.Join(lib, name), Op: store.OpIndex})
			}
			if err := en.index().Enqueue(ctx, items); err != nil {
				t.Fatal(err)
			}
			os.Remove(swapped)
			tc.replace(t, swapped)

			type result struct {
				sum Summary
				err error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				sum, err := en.Ingest(ctx, []string{later}, nil) // drains the whole queue
				done <- result{sum, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				if w, err := os.OpenFile(swapped, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close() // let a reader stuck on the FIFO go
				}
				t.Fatalf("ingest still running after 30 s: reading %s blocked or never ended", swapped)
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.sum.FilesIndexed != 3 || r.sum.FilesFailed != 1 || r.sum.Errors[0].Path != swapped ||
				!strings.Contains(r.sum.Errors[0].Error, tc.says) {
				t.Fatalf("summary %+v", r.sum)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("took %s", d)
			}
		})
	}
}
