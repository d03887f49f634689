package main

import (
	"encoding/json"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestCLIUsesSavedSwitches: the retrieval mode and answer cache switch
// saved from the app's settings apply to the CLI too, and flags override.
func TestCLIUsesSavedSwitches(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Settings.RetrievalMode, cfg.Settings.AnswerCache = "lexical", false
	if err := cfg.Save(); err != nil {
		t.Fatal(err)
	}
	search := func(args ...string) (mode string, retrievers []string) {
		t.Helper()
		code, out, errOut := runCLI(t, append([]string{"search", "--json", "install linux"}, args...)...)
		if code != 0 {
			t.Fatalf("search %v: exit %d: %s", args, code, errOut)
		}
		var res struct {
			Mode       string   `json:"mode"`
			Retrievers []string `json:"retrievers"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res.Mode, res.Retrievers
	}
	if mode, rs := search(); mode != "lexical" || len(rs) != 1 || rs[0] != "lexical" {
		t.Errorf("saved mode: search ran %q with %v, want lexical only", mode, rs)
	}
	if mode, _ := search("--mode", "hybrid"); mode != "hybrid" {
		t.Errorf("--mode hybrid ran %q", mode)
	}
	for i := range 2 {
		code, out, errOut := runCLI(t, "ask", "--json", "How do I install on Linux?")
		if code != 0 {
			t.Fatalf("ask %d: exit %d: %s", i, code, errOut)
		}
		var ans map[string]any
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatal(err)
		}
		if ans["cache"] != nil {
			t.Fatalf("ask %d was served from the answer cache although the saved setting turns it off", i)
		}
	}
}
