package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// Every validator code fires in a real run of the CLI — a separate
// process, the fake model server in this one — and is shown with its fix
// on the answer and on the audit log's lines. Each case makes happen what
// the code guards against: a model that skips citations, a document
// re-indexed or reclassified while an answer is generated, an index whose
// offsets or revisions are damaged, a cached answer stored without scores,
// one sentence citing two sections, an index written with another analyzer.

const validatorLibrary = "# Install\n\n## Linux\n\nTo install on Linux, download the AppImage and run it.\n\n" +
	"## Windows\n\nTo install on Windows, run the installer and follow its steps.\n"

// validatorSetup points the CLI at a new data folder, the tiny model and a
// fake model server answering with reply, and ingests a one-file library.
func validatorSetup(t *testing.T, reply ollamafake.Responder) (home, lib string, fake *ollamafake.Server) {
	t.Helper()
	fake = ollamafake.New(ollamafake.WithResponder(reply))
	t.Cleanup(fake.Close)
	setupLibrary(t)
	home = os.Getenv("FOOTNOTE_HOME")
	t.Setenv("OLLAMA_HOST", fake.URL())
	t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
	lib = t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "install.md"), []byte(validatorLibrary), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runProcess(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	return home, lib, fake
}

// gate holds the model's first answer until released, and says when the
// question has reached the model.
type gate struct {
	arrived, release chan struct{}
	once             sync.Once
}

func newGate() *gate { return &gate{arrived: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) responder(next ollamafake.Responder) ollamafake.Responder {
	return func(req llm.ChatRequest) ollamafake.Reply {
		g.once.Do(func() {
			close(g.arrived)
			select {
			case <-g.release:
			case <-time.After(time.Minute):
			}
		})
		return next(req)
	}
}

// askWhile asks question in a CLI process and runs during while the model
// holds its answer; it returns ask's exit code and output.
func askWhile(t *testing.T, g *gate, question string, during func()) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := cliProcess(t, ctx, "ask", question)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.arrived:
	case <-time.After(time.Minute):
		close(g.release)
		t.Fatalf("the question never reached the model: %s", errb.String())
	}
	during()
	close(g.release)
	_ = cmd.Wait()
	return cmd.ProcessState.ExitCode(), out.String() + errb.String()
}

// shown checks that out names each code with its fix, and that the audit
// log's question line and check lines carry them.
func shown(t *testing.T, home, out string, codes ...string) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(home, "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range codes {
		if !regexp.MustCompile(`(?m)^  (error|warning) ` + code + `: .+\n    fix: \S`).MatchString(out) {
			t.Errorf("the CLI does not show %s with its fix:\n%s", code, out)
		}
		if !regexp.MustCompile(`kind=question .* validation=\S*`+code).Match(log) ||
			!regexp.MustCompile(`kind=check .* code=`+code+` severity=\S+ text=".*Fix: `).Match(log) {
			t.Errorf("the audit log does not show %s:\n%s", code, log)
		}
	}
}

