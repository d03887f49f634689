package main

import (
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
	setup(t, fake.URL())
	_, out, _ := runCLI(t, "doctor")
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "ok   Footnote ") || !strings.HasSuffix(first, " "+version.Describe()) {
		t.Errorf("doctor's first line does not name the build:\n%s", out)
	}
}
