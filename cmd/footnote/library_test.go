package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// These tests run the CLI as real processes (this test binary re-executed
// as `footnote`), against real files, deletions and symbolic links.

// envCLIArgs holds the JSON-encoded arguments in a child process.
const envCLIArgs = "FOOTNOTE_TEST_CLI_ARGS"

// TestHelperCLIChild is the child process: it runs the CLI with the
// arguments in envCLIArgs and exits. In a normal run it returns at once.
func TestHelperCLIChild(t *testing.T) {
	raw := os.Getenv(envCLIArgs)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	ctx, release := signalContext() // as main does, so signal exit codes are tested too
	code := run(ctx, args, os.Stdout, os.Stderr)
	release()
	os.Exit(code)
}

// cliProcess prepares `footnote args...` as a child process with this
// process's environment (FOOTNOTE_HOME and the model folder included).
func cliProcess(t *testing.T, ctx context.Context, args ...string) *exec.Cmd {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperCLIChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envCLIArgs+"="+string(raw))
	return cmd
}

// runProcessWithin bounds one CLI run: a guard against a hang, not a speed
// check. Indexing the stop test's 8 MB page takes about 35 CPU-s, which on
// two cores shared with other test binaries took over two minutes.
const runProcessWithin = 6 * time.Minute

// runProcess runs `footnote args...` to completion (at most runProcessWithin).
func runProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runProcessWithin)
	defer cancel()
	cmd := cliProcess(t, ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	var exit *exec.ExitError
	if err := cmd.Run(); ctx.Err() != nil {
		t.Fatalf("footnote %v did not finish within %v\n%s", args, runProcessWithin, errb.String())
	} else if err != nil && !errors.As(err, &exit) {
		t.Fatalf("footnote %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// setupLibrary points the CLI at a new data folder and the tiny model.
func setupLibrary(t *testing.T) {
	t.Helper()
	t.Setenv("FOOTNOTE_HOME", t.TempDir())
	t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.Dir(t))
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9") // nothing here answers; search needs no model server
}

// summaryOf runs a command that prints a JSON summary and decodes it.
func summaryOf(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := runProcess(t, args...)
	if code != 0 {
		t.Fatalf("footnote %v: exit %d: %s", args, code, errOut)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("footnote %v: %v\n%s", args, err, out)
	}
	return sum
}

// searchPaths returns the paths and texts `footnote search --json` finds.
func searchPaths(t *testing.T, query string) string {
	t.Helper()
	code, out, errOut := runProcess(t, "search", "--json", "--mode", "hybrid", query)
	if code != 0 {
		t.Fatalf("search %q: exit %d: %s", query, code, errOut)
	}
	var res struct {
		Hits []struct {
			Path string `json:"path"`
			Text string `json:"text"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	var b strings.Builder
	for _, h := range res.Hits {
		b.WriteString(h.Path + "\t" + h.Text + "\n")
	}
	return b.String()
}

func TestCLIDeletedAndRenamedFilesInIngestedFolder(t *testing.T) {
	setupLibrary(t)
	lib := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(lib, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("zeppelin.md", "# Zeppelins\n\nZeppelins are rigid airships named after Count Ferdinand von Zeppelin.\n")
	write("garden.md", "# Gardening\n\nTomatoes grow well in warm sunny gardens.\n")
	write("sub/tea.txt", "Oolong tea is partially oxidised.\n")
	if sum := summaryOf(t, "ingest", "--json", lib); sum["files_indexed"] != 3.0 {
		t.Fatalf("ingest: %v", sum)
	}

	// Delete, ingest again: the file is gone from search.
	os.Remove(filepath.Join(lib, "garden.md"))
	if sum := summaryOf(t, "ingest", "--json", lib); sum["files_deleted"] != 1.0 {
		t.Fatalf("re-ingest after a delete: files_deleted = %v", sum["files_deleted"])
	}
	if hits := searchPaths(t, "tomatoes gardens"); strings.Contains(hits, "garden.md") || strings.Contains(hits, "Tomatoes") {
		t.Fatalf("the deleted file is still searchable:\n%s", hits)
	}

	// Delete, rescan without a collection name: it covers the ingested folder.
	os.Remove(filepath.Join(lib, "sub", "tea.txt"))
	if sum := summaryOf(t, "rescan", "--json"); sum["files_deleted"] != 1.0 || sum["files_seen"] != 1.0 {
		t.Fatalf("rescan after a delete: %v", sum)
	}
	if hits := searchPaths(t, "oolong tea"); strings.Contains(hits, "tea.txt") {
		t.Fatalf("the deleted file is still searchable:\n%s", hits)
	}

	// Rename: found at the new path only, with its vectors reused.
	if err := os.Rename(filepath.Join(lib, "zeppelin.md"), filepath.Join(lib, "sub", "airships.md")); err != nil {
		t.Fatal(err)
	}
	sum := summaryOf(t, "rescan", "--json")
	if sum["files_indexed"] != 1.0 || sum["files_deleted"] != 1.0 || sum["chunks_embedded"] != 0.0 {
		t.Fatalf("rescan after a rename: %v", sum)
	}
	hits := searchPaths(t, "zeppelin airships")
	if !strings.Contains(hits, filepath.Join(lib, "sub", "airships.md")) || strings.Contains(hits, filepath.Join(lib, "zeppelin.md")) {
		t.Fatalf("after the rename:\n%s", hits)
	}

	code, out, _ := runProcess(t, "collection", "list")
	if code != 0 || !strings.Contains(out, "(outside collections") || !strings.Contains(out, "  "+lib+"\n") {
		t.Fatalf("collection list does not show the ingested folder: exit %d\n%s", code, out)
	}
}

func TestCLIWatchNoticesDeletionInIngestedFolder(t *testing.T) {
	setupLibrary(t)
	lib := t.TempDir()
	for name, body := range map[string]string{
		"zeppelin.md": "# Zeppelins\n\nZeppelins are rigid airships.\n",
		"garden.md":   "# Gardening\n\nTomatoes grow well in warm sunny gardens.\n",
	} {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runProcess(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	watch := cliProcess(t, ctx, "watch")
	stderr, err := watch.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	// The start-up rescan prints "done: ..." when it has finished.
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "done:") {
	}
	go func() {
		for lines.Scan() {
		}
	}()

	os.Remove(filepath.Join(lib, "garden.md"))
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(searchPaths(t, "tomatoes gardens"), "garden.md") {
		if time.Now().After(deadline) {
			t.Fatal("`footnote watch` did not remove the deleted file from the index")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := watch.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := watch.Wait(); err != nil {
		t.Fatalf("watch did not stop cleanly on Ctrl-C: %v", err)
	}
}

func TestCLILinkedSecretNeverSearchable(t *testing.T) {
	setupLibrary(t)
	base := t.TempDir()
	notes := filepath.Join(base, "notes")
	for path, body := range map[string]string{
		filepath.Join(notes, "note.md"):             "# Note\n\nAn ordinary note about tulips.\n",
		filepath.Join(base, "secrets", "creds.txt"): "password hunter2 for the vault\n",
		filepath.Join(base, "secrets", "keys.md"):   "# Keys\n\nThe hunter2 spare key.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"leak.md": "../secrets/creds.txt", "linked": "../secrets", "self": "."} {
		if err := os.Symlink(target, filepath.Join(notes, link)); err != nil {
			t.Fatal(err)
		}
	}

	code, out, errOut := runProcess(t, "ingest", notes)
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"skipped " + filepath.Join(notes, "leak.md") + ": a link to a file outside the folder (../secrets/creds.txt)",
		"skipped " + filepath.Join(notes, "linked") + ": a link to a folder outside the folder (../secrets)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ingest output lacks %q:\n%s", want, out)
		}
	}
	if hits := searchPaths(t, "hunter2 password vault key"); strings.Contains(hits, "hunter2") {
		t.Fatalf("the linked secret is searchable:\n%s", hits)
	}
	if sum := summaryOf(t, "rescan", "--json"); sum["files_indexed"] != 0.0 {
		t.Fatalf("rescan indexed something: %v", sum)
	}
	if hits := searchPaths(t, "hunter2 password vault key"); strings.Contains(hits, "hunter2") {
		t.Fatalf("the linked secret is searchable after a rescan:\n%s", hits)
	}

	// The search above can see the secret: allowed, it is indexed.
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Settings.FollowOutsideLinks = true
	if err := cfg.Save(); err != nil {
		t.Fatal(err)
	}
	summaryOf(t, "rescan", "--json")
	if hits := searchPaths(t, "hunter2 password vault key"); !strings.Contains(hits, "hunter2") {
		t.Fatalf("with follow_outside_links the linked files should be indexed:\n%s", hits)
	}
	cfg.Settings.FollowOutsideLinks = false
	if err := cfg.Save(); err != nil {
		t.Fatal(err)
	}
	summaryOf(t, "rescan", "--json")
	if hits := searchPaths(t, "hunter2 password vault key"); strings.Contains(hits, "hunter2") {
		t.Fatalf("after turning follow_outside_links off the secret is still searchable:\n%s", hits)
	}
}
