//go:build linux

package ingest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunCappedStopsAtEveryCap runs stand-in programs under small caps:
// one that never ends is stopped at the time cap (ErrTooSlow), one that
// keeps allocating at the memory cap (ErrUnsafe, not ErrTooSlow), and one
// whose run is cancelled is stopped at once with ctx's error; each time the
// program and what it started are gone.
func TestRunCappedStopsAtEveryCap(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	// sleep runs as a child of sh, in sh's process group.
	sleeper := writeScript(t, dir, "sleeper", "#!/bin/sh\nsleep 300 &\necho $! > "+pidFile+"\nwait\n")
	hog, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed to allocate memory in a stand-in program")
	}
	caps := childCaps{memory: 64 << 20, timeout: 500 * time.Millisecond}

	start := time.Now()
	err = runCapped(context.Background(), exec.Command(sleeper), caps)
	if !errors.Is(err, ErrTooSlow) || time.Since(start) > 5*time.Second {
		t.Errorf("a program that never ends: %v after %v, want ErrTooSlow after the time cap", err, time.Since(start))
	}
	checkGone(t, pidFile)

	caps.timeout = time.Minute
	err = runCapped(context.Background(), exec.Command(hog, "-c", "x = []\nwhile True: x.append(bytearray(1 << 20))"), caps)
	if !errors.Is(err, ErrUnsafe) || errors.Is(err, ErrTooSlow) {
		t.Errorf("a program that keeps allocating: %v, want the memory cap (ErrUnsafe)", err)
	}

	os.Remove(pidFile)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start = time.Now()
	err = runCapped(ctx, exec.Command(sleeper), caps)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Errorf("a cancelled run: %v after %v, want context.Canceled at once", err, time.Since(start))
	}
	checkGone(t, pidFile)

	if err := runCapped(context.Background(), exec.Command(writeScript(t, dir, "fails", "#!/bin/sh\necho 'Syntax Error: bad xref' >&2\nexit 3\n")), caps); err == nil ||
		!strings.Contains(err.Error(), "Syntax Error: bad xref") {
		t.Errorf("a failing program: %v, want its stderr in the error", err)
	}
}

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkGone fails unless the process whose pid is in pidFile has ended.
func checkGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the stand-in did not start its child: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	for range 50 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("pid %d, started by the stopped program, still runs", pid)
}

// TestChunkingPastItsBudget: chunking that overruns its budget fails with
// ErrTooSlow, and a stop is a stop, not a slow file.
func TestChunkingPastItsBudget(t *testing.T) {
	real := chunkTimeout
	chunkTimeout = func(int) time.Duration { return 50 * time.Millisecond }
	t.Cleanup(func() { chunkTimeout = real })
	text := "# Notes\n\n" + strings.Repeat("A sentence of words to count slowly. ", 20000)
	path := writeBytes(t, filepath.Join(t.TempDir(), "notes.md"), []byte(text))
	_, _, err := LoadData(context.Background(), File{Path: path}, []byte(text), slowCounter{}, Options{}, testNow)
	if !errors.Is(err, ErrTooSlow) || !strings.Contains(err.Error(), "passages took longer than") {
		t.Errorf("slow chunking: %v, want ErrTooSlow", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = LoadData(ctx, File{Path: path}, []byte(text), slowCounter{}, Options{}, testNow)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTooSlow) {
		t.Errorf("stopped chunking: %v, want context.Canceled", err)
	}
}

// slowCounter counts words, slowly.
type slowCounter struct{}

func (slowCounter) CountTokens(s string) int {
	time.Sleep(100 * time.Microsecond)
	return len(strings.Fields(s)) + 2
}
