package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func setup(t *testing.T, ollamaHost string) (home, lib string) {
	t.Helper()
	home, lib = t.TempDir(), t.TempDir()
	t.Setenv("FOOTNOTE_HOME", home)
	t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.Dir(t))
	t.Setenv("OLLAMA_HOST", ollamaHost)
	t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
	files := map[string]string{
		"install.md": "# Install\n\n## Linux\n\nTo install on Linux, download the AppImage and run it.\n",
		"broken.md":  "bad \xff bytes\n",
		"photo.jpg":  "\xff\xd8\xff\xe0",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, lib
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestIngestSearchAskJSON(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())

	code, out, errOut := runCLI(t, "ingest", "--json", lib)
	if code != 0 {
		t.Fatalf("ingest exit %d: %s", code, errOut)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("ingest --json is not JSON: %v\n%s", err, out)
	}
	for key, want := range map[string]float64{"files_seen": 3, "files_indexed": 1, "files_unchanged": 0, "files_skipped": 1, "files_failed": 1} {
		if sum[key] != want {
			t.Errorf("%s = %v, want %v", key, sum[key], want)
		}
	}
	if sum["chunks_embedded"].(float64) < 1 {
		t.Errorf("chunks_embedded = %v", sum["chunks_embedded"])
	}
	errs := sum["errors"].([]any)
	if len(errs) != 1 || !strings.Contains(errs[0].(map[string]any)["path"].(string), "broken.md") {
		t.Errorf("errors = %v", errs)
	}
	if !strings.Contains(errOut, "install.md") {
		t.Errorf("no progress on stderr: %q", errOut)
	}

	code, out, errOut = runCLI(t, "search", "install linux", "--json")
	if code != 0 {
		t.Fatalf("search exit %d: %s", code, errOut)
	}
	var res struct {
		Hits []map[string]any `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) == 0 {
		t.Fatalf("search --json: %v %s", err, out)
	}
	for _, field := range []string{"doc_id", "section_id", "snippet_id", "source_url", "offsets", "tokens", "score_norm"} {
		if _, ok := res.Hits[0][field]; !ok {
			t.Errorf("search hit lacks %s", field)
		}
	}

	code, out, errOut = runCLI(t, "ask", "--json", "How do I install on Linux?")
	if code != 0 {
		t.Fatalf("ask exit %d: %s", code, errOut)
	}
	var ans map[string]any
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	if ans["grounded"] != true || ans["refusal_reason"] != nil || ans["model"] != ollamafake.DefaultModel || ans["embed_model"] == "" {
		t.Errorf("ask: %v", ans)
	}
	cites := ans["citations"].([]any)
	if len(cites) == 0 {
		t.Fatal("no citations")
	}
	c := cites[0].(map[string]any)
	if !strings.HasPrefix(c["source_url"].(string), "file://") || c["offsets"].(map[string]any)["unit"] != "char" {
		t.Errorf("citation: %v", c)
	}

	code, out, _ = runCLI(t, "ask", "How do I install on Linux?")
	if code != 0 || !strings.Contains(out, "[#1]") || !strings.Contains(out, "install.md") {
		t.Errorf("streamed ask: exit %d\n%s", code, out)
	}
}

// TestAskWithoutOllamaAnswersWithPassages: with no model server running,
// a question still gets the best sentences of the passages that match,
// each cited, and a note saying what to start; it is stored as such.
func TestAskWithoutOllamaAnswersWithPassages(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	_, lib := setup(t, down)
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	code, out, errOut := runCLI(t, "ask", "How do I install on Linux?")
	if code != exitNoModel {
		t.Fatalf("ask exit %d, want %d (no model answered): %s", code, exitNoModel, errOut)
	}
	for _, want := range []string{"AppImage", "[#1]", "No answer model is running; these passages match.", "ollama serve", "Not grounded: no_answer_model", "[#1] "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, hist, _ := runCLI(t, "history", "--json", "-n", "1")
	if code != 0 || !strings.Contains(hist, `"refusal_reason": "no_answer_model"`) {
		t.Errorf("history does not keep the passages answer as such:\n%s", hist)
	}
}

// TestAskWithMissingModel: the model is not installed; the passages answer
// says which model to pull, ask exits with exitNoModel (also with --json,
// also for a follow-up), and once /api/tags has shown the model missing
// nothing more is asked of the server: no /api/show, no /api/chat.
func TestAskWithMissingModel(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	t.Setenv("FOOTNOTE_LLM_MODEL", "no-such-model")
	runCLI(t, "ingest", lib)
	code, out, errOut := runCLI(t, "ask", "How do I install?")
	if code != exitNoModel || !strings.Contains(out, "ollama pull no-such-model") || !strings.Contains(out, "these passages match") {
		t.Fatalf("exit %d, stdout %q stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "ask", "--json", "--follow-up", "And on Windows?")
	if code != exitNoModel || !strings.Contains(out, `"refusal_reason": "no_answer_model"`) || !strings.Contains(out, `"rewrite_source": "fallback"`) {
		t.Fatalf("follow-up: exit %d, stdout %q stderr %q", code, out, errOut)
	}
	for _, call := range fake.Calls() {
		if call != "GET /api/version" && call != "GET /api/tags" {
			t.Errorf("after /api/tags showed the model missing, ask sent %s", call)
		}
	}
}

func TestDoctorAndUsage(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	setup(t, fake.URL())
	code, out, _ := runCLI(t, "doctor")
	if code != 0 || strings.Count(out, "ok ") < 5 {
		t.Errorf("doctor exit %d:\n%s", code, out)
	}
	t.Setenv("FOOTNOTE_LLM_MODEL", "absent:1b")
	code, out, _ = runCLI(t, "doctor")
	if code == 0 || !strings.Contains(out, "fix: run `ollama pull absent:1b`") {
		t.Errorf("doctor should fail with a fix, exit %d:\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "ask"); code != 2 || !strings.Contains(errOut, "give a question") {
		t.Errorf("ask without a question: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "ingest", "/definitely/not/here"); code != 1 || !strings.Contains(errOut, "/definitely/not/here") {
		t.Errorf("missing path: exit %d %q", code, errOut)
	}
}

// TestUsageListsEveryVariableAndFormat: the help text names every variable
// of the configuration table and every format ingest reads.
func TestUsageListsEveryVariableAndFormat(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	if code != 0 {
		t.Fatalf("help exit %d", code)
	}
	for _, v := range config.Vars {
		if !strings.Contains(out, "  "+v.Name+"\n") {
			t.Errorf("usage does not list %s:\n%s", v.Name, out)
		}
	}
	for _, format := range []string{"md", "txt", "html", "pdf", "docx", "epub"} {
		if !strings.Contains(out, format) {
			t.Errorf("usage does not name the %s format", format)
		}
	}
}
