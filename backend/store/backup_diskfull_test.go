//go:build linux

package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The disk-full test re-runs this test binary as a child process whose
// files may not grow past a limit (RLIMIT_FSIZE), so the backup taken
// before a migration fails the way it does on a full disk.
const (
	diskFullPathEnv  = "STORE_TEST_DISKFULL_PATH"
	diskFullLimitEnv = "STORE_TEST_DISKFULL_LIMIT"
)

// TestBackupDiskFullChild is the child's body; it does nothing unless
// started by TestBackupFailureKeepsPreviousBackup.
func TestBackupDiskFullChild(t *testing.T) {
	path := os.Getenv(diskFullPathEnv)
	if path == "" {
		return
	}
	limit, err := strconv.ParseUint(os.Getenv(diskFullLimitEnv), 10, 64)
	if err != nil {
		fmt.Println("bad limit:", err)
		os.Exit(2)
	}
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit then fails with EFBIG instead of killing us
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(2)
	}
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(1)
	}
	s.Close()
	fmt.Println("opened")
	os.Exit(0)
}

// TestBackupFailureKeepsPreviousBackup: an index due for migration already
// has a backup from an earlier attempt; taking the new backup fails half
// way (the disk is full). The earlier backup must still be there, byte for
// byte — it used to be deleted before the new one was written.
func TestBackupFailureKeepsPreviousBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "footnote.db")
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a long answer that fills pages ", 2000) // ~60 KB
	for i := range 40 {
		if err := s.SaveAnswer(ctx, AnswerRecord{ID: fmt.Sprintf("a%d", i), Question: "q", Answer: big}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	old := rollBackOneVersion(t, path)
	backup := fmt.Sprintf("%s.pre-v%d.bak", path, old)
	previous := []byte("the backup taken by an earlier attempt to migrate\n")
	if err := os.WriteFile(backup, previous, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	limit := st.Size() / 4 // the copy (~2.4 MB) cannot fit; opening the index writes far less

	cmd := exec.Command(os.Args[0], "-test.run=^TestBackupDiskFullChild$")
	cmd.Env = append(os.Environ(), diskFullPathEnv+"="+path, diskFullLimitEnv+"="+strconv.FormatInt(limit, 10))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the index opened although its backup cannot fit under %d bytes: %s", limit, out)
	}
	if !strings.Contains(string(out), "back up") {
		t.Fatalf("child failed for another reason than the backup: %s", out)
	}
	got, err := os.ReadFile(backup)
	if err != nil {
		t.Fatalf("the previous backup is gone after a failed backup: %v", err)
	}
	if !bytes.Equal(got, previous) {
		t.Fatalf("the previous backup changed after a failed backup: %d bytes, want the original %d", len(got), len(previous))
	}
	assertFiles(t, dir, "footnote.db", filepath.Base(backup))

	// With room again, the migration replaces it with a complete backup.
	s, err = Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	assertFiles(t, dir, "footnote.db", filepath.Base(backup))
	b, err := sql.Open(driverName, backup)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var version, answers int
	if err := b.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version), count(*) FROM answers`).Scan(&version, &answers); err != nil {
		t.Fatal(err)
	}
	if version != old || answers != 40 {
		t.Errorf("new backup: schema %d with %d answers, want %d with 40", version, answers, old)
	}
}

// assertFiles checks dir holds exactly names, ignoring SQLite's -wal/-shm.
func assertFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "-wal") && !strings.HasSuffix(e.Name(), "-shm") {
			got = append(got, e.Name())
		}
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}
