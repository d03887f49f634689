//go:build linux

package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/ingest/scantest"
)

// stopWithin is how soon `footnote ingest` must end after SIGINT or
// SIGTERM, whatever step it is in. Measured here on a shared 2-core
// machine: 0.4–0.8 s; the bound leaves a loaded CI runner room.
const stopWithin = 2 * time.Second

// TestIngestStopsPromptlyInEveryStep runs `footnote ingest` as a real
// process and stops it with a signal while it is in each step of reading
// a file: chunking a large text, the parser child reading a large page,
// pdftotext and OCR (stand-in programs that never finish), and embedding.
// Each time the process must exit within stopWithin with the signal's
// exit code, leave no program it started running, keep the index whole
// (SQLite and full-text integrity checks) and the file still queued; the
// next ingest then indexes it.
func TestIngestStopsPromptlyInEveryStep(t *testing.T) {
	steps := []struct {
		name string
		sig  syscall.Signal
		// prepare writes the library and returns the file the step reads
		// and the folder of stand-in programs to put on PATH ("" none).
		prepare func(t *testing.T, lib string) (file, bin string)
		// inStep waits until the process is in the step.
		inStep func(t *testing.T, p *ingestProcess)
	}{
		{"chunking", syscall.SIGINT, func(t *testing.T, lib string) (string, string) {
			return writeFile(t, lib, "big.txt", proseOf(4<<20, 1)), ""
		}, waitForParseMark},
		{"parser child", syscall.SIGTERM, func(t *testing.T, lib string) (string, string) {
			return writeFile(t, lib, "big.html", "<html><body>"+strings.ReplaceAll(proseOf(8<<20, 2), "\n\n", "<p>")+"</body></html>"), ""
		}, func(t *testing.T, p *ingestProcess) { p.waitForChild(t, "--footnote-extractor") }},
		{"pdftotext", syscall.SIGINT, func(t *testing.T, lib string) (string, string) {
			return writePDF(t, lib, scantest.Page{Text: []string{"A typed page about ferries."}}), standIns(t, "pdftotext")
		}, func(t *testing.T, p *ingestProcess) { p.waitForChild(t, "pdftotext") }},
		{"OCR", syscall.SIGINT, func(t *testing.T, lib string) (string, string) {
			return writePDF(t, lib, scantest.Page{Scan: []string{"A scanned page about ferries."}}), standIns(t, "pdftoppm", "tesseract")
		}, func(t *testing.T, p *ingestProcess) { p.waitForChild(t, "pdftoppm") }},
		{"embedding", syscall.SIGINT, func(t *testing.T, lib string) (string, string) {
			return writeFile(t, lib, "many.md", proseOf(3<<20, 3)), ""
		}, waitForParseDone},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			setupLibrary(t)
			// Always the generated model, whatever MODEL_SRC names: the next
			// run indexes files of megabytes, which takes a MiniLM-sized model
			// over 10 minutes on 2 cores, and how promptly a stop is heeded
			// does not depend on the model's shape.
			t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.TinyDir(t))
			home, lib := os.Getenv("FOOTNOTE_HOME"), t.TempDir()
			writeFile(t, lib, "small.md", "# Small\n\nA short note about lighthouses.\n")
			file, bin := step.prepare(t, lib)

			p := startIngest(t, home, bin, lib)
			p.file = file
			step.inStep(t, p)
			kids := p.children()
			sent := time.Now()
			if err := p.cmd.Process.Signal(step.sig); err != nil {
				t.Fatal(err)
			}
			err := p.wait(t)
			took := time.Since(sent)
			t.Logf("%s: exited %v after the signal", step.name, took.Round(time.Millisecond))
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(step.sig) {
				t.Fatalf("exit %v, want %d\nstderr %s", err, 128+int(step.sig), p.stderr.String())
			}
			if took > stopWithin {
				t.Errorf("ingest took %v to stop, want at most %v", took, stopWithin)
			}
			if !strings.Contains(p.stderr.String(), "stay queued") {
				t.Errorf("the stop does not say what stays queued: %s", p.stderr.String())
			}
			time.Sleep(100 * time.Millisecond) // a killed program's exit reaches /proc
			for _, k := range kids {
				if alive(k.pid) {
					t.Errorf("%s (pid %d) still runs after ingest stopped", k.cmdline, k.pid)
				}
			}
			checkIndexWhole(t, home)
			if !queued(t, home, file) {
				t.Errorf("%s is no longer queued after the stop", file)
			}

			// The next run, without the stand-ins, indexes the file.
			if code, out, errOut := runProcess(t, "ingest", lib); code != 0 {
				t.Fatalf("ingest after the stop: exit %d\n%s%s", code, out, errOut)
			}
			if !indexed(t, home, file) || queued(t, home, file) {
				t.Errorf("%s is not indexed by the next run", file)
			}
		})
	}
}

// ingestProcess is a running `footnote ingest`.
type ingestProcess struct {
	cmd            *exec.Cmd
	home, file     string
	stdout, stderr bytes.Buffer
	done           chan error
}

func startIngest(t *testing.T, home, bin, lib string) *ingestProcess {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	p := &ingestProcess{home: home, done: make(chan error, 1)}
	p.cmd = cliProcess(t, ctx, "ingest", lib)
	if bin != "" {
		p.cmd.Env = append(p.cmd.Env, "PATH="+bin)
	} else {
		p.cmd.Env = append(p.cmd.Env, "PATH=") // no pdftotext or OCR from the machine: the step tested is the one running
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

func (p *ingestProcess) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("ingest still runs a minute after the signal\nstderr %s", p.stderr.String())
		return nil
	}
}

