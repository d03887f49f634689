package engine

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/store"
)

// The kill test re-runs this test binary as a child that ingests a
// collection, SIGKILLs it at random points, and checks after every kill that
// the index is intact and consistent. FOOTNOTE_KILL_POINTS sets how many
// kills (default 5; the long run uses 25).
const (
	envKillChild  = "FOOTNOTE_KILL_CHILD" // "home|library" in the child
	envKillPoints = "FOOTNOTE_KILL_POINTS"
)

// TestHelperIngestChild is the child process; in a normal run it returns at once.
func TestHelperIngestChild(t *testing.T) {
	spec := os.Getenv(envKillChild)
	if spec == "" {
		return
	}
	home, lib, _ := strings.Cut(spec, "|")
	en, _ := newLibraryEngine(t, home)
	fmt.Println("ready")
	_, err := en.AddToCollection(context.Background(), "lib", []string{lib}, func(p Progress) {
		fmt.Printf("progress %d/%d\n", p.FilesDone, p.FilesTotal)
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("finished")
}

func TestKillDuringIngestResumes(t *testing.T) {
	points := 5
	if v, err := strconv.Atoi(os.Getenv(envKillPoints)); err == nil && v > 0 {
		points = v
	}
	home, lib := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	t.Logf("kill points: %d", points)

	// versions[path] holds every content the file has had, by revision.
	versions := map[string]map[string]bool{}
	put := func(path, body string) {
		write(t, path, body)
		if versions[path] == nil {
			versions[path] = map[string]bool{}
		}
		versions[path][corpus.Rev([]byte(body))] = true
	}
	const files = 40
	for i := range files {
		put(filepath.Join(lib, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%03d.md", i)), guide(fmt.Sprintf("v0w%d", i)))
	}

	kills, rounds := 0, 0
	for kills < points && rounds < 4*points {
		rounds++
		// Change a random third of the files so every round has work.
		for path := range versions {
			if rng.IntN(3) == 0 {
				put(path, guide(fmt.Sprintf("r%dw%d", rounds, rng.IntN(1000))))
			}
		}
		lines, killed := runChild(t, home, lib, rng.IntN(files/3)+1)
		if killed {
			kills++
		}
		checkAfterKill(t, home, versions).Close()
		t.Logf("round %d: killed=%v after %d progress lines", rounds, killed, lines)
	}
	if kills < points {
		t.Fatalf("only %d of %d kills landed during ingest", kills, points)
	}
	// A final uninterrupted run completes the queue and indexes every file
	// at its current content.
	if _, killed := runChild(t, home, lib, -1); killed {
		t.Fatal("final run was killed")
	}
	st := checkAfterKill(t, home, versions)
	defer st.Close()
	ctx := context.Background()
	if n, _ := st.QueueLen(ctx); n != 0 {
		t.Fatalf("queue holds %d items after the final run", n)
	}
	docs, err := st.DocumentsUnder(ctx, lib)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != files {
		t.Fatalf("%d documents indexed, want %d", len(docs), files)
	}
	for _, d := range docs {
		data, _ := os.ReadFile(d.Path)
		if d.Rev != corpus.Rev(data) {
			t.Errorf("%s indexed at an old revision", d.Path)
		}
	}
	t.Logf("%d kills in %d rounds; final index consistent", kills, rounds)
}

// runChild runs one ingest child and SIGKILLs it after killAfter progress
// lines (never when killAfter < 0). It reports whether the kill landed
// before the child finished.
func runChild(t *testing.T, home, lib string, killAfter int) (lines int, killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperIngestChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envKillChild+"="+home+"|"+lib)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(out)
	finished := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "progress ") {
			lines++
			if killAfter >= 0 && lines >= killAfter && !finished {
				cmd.Process.Kill() // SIGKILL
				killed = true
				break
			}
		}
		if line == "finished" {
			finished = true
		}
	}
	go func() { _, _ = bufio.NewReader(out).WriteTo(devNull{}) }()
	werr := cmd.Wait()
	if !killed && (werr != nil || !finished) {
		t.Fatalf("child failed: %v", werr)
	}
	return lines, killed && !finished
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

// checkAfterKill opens the index like the app would and checks integrity,
// index agreement, and that every document is wholly at one revision the
// file really had.
func checkAfterKill(t *testing.T, home string, versions map[string]map[string]bool) *store.Store {
	t.Helper()
	ctx := context.Background()
	dbPath := filepath.Join(home, "footnote.db")
	st, err := store.Open(dbPath, store.Options{Dim: testEmbedder(t).Info().Dim})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	checkConsistent(t, st)
	db, err := sql.Open("sqlite3_footnote", "file:"+dbPath+"?_query_only=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q, %v", res, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT d.path, d.rev, d.text, c.text, c.char_start, c.char_end
		FROM chunks c JOIN documents d ON d.doc_id = c.doc_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var path, rev, doc, chunk string
		var start, end int
		if err := rows.Scan(&path, &rev, &doc, &chunk, &start, &end); err != nil {
			t.Fatal(err)
		}
		if !versions[path][rev] {
			t.Fatalf("%s is indexed at revision %s, which the file never had", path, rev)
		}
		if r := []rune(doc); end > len(r) || string(r[start:end]) != chunk {
			t.Fatalf("%s: a chunk does not match its document text (mixed revisions)", path)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return st
}
