package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestReentrySpecificationExample is the re-entry specification's minimal
// case, run as a user would: its corpus chunk p1#1 as a document and its
// model chunk chat:42 as a note saved beside it. The note is indexed but
// kept out of evidence with its reason, and "Does X support null keys?" is
// answered from the document alone, never from the note.
func TestReentrySpecificationExample(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	setupLibrary(t)
	t.Setenv("OLLAMA_HOST", fake.URL())
	t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
	lib := t.TempDir()
	note := filepath.Join(lib, "chat-42.txt")
	for path, body := range map[string]string{
		filepath.Join(lib, "x.md"): "# X\n\nX is a constrained mapping. It rejects null keys.\n",
		note:                       "(assistant) X supports null keys. citations: [p1#1]\n",
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if sum := summaryOf(t, "ingest", "--json", lib); sum["files_indexed"] != 2.0 || sum["files_kept_out"] != 1.0 {
		t.Fatalf("ingest: %v", sum)
	}
	code, out, errOut := runProcess(t, "library", "kept-out", "--json")
	var kept []struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &kept) != nil || len(kept) != 1 || kept[0].Path != note ||
		!strings.Contains(kept[0].Reason, "an assistant turn with citations") {
		t.Fatalf("kept-out: exit %d %s %s", code, out, errOut)
	}
	code, out, errOut = runProcess(t, "ask", "--json", "Does X support null keys?")
	var ans struct {
		Grounded  bool             `json:"grounded"`
		Answer    string           `json:"answer"`
		Evidence  []map[string]any `json:"evidence"`
		Nearest   []map[string]any `json:"nearest"`
		Sources   map[string]int   `json:"evidence_source_counts"`
		Citations []map[string]any `json:"citations"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &ans) != nil {
		t.Fatalf("ask: exit %d %s %s", code, out, errOut)
	}
	for _, c := range append(ans.Evidence, ans.Nearest...) {
		if c["path"] == note {
			t.Errorf("the model's note reached the evidence: %v", c)
		}
	}
	if strings.Contains(strings.ToLower(ans.Answer), "supports null keys") || ans.Sources["model"] != 0 {
		t.Errorf("answered from the note: %q (sources %v)", ans.Answer, ans.Sources)
	}
	if !ans.Grounded || len(ans.Citations) == 0 || ans.Citations[0]["path"] != filepath.Join(lib, "x.md") {
		t.Errorf("want a grounded answer citing x.md: %+v", ans)
	}
}