// until polls cond until it holds, failing the test if the process ends
// first or a minute passes.
func (p *ingestProcess) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case err := <-p.done:
			t.Fatalf("ingest ended (%v) before %s\nstdout %s\nstderr %s", err, what, p.stdout.String(), p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute (running: %v)\nstderr %s", what, p.children(), p.stderr.String())
		}
	}
}

// waitForChild waits until the process runs a program whose command line
// holds name.
func (p *ingestProcess) waitForChild(t *testing.T, name string) {
	t.Helper()
	p.until(t, name+" running", func() bool {
		for _, k := range p.children() {
			if strings.Contains(k.cmdline, name) {
				return true
			}
		}
		return false
	})
	time.Sleep(200 * time.Millisecond) // well into the step
}

// waitForParseMark waits until the file is being read (its queue mark set).
func waitForParseMark(t *testing.T, p *ingestProcess) {
	t.Helper()
	p.until(t, "the file being read", func() bool { return parseMark(p.home, p.file) })
	time.Sleep(300 * time.Millisecond)
}

// waitForParseDone waits until the file has been read and split (its
// queue mark set, then cleared): its chunks are being embedded.
func waitForParseDone(t *testing.T, p *ingestProcess) {
	t.Helper()
	waitForParseMark(t, p)
	p.until(t, "the file read", func() bool { return !parseMark(p.home, p.file) })
}

type process struct {
	pid     int
	cmdline string
}

// children lists the processes started by p (and by them).
func (p *ingestProcess) children() []process {
	var out []process
	parents := map[int]bool{p.cmd.Process.Pid: true}
	entries, _ := os.ReadDir("/proc")
	for range 3 { // grandchildren too
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || parents[pid] {
				continue
			}
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
			if len(fields) < 2 {
				continue
			}
			if ppid, _ := strconv.Atoi(fields[1]); parents[ppid] {
				parents[pid] = true
				cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
				out = append(out, process{pid, strings.ReplaceAll(string(cmdline), "\x00", " ")})
			}
		}
	}
	return out
}

// alive reports whether pid runs (a zombie, dead but not yet reaped by
// init, does not count).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func openIndex(t *testing.T, home string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "footnote.db")+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// parseMark reports whether the queued file at path is marked as being read.
func parseMark(home, path string) bool {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "footnote.db")+"?mode=ro&_busy_timeout=1000")
	if err != nil {
		return false
	}
	defer db.Close()
	var n int
	return db.QueryRow(`SELECT count(*) FROM ingest_queue WHERE path = ? AND parsing != ''`, path).Scan(&n) == nil && n > 0
}

func queued(t *testing.T, home, path string) bool { return rowsFor(t, home, "ingest_queue", path) > 0 }

func indexed(t *testing.T, home, path string) bool { return rowsFor(t, home, "documents", path) > 0 }

// rowsFor counts the rows of table (ingest_queue or documents) for path.
func rowsFor(t *testing.T, home, table, path string) int {
	t.Helper()
	var n int
	if err := openIndex(t, home).QueryRow(`SELECT count(*) FROM `+table+` WHERE path = ?`, path).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkIndexWhole runs SQLite's and the full-text indexes' integrity checks.
func checkIndexWhole(t *testing.T, home string) {
	t.Helper()
	db := openIndex(t, home)
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
	if _, err := db.Exec(`INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("full-text index integrity: %v", err)
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writePDF(t *testing.T, dir string, pages ...scantest.Page) string {
	t.Helper()
	data, err := scantest.PDF(pages)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "page.pdf", string(data))
}

// standIns writes programs named names that never finish (tesseract
// answers --list-langs first, as findOCR asks it), into a new folder for
// PATH.
func standIns(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		script := "#!/bin/sh\nsleep 300\n"
		if name == "tesseract" {
			script = "#!/bin/sh\nif [ \"$1\" = --list-langs ]; then printf 'List of available languages (1):\\neng\\n'; exit 0; fi\nsleep 300\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The stand-ins need sh and sleep: link them in, PATH holds only dir.
	for _, tool := range []string{"sh", "sleep"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// proseOf is about n bytes of varied English paragraphs.
func proseOf(n int, seed uint64) string {
	words := strings.Fields("the ferry leaves the harbour at dawn while the lighthouse keeper writes his log and the gulls circle over nets drying on the quay before the market opens")
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	for b.Len() < n {
		for range 5 {
			k := 6 + rng.IntN(14)
			for w := range k {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
			fmt.Fprintf(&b, " %d. ", rng.IntN(1000))
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// TestWatchStopsPromptly: `footnote watch` stopped while it indexes a
// large file it found at start ends within stopWithin, and the file stays
// queued.
func TestWatchStopsPromptly(t *testing.T) {
	setupLibrary(t)
	home, lib := os.Getenv("FOOTNOTE_HOME"), t.TempDir()
	writeFile(t, lib, "small.md", "# Small\n\nA short note about lighthouses.\n")
	if code, out, errOut := runProcess(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errOut)
	}
	big := writeFile(t, lib, "big.txt", proseOf(4<<20, 4))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := &ingestProcess{home: home, file: big, done: make(chan error, 1)}
	p.cmd = cliProcess(t, ctx, "watch")
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	waitForParseMark(t, p)
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := p.wait(t)
	took := time.Since(sent)
	t.Logf("watch exited %v after the signal (%v)", took.Round(time.Millisecond), err)
	if took > stopWithin {
		t.Errorf("watch took %v to stop, want at most %v", took, stopWithin)
	}
	checkIndexWhole(t, home)
	if !queued(t, home, big) {
		t.Errorf("%s is no longer queued after the stop", big)
	}
}
