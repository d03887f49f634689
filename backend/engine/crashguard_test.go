package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/store"
)

// The crash test re-runs this test binary as a child that ingests a
// library in which one file kills the process while it is parsed, the way
// a fatal error in a parser would, and checks what the next runs do.
const envCrashChild = "FOOTNOTE_CRASH_CHILD" // "home|library" in the child

// crashMarker in a file's text kills the child that parses it.
const crashMarker = "CRASH-THE-READER"

// crashingEmbedder dies when asked to count the tokens of text holding
// crashMarker. Token counting is part of parsing (the splitter cuts chunks
// by tokens), and a panic on another goroutine is not recoverable: the
// process ends mid-parse like it does when a parser runs out of memory.
type crashingEmbedder struct{ embed.Embedder }

func (c crashingEmbedder) CountTokens(text string) int {
	if strings.Contains(text, crashMarker) {
		go func() { panic("simulated reader crash") }()
		select {}
	}
	return c.Embedder.CountTokens(text)
}

// TestHelperCrashingIngest is the child process; in a normal run it returns at once.
func TestHelperCrashingIngest(t *testing.T) {
	spec := os.Getenv(envCrashChild)
	if spec == "" {
		return
	}
	home, lib, _ := strings.Cut(spec, "|")
	cfg := config.Config{Home: home, Settings: config.Defaults()}
	en, err := New(cfg, WithEmbedder(closeless{crashingEmbedder{testEmbedder(t)}}))
	if err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	sum, err := en.Ingest(context.Background(), []string{lib}, nil)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(sum)
	os.Stdout.WriteString("summary " + string(line) + "\n")
}

// runCrashChild runs one ingest child and returns its summary, or ok=false
// when the process died before giving one.
func runCrashChild(t *testing.T, home, lib string) (sum Summary, ok bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCrashingIngest$", "-test.count=1")
	cmd.Env = append(os.Environ(), envCrashChild+"="+home+"|"+lib)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line, found := strings.CutPrefix(sc.Text(), "summary "); found {
			if err := json.Unmarshal([]byte(line), &sum); err != nil {
				t.Fatal(err)
			}
			ok = true
		}
	}
	werr := cmd.Wait()
	if ok && werr != nil {
		t.Fatalf("child gave a summary but failed: %v\n%s", werr, stderr.String())
	}
	if !ok && !strings.Contains(stderr.String(), "simulated reader crash") {
		t.Fatalf("child died, but not of the simulated crash: %v\n%s", werr, stderr.String())
	}
	return sum, ok
}

func TestReaderCrashIsRetriedOnceThenSkipped(t *testing.T) {
	home, lib := t.TempDir(), t.TempDir()
	crash := filepath.Join(lib, "crash.md")
	write(t, filepath.Join(lib, "a.md"), guide("alpha"))
	write(t, crash, "# Trouble\n\nThis file says "+crashMarker+" in its text.\n")
	write(t, filepath.Join(lib, "z.md"), guide("omega"))

	// The first run dies parsing crash.md; the second reads it again,
	// alone, and dies again.
	for run := 1; run <= 2; run++ {
		if sum, ok := runCrashChild(t, home, lib); ok {
			t.Fatalf("run %d finished (%+v); it should have died parsing %s", run, sum, crash)
		}
	}
	// The third skips it with a sentence and indexes the rest.
	sum, ok := runCrashChild(t, home, lib)
	if !ok {
		t.Fatal("run 3 died again: the queue keeps feeding the file that crashes the reader")
	}
	if sum.FilesFailed != 1 || len(sum.Errors) != 1 || sum.Errors[0].Path != crash || sum.Errors[0].Error != ErrCrashedReader.Error() {
		t.Fatalf("run 3: %+v", sum)
	}

	en, _ := newLibraryEngine(t, home)
	ctx := context.Background()
	docs, err := en.index().DocumentsUnder(ctx, lib)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Path != filepath.Join(lib, "a.md") || docs[1].Path != filepath.Join(lib, "z.md") {
		t.Fatalf("indexed %+v, want a.md and z.md", docs)
	}
	if n, _ := en.index().QueueLen(ctx); n != 0 {
		t.Fatalf("%d items still queued", n)
	}
	// A later session still shows why the file is missing: in the
	// library's failures and in doctor.
	if f, ok := en.FileFailures()[crash]; !ok || f.Error != ErrCrashedReader.Error() {
		t.Fatalf("FileFailures: %+v", en.FileFailures())
	}
	var doctor *Check
	for _, c := range en.Doctor(ctx) {
		if c.Name == "files that crashed the reader" {
			doctor = &c
		}
	}
	if doctor == nil || doctor.OK || !strings.Contains(doctor.Detail, crash) || doctor.Fix == "" {
		t.Fatalf("doctor: %+v", doctor)
	}
	en.Close()

	// Ingesting again does not try the unchanged file (no crash), and
	// still says why it is skipped.
	sum, ok = runCrashChild(t, home, lib)
	if !ok || sum.FilesFailed != 1 || sum.Errors[0].Error != ErrCrashedReader.Error() || sum.FilesUnchanged != 2 {
		t.Fatalf("run 4: ok=%v %+v", ok, sum)
	}
	// Once the file changes it gets another try, and the record goes.
	write(t, crash, "# Trouble\n\nRe-saved without the problem.\n")
	sum, ok = runCrashChild(t, home, lib)
	if !ok || sum.FilesIndexed != 1 || sum.FilesFailed != 0 {
		t.Fatalf("run 5: ok=%v %+v", ok, sum)
	}
	st, err := store.Open(filepath.Join(home, "footnote.db"), store.Options{Dim: testEmbedder(t).Info().Dim})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if crashes, err := st.ReaderCrashes(ctx); err != nil || len(crashes) != 0 {
		t.Fatalf("crash records after the fix: %+v, %v", crashes, err)
	}
	if _, found, _ := st.StoredDocument(ctx, corpus.DocID(crash)); !found {
		t.Fatal("the re-saved file was not indexed")
	}
}

