package embed

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/atomicfile"
)

// snapshot lists every entry under root with its type, permissions, size,
// modification time and content digest (or link target), so a comparison
// shows whether anything in a folder changed, byte for byte.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v size=%d mtime=%d", st.Mode(), st.Size(), st.ModTime().UnixNano())
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case st.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			desc += " sha256=" + sha(data)
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertSameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if after[k] != before[k] {
			t.Errorf("%s changed: before %q, after %q", k, before[k], after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s appeared: %q", k, after[k])
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDownloadRefusesFoldersItDoesNotOwn points the download at folders a
// user may have chosen in Settings: each is refused before anything is
// fetched, with a message naming the folder and what to do, and is left
// exactly as it was.
func TestDownloadRefusesFoldersItDoesNotOwn(t *testing.T) {
	footnoteManifest := `{"source":"all-MiniLM-L6-v2","files":[{"name":"model.onnx"},{"name":"tokenizer.json"}]}`
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"documents and subfolders", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{
				"notes.txt": "my notes", ".hidden": "secret", "photos/cat.jpg": "\xff\xd8jpeg",
				"photos/2024/trip.md": "# trip", "empty-after/keep": "",
			})
			if err := os.Symlink("notes.txt", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a model placed by hand", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{ModelFile: "onnx bytes", TokenizerFile: "{}"})
		}},
		{"someone else's download.json", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{ManifestFile: `{"url":"https://example.org"}`, ModelFile: "x"})
		}},
		{"a Footnote download plus the user's files", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{ManifestFile: footnoteManifest, ModelFile: "x", TokenizerFile: "{}", "thesis.docx": "draft"})
		}},
		{"a Footnote marker that is a folder", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{ownerMarkerFile + "/inside": "x", "notes.txt": "mine"})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, src := newModelServer(t)
			parent := t.TempDir()
			dir := filepath.Join(parent, "My Documents")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			c.setup(t, dir)
			before := snapshot(t, parent)

			err := Download(context.Background(), src, dir, nil)
			if !errors.Is(err, ErrFolderInUse) {
				t.Fatalf("Download into a folder with other files: %v, want ErrFolderInUse", err)
			}
			for _, want := range []string{dir, "empty"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			assertSameSnapshot(t, before, snapshot(t, parent))
			if n := s.requests.Load(); n != 0 {
				t.Errorf("%d requests sent before refusing", n)
			}
		})
	}

	t.Run("a file, not a folder", func(t *testing.T) {
		_, _, src := newModelServer(t)
		parent := t.TempDir()
		path := filepath.Join(parent, "report.pdf")
		writeFiles(t, parent, map[string]string{"report.pdf": "%PDF-1.4"})
		before := snapshot(t, parent)
		err := Download(context.Background(), src, path, nil)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a folder") {
			t.Fatalf("Download onto a file: %v, want an error naming it as not a folder", err)
		}
		assertSameSnapshot(t, before, snapshot(t, parent))
	})
}

// TestDownloadRefusesFolderFilledMeanwhile: the folder was empty when the
// download started, and the user saved a file there while it ran. The
// finished download must not replace it.
func TestDownloadRefusesFolderFilledMeanwhile(t *testing.T) {
	_, _, src := newModelServer(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "models")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var once bool
	err := Download(context.Background(), src, dir, func(p Progress) {
		if !once {
			once = true
			writeFiles(t, dir, map[string]string{"saved-meanwhile.txt": "important"})
		}
	})
	if !errors.Is(err, ErrFolderInUse) {
		t.Fatalf("Download: %v, want ErrFolderInUse", err)
	}
	assertNoLeftovers(t, parent, "models")
	assertNoLeftovers(t, dir, "saved-meanwhile.txt")
	if data, _ := os.ReadFile(filepath.Join(dir, "saved-meanwhile.txt")); string(data) != "important" {
		t.Errorf("the user's file now holds %q", data)
	}
}

// TestDownloadAcceptsFoldersItMayFill: a missing folder (TestDownload), an
// empty one, one holding only the desktop's metadata, a folder Footnote
// downloaded into before this marker existed, and a link to an empty
// folder (the link stays).
func TestDownloadAcceptsFoldersItMayFill(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string, src Source) string // returns the path to download into
	}{
		{"empty", func(t *testing.T, dir string, _ Source) string { return dir }},
		{"desktop metadata only", func(t *testing.T, dir string, _ Source) string {
			writeFiles(t, dir, map[string]string{".DS_Store": "x", "Thumbs.db": "y"})
			return dir
		}},
		{"an earlier Footnote download without the marker", func(t *testing.T, dir string, src Source) string {
			if err := Download(context.Background(), src, dir, nil); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(dir, ownerMarkerFile)); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"a link to an empty folder", func(t *testing.T, dir string, _ Source) string {
			link := dir + "-link"
			if err := os.Symlink(filepath.Base(dir), link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, src := newModelServer(t)
			dir := filepath.Join(t.TempDir(), "model")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			target := c.setup(t, dir, src)
			if err := Download(context.Background(), src, target, nil); err != nil {
				t.Fatal(err)
			}
			if err := CheckModelFolder(target, "model", "download it"); err != nil {
				t.Fatal(err)
			}
			if st, err := os.Lstat(filepath.Join(dir, ownerMarkerFile)); err != nil || !st.Mode().IsRegular() {
				t.Errorf("no ownership marker in the downloaded folder: %v", err)
			}
			if target != dir {
				if st, err := os.Lstat(target); err != nil || st.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("the link %s was replaced: %v", target, err)
				}
			}
		})
	}
}

