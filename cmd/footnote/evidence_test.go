package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A saved chat is searchable evidence only after `library treat-as-document`,
// and `--undo` keeps it out again; `library kept-out` says why.
func TestCLITreatAsDocument(t *testing.T) {
	setupLibrary(t)
	lib := t.TempDir()
	chat := filepath.Join(lib, "chat_transcript.txt")
	if err := os.WriteFile(chat, []byte("user: What is the zeppelin hangar height?\nassistant: The zeppelin hangar is 60 m high [#1].\ncitations: [#1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "hangar.md"), []byte("# Hangars\n\nThe zeppelin hangar is 55 m high.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum := summaryOf(t, "ingest", "--json", lib); sum["files_indexed"] != 2.0 || sum["files_kept_out"] != 1.0 {
		t.Fatalf("ingest: %v", sum)
	}
	if hits := searchPaths(t, "zeppelin hangar high"); strings.Contains(hits, chat) || !strings.Contains(hits, "hangar.md") {
		t.Fatalf("before the override:\n%s", hits)
	}
	code, out, errOut := runProcess(t, "library", "kept-out", "--json")
	var kept []struct {
		Path       string `json:"path"`
		Reason     string `json:"reason"`
		Overridden bool   `json:"overridden"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &kept) != nil || len(kept) != 1 || kept[0].Path != chat || kept[0].Reason == "" {
		t.Fatalf("kept-out: exit %d %s %s", code, out, errOut)
	}

	if code, out, errOut := runProcess(t, "library", "treat-as-document", chat); code != 0 || !strings.Contains(out, "treated as a document") {
		t.Fatalf("treat-as-document: exit %d %s %s", code, out, errOut)
	}
	if hits := searchPaths(t, "zeppelin hangar high"); !strings.Contains(hits, chat) {
		t.Fatalf("after the override the chat is not searchable:\n%s", hits)
	}
	if code, out, _ := runProcess(t, "library", "kept-out"); code != 0 || !strings.Contains(out, "treated as a document") {
		t.Fatalf("kept-out after override: %s", out)
	}
	// A rescan keeps the choice.
	if sum := summaryOf(t, "rescan", "--json"); sum["files_failed"] != 0.0 {
		t.Fatalf("rescan: %v", sum)
	}
	if hits := searchPaths(t, "zeppelin hangar high"); !strings.Contains(hits, chat) {
		t.Fatalf("the override did not survive a rescan:\n%s", hits)
	}

	if code, _, errOut := runProcess(t, "library", "treat-as-document", "--undo", chat); code != 0 {
		t.Fatalf("--undo: exit %d %s", code, errOut)
	}
	if hits := searchPaths(t, "zeppelin hangar high"); strings.Contains(hits, chat) {
		t.Fatalf("after --undo the chat is still evidence:\n%s", hits)
	}
	code, _, errOut = runProcess(t, "library", "treat-as-document", filepath.Join(lib, "nope.txt"))
	if code != 1 || !strings.Contains(errOut, "not in the index") {
		t.Fatalf("unknown file: exit %d %s", code, errOut)
	}
}
