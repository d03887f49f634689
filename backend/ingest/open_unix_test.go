//go:build unix

package ingest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadReturns loads f and fails the test if Load has not returned within
// d. A reader stuck opening a FIFO is released afterwards by opening the
// FIFO for writing, so a failing run ends instead of hanging.
func loadReturns(t *testing.T, f File, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(f, wordCounter{}, Options{}, testNow)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		if w, err := os.OpenFile(f.Path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("Load of %s still blocked after %s", filepath.Base(f.Path), d)
		return nil
	}
}

// A path scanned as a regular file and then replaced by a FIFO or a link to
// a device must fail at once with a reason, never block or read for ever.
func TestLoadRefusesPathReplacedAfterScan(t *testing.T) {
	for _, name := range []string{"notes.md", "paper.pdf", "page.html"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeBytes(t, filepath.Join(dir, name), []byte("# Notes\n\nplain text\n"))
			files, _, err := Scan([]string{dir}, Options{})
			if err != nil || len(files) != 1 {
				t.Fatalf("scan: %v %v", files, err)
			}

			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
			err = loadReturns(t, files[0], 5*time.Second)
			if err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
				t.Fatalf("FIFO: err = %v", err)
			}

			os.Remove(path)
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = loadReturns(t, files[0], 5*time.Second)
			if err == nil || !strings.Contains(err.Error(), "is a device, not a regular file") {
				t.Fatalf("/dev/zero: err = %v", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("refusing /dev/zero took %s: something read it", d)
			}
		})
	}
}

func TestReadFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := writeBytes(t, filepath.Join(dir, "a.txt"), []byte(strings.Repeat("x", 100)))
	if data, err := ReadFile(path, Options{MaxFileBytes: 100}); err != nil || len(data) != 100 {
		t.Fatalf("at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := ReadFile(path, Options{MaxFileBytes: 99}); err == nil || !strings.Contains(err.Error(), "larger than the 99 bytes limit") {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadFile(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("folder: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "gone.txt"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}
