//go:build linux

package ingest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMalformedCorpus runs every HTML, PDF, DOCX and EPUB file under the
// folder named by FOOTNOTE_CORPUS (public parser test corpora, e.g. pdf.js's
// test PDFs) through Load, each file in a process of its own, and reports
// per format how many loaded, failed with a reason, crashed the process or
// hung, with the peak resident memory seen. FOOTNOTE_CORPUS_REPORT names a
// file for one tab-separated line per input. Without FOOTNOTE_CORPUS it
// does nothing; the files worth keeping run in TestKeptCorpusFiles.
//
//	FOOTNOTE_CORPUS=~/corpus go test -tags sqlite_fts5 -run TestMalformedCorpus -timeout 2h ./backend/ingest/
const (
	envCorpus       = "FOOTNOTE_CORPUS"
	envCorpusReport = "FOOTNOTE_CORPUS_REPORT"
	envCorpusFile   = "FOOTNOTE_CORPUS_FILE" // set in the per-file child
)

// corpusFileTimeout is how long one file may take before it counts as a hang.
const corpusFileTimeout = 3 * time.Minute

type corpusOutcome struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Result  string `json:"result"` // text, error, crash or hang
	Error   string `json:"error,omitempty"`
	Text    int    `json:"text"` // bytes of extracted text
	PeakRSS int64  `json:"peak_rss"`
	Millis  int64  `json:"ms"`
}

// TestHelperCorpusFile is the per-file child; in a normal run it returns at once.
func TestHelperCorpusFile(t *testing.T) {
	path := os.Getenv(envCorpusFile)
	if path == "" {
		return
	}
	doc, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
	out := corpusOutcome{Result: "text", Text: len(doc.Text)}
	if err != nil {
		out.Result, out.Error = "error", err.Error()
	}
	stopExtractorsForTest() // their peak memory then counts in this process's
	line, _ := json.Marshal(out)
	fmt.Printf("corpus-result %s\n", line)
}

func TestMalformedCorpus(t *testing.T) {
	root := os.Getenv(envCorpus)
	if root == "" {
		t.Skipf("set %s to a folder of public test files to run this", envCorpus)
	}
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && binaryOrHTML(formatOf(p)) {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	results := make([]corpusOutcome, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				results[i] = runCorpusFile(t, paths[i])
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()

	type tally struct {
		files, text, errors, crashes, hangs int
		peak                                int64
		peakPath                            string
	}
	byFormat := map[string]*tally{}
	for _, r := range results {
		k := byFormat[r.Format]
		if k == nil {
			k = &tally{}
			byFormat[r.Format] = k
		}
		k.files++
		switch r.Result {
		case "text":
			k.text++
		case "error":
			k.errors++
		case "crash":
			k.crashes++
		case "hang":
			k.hangs++
		}
		if r.PeakRSS > k.peak {
			k.peak, k.peakPath = r.PeakRSS, r.Path
		}
		if r.Result == "crash" || r.Result == "hang" {
			t.Errorf("%s: %s: %s", r.Result, r.Path, r.Error)
		}
	}
	formats := make([]string, 0, len(byFormat))
	for f := range byFormat {
		formats = append(formats, f)
	}
	slices.Sort(formats)
	for _, f := range formats {
		k := byFormat[f]
		t.Logf("%-5s %5d files: %5d text, %5d errors, %d crashes, %d hangs; peak RSS %.0f MiB (%s)",
			f, k.files, k.text, k.errors, k.crashes, k.hangs, float64(k.peak)/(1<<20), filepath.Base(k.peakPath))
	}
	if report := os.Getenv(envCorpusReport); report != "" {
		var b strings.Builder
		for _, r := range results {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", r.Format, r.Result, r.Path, r.Text, r.PeakRSS>>10, r.Millis, strings.ReplaceAll(r.Error, "\t", " "))
		}
		if err := os.WriteFile(report, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func binaryOrHTML(format string) bool { return format == "html" || binaryFormat(format) }

// runCorpusFile loads one file in a child process and classifies how it went.
func runCorpusFile(t *testing.T, path string) corpusOutcome {
	out := corpusOutcome{Path: path, Format: formatOf(path)}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCorpusFile$", "-test.count=1")
	cmd.Env = append(os.Environ(), envCorpusFile+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hung := false
	timer := time.AfterFunc(corpusFileTimeout, func() { hung = true; cmd.Process.Kill() })
	found := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "corpus-result "); ok {
			var r corpusOutcome
			if json.Unmarshal([]byte(line), &r) == nil {
				out.Result, out.Error, out.Text, found = r.Result, r.Error, r.Text, true
			}
		}
	}
	werr := cmd.Wait()
	timer.Stop()
	out.Millis = time.Since(start).Milliseconds()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		out.PeakRSS = ru.Maxrss << 10 // kilobytes on Linux
	}
	var exit *exec.ExitError
	switch {
	case hung:
		out.Result, out.Error = "hang", fmt.Sprintf("no result within %s", corpusFileTimeout)
	case !found || (werr != nil && errors.As(werr, &exit)):
		out.Result = "crash"
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		out.Error = strings.Join(lines[:min(3, len(lines))], " | ")
	}
	return out
}
