package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// settingsLibrary sets up a data folder whose library has two passages
// about two different settings, answered through model.
func settingsLibrary(t *testing.T, model ollamafake.Responder) {
	t.Helper()
	fake := ollamafake.New(ollamafake.WithResponder(model))
	t.Cleanup(fake.Close)
	_, lib := setup(t, fake.URL())
	for _, name := range []string{"install.md", "broken.md", "photo.jpg"} {
		os.Remove(filepath.Join(lib, name))
	}
	files := map[string]string{
		"uploads.md": "# Uploads\n\nThe upload limit is 40 MB per file. Larger files are rejected with a message.\n",
		"cache.md":   "# Answer cache\n\nThe answer cache keeps answers for 30 days. After that they expire.\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
}

// TestAskShowsClaimVerdicts: a claim citing the passage about another
// setting is refused with unsupported_claim; ask prints which claim fails
// and why, ask --json carries the claims with verdicts and spans, and
// history and trace export keep the verdicts.
func TestAskShowsClaimVerdicts(t *testing.T) {
	settingsLibrary(t, ollamafake.CitingResponder("The upload limit is 40 MB per file", "answer cache"))
	t.Setenv("FOOTNOTE_VERIFICATION", "strict") // the default, warn, shows the answer with the claim marked
	const q = "What is the upload limit?"
	code, out, errOut := runCLI(t, "ask", q)
	if code != 0 {
		t.Fatalf("ask exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Not grounded: unsupported_claim", "0 of 1 claim verified", `✗ claim 1 "The upload limit is 40 MB per file [#`} {
		if !strings.Contains(out, want) {
			t.Errorf("ask output lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runCLI(t, "ask", "--json", q)
	if code != 0 {
		t.Fatalf("ask --json exit %d: %s", code, errOut)
	}
	var ans struct {
		Grounded      bool    `json:"grounded"`
		RefusalReason *string `json:"refusal_reason"`
		Claims        []struct {
			Claim struct {
				Text    string `json:"text"`
				Start   int    `json:"start"`
				End     int    `json:"end"`
				Markers []int  `json:"markers"`
			} `json:"claim"`
			Verdict string `json:"verdict"`
			Reason  string `json:"reason"`
			Results []struct {
				N    int `json:"n"`
				Span struct {
					Offsets struct{ Start, End int } `json:"offsets"`
					Text    string                   `json:"text"`
				} `json:"span"`
				Signals map[string]any `json:"signals"`
			} `json:"results"`
		} `json:"claims"`
		Verification struct {
			Mode        string `json:"mode"`
			Claims      int    `json:"claims"`
			Unsupported int    `json:"unsupported"`
			Failing     []int  `json:"failing"`
		} `json:"verification"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	if ans.Grounded || ans.RefusalReason == nil || *ans.RefusalReason != "unsupported_claim" {
		t.Errorf("grounded=%v reason=%v", ans.Grounded, ans.RefusalReason)
	}
	if len(ans.Claims) != 1 || ans.Claims[0].Verdict != "unsupported" || ans.Claims[0].Reason == "" || len(ans.Claims[0].Results) != 1 {
		t.Fatalf("claims: %+v", ans.Claims)
	}
	r := ans.Claims[0].Results[0]
	if r.Span.Text == "" || r.Span.Offsets.End <= r.Span.Offsets.Start || r.Signals["lexical"] == nil {
		t.Errorf("result lacks its span or signals: %+v", r)
	}
	if ans.Verification.Mode != "strict" || ans.Verification.Claims != 1 || ans.Verification.Unsupported != 1 || len(ans.Verification.Failing) != 1 {
		t.Errorf("verification: %+v", ans.Verification)
	}

	code, out, _ = runCLI(t, "history")
	if code != 0 || !strings.Contains(out, "not grounded: unsupported_claim · 0 of 1 claim verified") {
		t.Errorf("history does not show the verification state:\n%s", out)
	}
	code, out, _ = runCLI(t, "trace", "export", "--out", "-")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("trace export: exit %d, %d lines", code, len(lines))
	}
	var tl struct {
		Claims []struct {
			Verdict string `json:"verdict"`
		} `json:"claims"`
		Verification struct {
			Unsupported int `json:"unsupported"`
		} `json:"verification"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &tl); err != nil || len(tl.Claims) != 1 || tl.Claims[0].Verdict != "unsupported" || tl.Verification.Unsupported != 1 {
		t.Errorf("trace line lacks the verdicts: %v %s", err, lines[1])
	}
}

// TestAskFooterVerified: a claim citing the passage that states it prints
// the all-verified footer.
func TestAskFooterVerified(t *testing.T) {
	settingsLibrary(t, ollamafake.CitingResponder("The upload limit is 40 MB per file", "upload limit"))
	code, out, errOut := runCLI(t, "ask", "What is the upload limit?")
	if code != 0 || strings.Contains(out, "Not grounded") || !strings.Contains(out, "1 of 1 claim verified") || strings.Contains(out, "✗") {
		t.Errorf("exit %d (%s):\n%s", code, errOut, out)
	}
}
