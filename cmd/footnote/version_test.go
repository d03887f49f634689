package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/version"
)

// `footnote --version` and doctor name the build; a build the Makefile did
// not stamp (this test binary) says so rather than claiming a release. The
// stamped form is checked on the installed package (scripts/install-test.sh).
func TestVersionAndDoctorNameTheBuild(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, out, _ := runCLI(t, arg)
		if code != 0 || !regexp.MustCompile(`^footnote dev\S* \(\w+/\w+, go[^;]+; not stamped: built without the Makefile\)\n$`).MatchString(out) {
			t.Errorf("footnote %s: exit %d, %q", arg, code, out)
		}
	}
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	_, out, _ := runCLI(t, "doctor")
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "ok   Footnote ") || !strings.HasSuffix(first, " "+version.Describe()) {
		t.Errorf("doctor's first line does not name the build:\n%s", out)
	}

	// history --json names the build that wrote each stored answer.
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	if code, _, errOut := runCLI(t, "ask", "How do I install on Linux?"); code != 0 {
		t.Fatalf("ask: %s", errOut)
	}
	code, out, errOut := runCLI(t, "history", "--json", "-n", "1")
	var history []struct {
		Version string `json:"footnote_version"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &history) != nil || len(history) != 1 {
		t.Fatalf("history --json: exit %d %s\n%s", code, errOut, out)
	}
	if history[0].Version != version.String() {
		t.Errorf("history --json names the build %q, want %q", history[0].Version, version.String())
	}
}
