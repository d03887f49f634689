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

	"github.com/footnote-app/footnote/backend/embed"
)

// TestMalformedCorpus runs every supported file under the folder named by
// FOOTNOTE_CORPUS (public parser test corpora, e.g. pdf.js's test PDFs)
// through Load, each file in a process of its own, and reports per format
// how many loaded, failed with a reason, crashed the process or hung, and
// the files whose reading took more than 30 s of CPU time (what the file
// costs, whatever else the machine runs), with the peak resident memory
// seen. Tokens are counted with the tokenizer of the model folder
// FOOTNOTE_CORPUS_TOKENIZER names (chunking is part of reading), else by
// words. FOOTNOTE_CORPUS_REPORT names a file for one tab-separated line per
// input. Without FOOTNOTE_CORPUS it does nothing; the files worth keeping
// run in TestKeptCorpusFiles.
//
//	FOOTNOTE_CORPUS=~/corpus go test -tags sqlite_fts5 -run TestMalformedCorpus -timeout 2h ./backend/ingest/
const (
	envCorpus       = "FOOTNOTE_CORPUS"
	envCorpusReport = "FOOTNOTE_CORPUS_REPORT"
	envCorpusFile   = "FOOTNOTE_CORPUS_FILE" // set in the per-file child
	envCorpusTok    = "FOOTNOTE_CORPUS_TOKENIZER"
)

// corpusSlow is the CPU time past which a file counts as a stall.
const corpusSlow = 30 * time.Second

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
	CPUMs   int64  `json:"cpu_ms"` // user and system time of the file's process and the programs it ran
}

// TestHelperCorpusFile is the per-file child; in a normal run it returns at once.
func TestHelperCorpusFile(t *testing.T) {
	path := os.Getenv(envCorpusFile)
	if path == "" {
		return
	}
	var counter TokenCounter = wordCounter{}
	if dir := os.Getenv(envCorpusTok); dir != "" {
		counter = embed.NewAbsent(dir, errors.New("tokens are only counted"))
	}
	doc, err := Load(File{Path: path}, counter, Options{}, testNow)
	out := corpusOutcome{Result: "text", Text: len(doc.Text)}
	if err != nil {
		out.Result, out.Error = "error", err.Error()
	}
	StopChildren() // their peak memory then counts in this process's
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
		if err == nil && d.Type().IsRegular() && formatOf(p) != "" {
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
		files, text, errors, crashes, hangs, slow int
		peak                                      int64
		peakPath                                  string
		cpu                                       int64
		cpuPath                                   string
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
		if r.CPUMs > k.cpu {
			k.cpu, k.cpuPath = r.CPUMs, r.Path
		}
		if time.Duration(r.CPUMs)*time.Millisecond > corpusSlow {
			k.slow++
			t.Logf("slow: %s took %.1f s of CPU (%.1f s)", r.Path, float64(r.CPUMs)/1000, float64(r.Millis)/1000)
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
		t.Logf("%-5s %5d files: %5d text, %5d errors, %d crashes, %d hangs, %d over %s of CPU; peak RSS %.0f MiB (%s); most CPU %.1f s (%s)",
			f, k.files, k.text, k.errors, k.crashes, k.hangs, k.slow, corpusSlow, float64(k.peak)/(1<<20), filepath.Base(k.peakPath),
			float64(k.cpu)/1000, filepath.Base(k.cpuPath))
	}
	if report := os.Getenv(envCorpusReport); report != "" {
		var b strings.Builder
		for _, r := range results {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", r.Format, r.Result, r.Path, r.Text, r.PeakRSS>>10, r.Millis, r.CPUMs, strings.ReplaceAll(r.Error, "\t", " "))
		}
		if err := os.WriteFile(report, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

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
	// The process waited for its parser child and the programs it ran, so
	// their time is in its own.
	out.CPUMs = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Milliseconds()
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
