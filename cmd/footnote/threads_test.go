package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// officeLibrary holds a document about the main office (opening, designer)
// and one about a garden that was also "designed", so a follow-up searched
// for as typed ("who designed it") can land on the wrong document.
func officeLibrary(t *testing.T, model ollamafake.Responder) *ollamafake.Server {
	t.Helper()
	fake := ollamafake.New(ollamafake.WithResponder(model))
	t.Cleanup(fake.Close)
	_, lib := setup(t, fake.URL())
	for _, name := range []string{"install.md", "broken.md", "photo.jpg"} {
		os.Remove(filepath.Join(lib, name))
	}
	files := map[string]string{
		"office.md": "# Main office\n\nThe main office opened in 1998 on Harbour Street.\n\n## Architect\n\nThe main office was designed by the architect Mara Lind.\n",
		"garden.md": "# Garden\n\nThe community garden was designed by volunteers in 2010.\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	return fake
}

type threadAskJSON struct {
	Question  string `json:"question"`
	ThreadID  string `json:"thread_id"`
	Turn      int    `json:"turn"`
	Grounded  bool   `json:"grounded"`
	Citations []struct {
		Path string `json:"path"`
		Text string `json:"text"`
	} `json:"citations"`
	Followup *struct {
		Standalone    string `json:"standalone"`
		RewriteSource string `json:"rewrite_source"`
		TurnsUsed     []int  `json:"turns_used"`
	} `json:"followup"`
}

func askThreadJSON(t *testing.T, args ...string) threadAskJSON {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"ask", "--json", "--fresh"}, args...)...)
	if code != 0 {
		t.Fatalf("ask %v: exit %d: %s", args, code, errOut)
	}
	var a threadAskJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	return a
}

// TestAskFollowUpsInThread: a question and two follow-ups in one thread.
// Each follow-up is rewritten by the model into a standalone question,
// which is searched for, stored and listed by `threads`.
func TestAskFollowUpsInThread(t *testing.T) {
	officeLibrary(t, ollamafake.DefaultResponder)
	first := askThreadJSON(t, "When was the main office opened?")
	if first.ThreadID == "" || first.Turn != 1 || first.Followup != nil {
		t.Fatalf("first question: thread %q turn %d followup %+v", first.ThreadID, first.Turn, first.Followup)
	}
	second := askThreadJSON(t, "--follow-up", "And who designed it?")
	if second.ThreadID != first.ThreadID || second.Turn != 2 || second.Followup == nil {
		t.Fatalf("follow-up not in the thread: %+v", second)
	}
	if second.Followup.Standalone != "Who designed the main office?" || second.Followup.RewriteSource != "model" {
		t.Errorf("rewrite = %+v", second.Followup)
	}
	citesArchitect := false
	for _, c := range second.Citations {
		citesArchitect = citesArchitect || strings.HasSuffix(c.Path, "office.md") && strings.Contains(c.Text, "Mara Lind")
	}
	if !citesArchitect {
		t.Errorf("follow-up cites %+v, want the office's architect passage", second.Citations)
	}
	third := askThreadJSON(t, "--thread", first.ThreadID, "Where is it?")
	if third.Turn != 3 || third.Followup == nil || !strings.Contains(third.Followup.Standalone, "the main office") {
		t.Fatalf("third turn: %+v", third)
	}
	if got := third.Followup.TurnsUsed; len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("turns used = %v, want [1 2]", got)
	}
	code, out, errOut := runCLI(t, "threads")
	if code != 0 || !strings.Contains(out, first.ThreadID) || !strings.Contains(out, "3 turn(s)") || !strings.Contains(out, "When was the main office opened?") {
		t.Errorf("threads: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "threads", "--show", first.ThreadID)
	if code != 0 || !strings.Contains(out, "Searched for: Who designed the main office? (model rewrite") {
		t.Errorf("threads --show:\n%s", out)
	}
	// The user's edit of the search is used as is.
	edited := askThreadJSON(t, "--follow-up", "--search-for", "main office Harbour Street opening year", "And when?")
	if edited.Followup == nil || edited.Followup.Standalone != "main office Harbour Street opening year" || edited.Followup.RewriteSource != "user" {
		t.Errorf("edited search: %+v", edited.Followup)
	}
}

// TestEarlierAnswerIsNeverEvidence: a model states a claim found in no
// document. Asked again as a follow-up, the claim cannot be supported: the
// earlier answer is not in the follow-up's rewrite or answer prompt, and the
// claim is not verified against anything.
func TestEarlierAnswerIsNeverEvidence(t *testing.T) {
	const claim = "The main office has twelve floors"
	fake := officeLibrary(t, ollamafake.CitingResponder(claim, "main office"))
	t.Setenv("FOOTNOTE_VERIFICATION", "strict") // refused, not only marked
	first := askThreadJSON(t, "When was the main office opened?")
	second := askThreadJSON(t, "--thread", first.ThreadID, "How many floors does it have?")
	if second.Followup == nil {
		t.Fatal("the second question was not a follow-up")
	}
	if second.Grounded {
		t.Errorf("an earlier answer's claim was accepted as grounded: %+v", second)
	}
	for _, req := range fake.Requests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "twelve floors") {
				t.Errorf("a prompt carried the earlier answer:\n%s", m.Content)
			}
		}
	}
	code, out, _ := runCLI(t, "ask", "--thread", first.ThreadID, "--fresh", "How many floors does it have?")
	if code != 0 || !strings.Contains(out, "Not grounded: unsupported_claim") {
		t.Errorf("exit %d, want the claim marked unsupported:\n%s", code, out)
	}
}