// execSQL changes the index file directly, as damage or an older version
// would leave it.
func execSQL(t *testing.T, home, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(home, "footnote.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// uncitedReply quotes the first passage without a marker.
func uncitedReply(req llm.ChatRequest) ollamafake.Reply {
	return ollamafake.Reply{Tokens: ollamafake.Words("To install on Linux, download the AppImage and run it.")}
}

func TestValidatorEmptyCitations(t *testing.T) {
	home, _, _ := validatorSetup(t, uncitedReply)
	code, out, errOut := runProcess(t, "ask", "How do I install on Linux?")
	if code != 0 || !strings.Contains(out, "Not grounded: no_citations") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	shown(t, home, out, "empty_citations")
}

// A document changed and re-indexed while its passage was being cited: the
// citation comes from an index state whose passage no longer resolves, and
// from an older revision of the document.
func TestValidatorIndexChangedWhileAnswering(t *testing.T) {
	g := newGate()
	home, lib, _ := validatorSetup(t, g.responder(ollamafake.DefaultResponder))
	code, out := askWhile(t, g, "How do I install on Linux?", func() {
		changed := strings.Replace(validatorLibrary, "download the AppImage", "download the AppImage from the website", 1)
		if err := os.WriteFile(filepath.Join(lib, "install.md"), []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := runProcess(t, "ingest", lib); code != 0 {
			t.Fatalf("ingest meanwhile: %s", errOut)
		}
	})
	if code != 0 || !strings.Contains(out, "Not grounded: validation_failed (mismatch_index_hash)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	shown(t, home, out, "mismatch_index_hash", "rev_mismatch")
}

// A file the user had treated as a document is kept out of evidence again
// while an answer cites it.
func TestValidatorNonCorpusEvidence(t *testing.T) {
	g := newGate()
	home, lib, _ := validatorSetup(t, g.responder(ollamafake.DefaultResponder))
	chat := filepath.Join(lib, "hangar-chat.txt")
	if err := os.WriteFile(chat, []byte("user: How high is the zeppelin hangar?\nassistant: The zeppelin hangar is 60 m high [#1].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runProcess(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	if code, _, errOut := runProcess(t, "library", "treat-as-document", chat); code != 0 {
		t.Fatalf("treat-as-document: %s", errOut)
	}
	code, out := askWhile(t, g, "How high is the zeppelin hangar?", func() {
		if code, _, errOut := runProcess(t, "library", "treat-as-document", "--undo", chat); code != 0 {
			t.Fatalf("--undo meanwhile: %s", errOut)
		}
	})
	if code != 0 || !strings.Contains(out, "Not grounded: validation_failed (non_corpus_evidence)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	shown(t, home, out, "non_corpus_evidence")
}

// Damaged span math and a lost revision in the index.
func TestValidatorDamagedIndex(t *testing.T) {
	home, _, _ := validatorSetup(t, ollamafake.DefaultResponder)
	execSQL(t, home, `UPDATE chunks SET char_end = char_start`)
	execSQL(t, home, `UPDATE documents SET rev = ''`)
	code, out, errOut := runProcess(t, "ask", "How do I install on Linux?")
	if code != 0 || !strings.Contains(out, "Not grounded: validation_failed (") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	shown(t, home, out, "bad_offsets", "missing_rev")
}

// A cached answer whose citations lost their scores (as a record written
// by an older version would have them) is not served; the fresh answer
// says why.
func TestValidatorCachedAnswerWithoutScores(t *testing.T) {
	home, _, _ := validatorSetup(t, ollamafake.DefaultResponder)
	code, out, errOut := runProcess(t, "ask", "--json", "How do I install on Linux?")
	var first struct {
		ID       string `json:"id"`
		Grounded bool   `json:"grounded"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &first) != nil || !first.Grounded {
		t.Fatalf("first ask: exit %d %s %s", code, out, errOut)
	}
	db, err := sql.Open("sqlite3", filepath.Join(home, "footnote.db"))
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := db.QueryRow(`SELECT citations_json FROM answers WHERE id = ?`, first.ID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var cites []map[string]any
	if err := json.Unmarshal([]byte(raw), &cites); err != nil {
		t.Fatal(err)
	}
	for _, c := range cites {
		delete(c, "score_raw")
		delete(c, "score_norm")
		delete(c, "k_final")
	}
	stripped, _ := json.Marshal(cites)
	execSQL(t, home, `UPDATE answers SET citations_json = ? WHERE id = ?`, string(stripped), first.ID)
	code, out, errOut = runProcess(t, "ask", "How do I install on Linux?")
	if code != 0 || strings.Contains(out, "Served from the answer cache") || !strings.Contains(out, "was not served") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	shown(t, home, out, "missing_score")
}

// One sentence citing two sections: a warning by default, an error when
// settings forbid it.
func TestValidatorCrossSectionReuse(t *testing.T) {
	twoSections := func(req llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: ollamafake.Words("To install, download the AppImage or run the installer [#1][#2].")}
	}
	home, _, _ := validatorSetup(t, twoSections)
	code, out, errOut := runProcess(t, "ask", "How do I install on Linux or Windows?")
	if code != 0 || !strings.Contains(out, "warning cross_section_reuse") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	shown(t, home, out, "cross_section_reuse")
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"cross_section": "forbid"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runProcess(t, "ask", "--fresh", "How do I install on Linux or Windows?")
	if code != 0 || !strings.Contains(out, "error cross_section_reuse") || !strings.Contains(out, "Not grounded: validation_failed (cross_section_reuse)") {
		t.Fatalf("forbidden: exit %d: %s %s", code, out, errOut)
	}
}

// An index written with another analyzer, and not being rebuilt, fails
// before anything is generated, saying what to do.
func TestValidatorAnalyzerMismatch(t *testing.T) {
	home, _, fake := validatorSetup(t, ollamafake.DefaultResponder)
	execSQL(t, home, `UPDATE meta SET value = 'fts5:unicode61;an-older-analyzer' WHERE key = 'analyzer'`)
	code, out, errOut := runProcess(t, "ask", "How do I install on Linux?")
	if code != 1 || !strings.Contains(errOut, "analyzer_mismatch") || !strings.Contains(errOut, "restart Footnote to rebuild the index") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
}