// TestDownloadInterruptedKeepsOldModel: the server drops the connection
// half way through a file; the model downloaded before stays as it was.
func TestDownloadInterruptedKeepsOldModel(t *testing.T) {
	s, _, src := newModelServer(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "model")
	if err := Download(context.Background(), src, dir, nil); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	s.drop.Store(true)
	err := Download(context.Background(), src, dir, nil)
	if err == nil || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("Download from a server that drops the connection: %v", err)
	}
	assertSameSnapshot(t, before, snapshot(t, dir))
	assertNoLeftovers(t, parent, "model")
}

// The crash test re-runs this test binary as a child that downloads into a
// folder holding a model and is killed at one step of the replacement.
const (
	crashDirEnv    = "EMBED_TEST_CRASH_DIR"
	crashServerEnv = "EMBED_TEST_CRASH_SERVER"
	crashConfigEnv = "EMBED_TEST_CRASH_CONFIG_SHA"
	crashStopEnv   = "EMBED_TEST_CRASH_STOP"
)

// TestDownloadCrashChild is the child's body; it does nothing unless
// started by TestDownloadCrashKeepsAModel.
func TestDownloadCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		return
	}
	stop, _ := strconv.Atoi(os.Getenv(crashStopEnv))
	n := 0
	replaceStepHook = func(step string) {
		if n == stop {
			fmt.Printf("reached %s\n", step)
			time.Sleep(time.Minute) // killed here
		}
		n++
	}
	src := modelSource(os.Getenv(crashServerEnv), os.Getenv(crashConfigEnv))
	if err := Download(context.Background(), src, dir, nil); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("done")
	os.Exit(0)
}

// TestDownloadCrashKeepsAModel kills a real download process at each step
// of replacing an existing model: afterwards the folder always holds a
// complete model, the old or the new one, never nothing or half of each.
func TestDownloadCrashKeepsAModel(t *testing.T) {
	s, srv, src := newModelServer(t)
	dir := filepath.Join(t.TempDir(), "model")
	if err := Download(context.Background(), src, dir, nil); err != nil {
		t.Fatal(err)
	}
	modelFiles := func() map[string]string {
		if _, err := os.Stat(dir); err != nil {
			return nil // no model at all
		}
		snap := snapshot(t, dir)
		out := map[string]string{}
		for k, v := range snap {
			if k == "." || k == ManifestFile {
				continue
			}
			out[k] = v[strings.Index(v, "sha256="):] // content only: the new download has new times
		}
		return out
	}
	want := modelFiles()

	for stop := 0; ; stop++ {
		if stop > 10 {
			t.Fatal("the replacement never finished in the child")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDownloadCrashChild$")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashServerEnv+"="+srv.URL,
			crashConfigEnv+"="+sha(s.files["config.json"]), crashStopEnv+"="+strconv.Itoa(stop))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if l := sc.Text(); strings.HasPrefix(l, "reached ") || l == "done" || strings.HasPrefix(l, "error:") {
					lines <- l
					return
				}
			}
			lines <- "exited"
		}()
		var line string
		select {
		case line = <-lines:
		case <-time.After(90 * time.Second):
			line = "timeout"
		}
		cmd.Process.Kill()
		cmd.Wait()
		if !strings.HasPrefix(line, "reached ") && line != "done" {
			t.Fatalf("child at stop %d: %s", stop, line)
		}

		got := modelFiles()
		if !maps.Equal(got, want) {
			t.Fatalf("after a crash at %q the model folder holds %v, want a complete model %v", line, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
		var m Manifest
		data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
		if err != nil || json.Unmarshal(data, &m) != nil || len(m.Files) == 0 {
			t.Fatalf("after a crash at %q the manifest is unreadable: %v", line, err)
		}
		t.Logf("killed at %q: the folder holds a complete model", strings.TrimPrefix(line, "reached "))
		if line == "done" {
			break
		}
	}
}

// TestDownloadWithoutAtomicSwap takes the two-rename path of file systems
// that cannot exchange two folders: an owned folder is still replaced and
// nothing is left beside it.
func TestDownloadWithoutAtomicSwap(t *testing.T) {
	swapDirs = func(a, b string) error { return atomicfile.ErrSwapUnsupported }
	defer func() { swapDirs = atomicfile.Swap }()
	_, _, src := newModelServer(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "model")
	writeFiles(t, dir, map[string]string{ownerMarkerFile: "x", "stale": "x"})
	var steps []string
	replaceStepHook = func(s string) { steps = append(steps, s) }
	defer func() { replaceStepHook = nil }()
	if err := Download(context.Background(), src, dir, nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{"staged", "moved aside", "swapped"}; !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
	assertNoLeftovers(t, parent, "model")
	if _, err := os.Stat(filepath.Join(dir, "stale")); !os.IsNotExist(err) {
		t.Error("old folder content survived the replacement")
	}
	if err := CheckModelFolder(dir, "model", "download it"); err != nil {
		t.Fatal(err)
	}
}