// A mark left by a process that still runs (another Footnote working on
// the same queue) is not a crash; one left by a process that is gone is.
func TestCrashCountingSparesLiveProcesses(t *testing.T) {
	en, _ := newLibraryEngine(t, t.TempDir())
	ctx := context.Background()
	st := en.index()
	items := []store.QueueItem{{Path: "/x/live.md", Op: store.OpIndex}, {Path: "/x/gone.md", Op: store.OpIndex}}
	if err := st.Enqueue(ctx, items); err != nil {
		t.Fatal(err)
	}
	queued, _ := st.QueueNext(ctx, 10)
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{"/x/live.md": parseOwner, "/x/gone.md": strconv.Itoa(gone.Process.Pid) + ":0123456789ab"}
	for _, it := range queued {
		if err := st.QueueMarkParsing(ctx, it, owners[it.Path]); err != nil {
			t.Fatal(err)
		}
	}
	n, err := st.QueueCountCrashes(ctx, ownerAlive)
	if err != nil || n != 1 {
		t.Fatalf("counted %d crashes (%v), want 1", n, err)
	}
	queued, _ = st.QueueNext(ctx, 10)
	for _, it := range queued {
		if want := map[string]int{"/x/live.md": 0, "/x/gone.md": 1}[it.Path]; it.Crashes != want {
			t.Errorf("%s: %d crashes, want %d", it.Path, it.Crashes, want)
		}
	}
}

// A rebuilt index keeps the record of files that crashed the reader, or
// the next scan would feed them to it again.
func TestReaderCrashRecordsSurviveRebuild(t *testing.T) {
	ctx := context.Background()
	home, lib := t.TempDir(), t.TempDir()
	write(t, filepath.Join(lib, "guide.md"), guide("query"))
	en, _ := newLibraryEngine(t, home)
	if _, err := en.AddToCollection(ctx, "lib", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	rec := store.ReaderCrash{Path: filepath.Join(lib, "bad.pdf"), Rev: "0123456789abcdef", Error: ErrCrashedReader.Error(), CrashedAt: time.Unix(1700000000, 0).UTC()}
	if err := en.index().RecordReaderCrash(ctx, rec); err != nil {
		t.Fatal(err)
	}
	en.Close()

	cfg := config.Config{Home: home, Settings: config.Defaults()}
	cfg.Settings.ChunkTokens, cfg.Settings.OverlapTokens = 48, 4 // a new index hash: rebuild
	en2, err := New(cfg, WithEmbedder(closeless{testEmbedder(t)}))
	if err != nil {
		t.Fatal(err)
	}
	defer en2.Close()
	if err := en2.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	active, done := en2.RebuildState()
	if !active {
		t.Fatal("no rebuild started")
	}
	<-done
	crashes, err := en2.index().ReaderCrashes(ctx)
	if err != nil || len(crashes) != 1 || crashes[0] != rec {
		t.Fatalf("crash records after the rebuild: %+v, %v", crashes, err)
	}
}
