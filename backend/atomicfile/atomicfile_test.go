package atomicfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The crash tests re-run this test binary as a child that stops inside a
// replacement; these variables tell it where and what.
const (
	childPathEnv = "ATOMICFILE_TEST_CHILD_PATH"
	childStepEnv = "ATOMICFILE_TEST_CHILD_STEP"
	childModeEnv = "ATOMICFILE_TEST_CHILD_MODE" // "write" or "commit"
)

var (
	oldContent = bytes.Repeat([]byte(`{"version":"old"}`+"\n"), 4096)
	newContent = bytes.Repeat([]byte(`{"version":"new"}`+"\n"), 8192)
)

func TestMain(m *testing.M) {
	if path := os.Getenv(childPathEnv); path != "" {
		os.Exit(runChild(path, os.Getenv(childStepEnv), os.Getenv(childModeEnv)))
	}
	os.Exit(m.Run())
}

// runChild replaces path with newContent and, on reaching step, says so on
// stdout and waits to be killed.
func runChild(path, stop, mode string) int {
	stepHook = func(s string) {
		if s == stop {
			fmt.Printf("reached %s\n", s)
			time.Sleep(time.Minute) // the parent kills the process here
		}
	}
	var err error
	if mode == "commit" {
		tmp := path + ".filling"
		if err = os.WriteFile(tmp, newContent, 0o644); err == nil {
			err = Commit(tmp, path)
		}
	} else {
		err = WriteFile(path, newContent, 0o644)
	}
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("done")
	return 0
}

// crashAt runs a child that replaces path and kills it with SIGKILL at step.
func crashAt(t *testing.T, path, step, mode string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childPathEnv+"="+path, childStepEnv+"="+step, childModeEnv+"="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		if l != "reached "+step {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child said %q, want it to reach %q", l, step)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not reach %q within 60 s", step)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// TestCrashLeavesOldOrNew kills a real process at every step of a
// replacement: the name always holds the complete old or the complete new
// content, and the new content only once the rename has happened.
func TestCrashLeavesOldOrNew(t *testing.T) {
	for _, mode := range []string{"write", "commit"} {
		for _, c := range []struct {
			step string
			want []byte
		}{
			{"written", oldContent}, // write mode only: commit starts at synced
			{"synced", oldContent},
			{"renamed", newContent},
			{"dir synced", newContent},
		} {
			if mode == "commit" && c.step == "written" {
				continue
			}
			t.Run(mode+"/"+c.step, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "settings.json")
				if err := os.WriteFile(path, oldContent, 0o644); err != nil {
					t.Fatal(err)
				}
				crashAt(t, path, c.step, mode)
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("after a crash at %q: %v", c.step, err)
				}
				if !bytes.Equal(got, c.want) {
					t.Errorf("after a crash at %q the file holds %d bytes starting %.20q, want the %s content",
						c.step, len(got), got, map[bool]string{true: "old", false: "new"}[bytes.Equal(c.want, oldContent)])
				}
			})
		}
	}
}

// TestWriteFileSyncsBeforeRename checks the order of the durable steps: the
// data is on disk before the name points at it, and the folder entry after.
func TestWriteFileSyncsBeforeRename(t *testing.T) {
	var steps []string
	stepHook = func(s string) { steps = append(steps, s) }
	defer func() { stepHook = nil }()
	path := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if want := []string{"written", "synced", "renamed", "dir synced"}; !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	for _, content := range [][]byte{oldContent, newContent, {}} {
		if err := WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, content) {
			t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(content))
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	assertOnly(t, dir, "settings.json")
}

// TestWriteFileFailureKeepsOld: when the rename cannot happen, the old entry
// is untouched and no temporary file is left behind.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(path, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("WriteFile over a non-empty folder: %v, want an error naming %s", err, path)
	}
	assertOnly(t, dir, "taken")
	assertOnly(t, path, "inner")
}

func TestSwap(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "from-"+filepath.Base(p)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := Swap(a, b)
	if errors.Is(err, ErrSwapUnsupported) {
		t.Fatalf("Swap unsupported on the test file system: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	assertOnly(t, a, "from-b")
	assertOnly(t, b, "from-a")
	if err := Swap(a, filepath.Join(dir, "missing")); err == nil {
		t.Error("Swap with a missing name succeeded")
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}
