package watch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func collect(t *testing.T, debounce time.Duration) (*Watcher, <-chan []string) {
	t.Helper()
	batches := make(chan []string, 16)
	w, err := New(debounce, func(p []string) { batches <- p })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, batches
}

// waitFor reads batches until one contains want, failing after a bound.
func waitFor(t *testing.T, batches <-chan []string, want string) []string {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case b := <-batches:
			if slices.Contains(b, want) {
				return b
			}
		case <-deadline:
			t.Fatalf("no batch reported %s", want)
		}
	}
}

func TestBurstArrivesAsOneBatch(t *testing.T) {
	dir := t.TempDir()
	w, batches := collect(t, 100*time.Millisecond)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.md", "b.md", "c.md"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, ".a.md.swp"), []byte("x"), 0o644)
	b := waitFor(t, batches, filepath.Join(dir, "c.md"))
	want := []string{filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md"), filepath.Join(dir, "c.md")}
	if !slices.Equal(b, want) {
		t.Fatalf("batch %v, want %v (one sorted batch, hidden files ignored)", b, want)
	}
}

func TestNewSubfoldersAreWatched(t *testing.T) {
	dir := t.TempDir()
	w, batches := collect(t, 30*time.Millisecond)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "new", "deeper")
	os.MkdirAll(sub, 0o755)
	waitFor(t, batches, filepath.Join(dir, "new"))
	// new/deeper may have been created before the watch on new was set up,
	// so wait until it is reported or watched, then write inside it.
	file := filepath.Join(sub, "doc.md")
	deadline := time.After(5 * time.Second)
	for {
		os.WriteFile(file, []byte(time.Now().String()), 0o644)
		select {
		case b := <-batches:
			if slices.Contains(b, file) {
				return
			}
		case <-deadline:
			t.Fatal("a file in a new subfolder was never reported")
		}
	}
}

func TestRemoveAndRenameAreReported(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	os.WriteFile(a, []byte("x"), 0o644)
	w, batches := collect(t, 30*time.Millisecond)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	os.Rename(a, b)
	got := waitFor(t, batches, b)
	if !slices.Contains(got, a) {
		// The old name may arrive in its own batch.
		waitFor(t, batches, a)
	}
	os.Remove(b)
	waitFor(t, batches, b)
}

func TestSingleFileRoot(t *testing.T) {
	dir := t.TempDir()
	file, other := filepath.Join(dir, "one.md"), filepath.Join(dir, "other.md")
	os.WriteFile(file, []byte("x"), 0o644)
	w, batches := collect(t, 30*time.Millisecond)
	if err := w.Add(file); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(other, []byte("y"), 0o644)
	os.WriteFile(file, []byte("z"), 0o644)
	b := waitFor(t, batches, file)
	if slices.Contains(b, other) {
		t.Fatalf("a sibling of a single-file root was reported: %v", b)
	}
}

func TestCloseStopsReports(t *testing.T) {
	dir := t.TempDir()
	w, _ := collect(t, 10*time.Millisecond)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(dir); err == nil {
		t.Fatal("Add after Close should fail")
	}
}
