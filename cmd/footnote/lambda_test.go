package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// A question asked again gets a λ state, judged against its last answer,
// shown under the answer and written to the audit log.
func TestCLILambdaOfARepeatedQuestion(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	home, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	if code, out, errOut := runCLI(t, "ask", "How do I install on Linux?"); code != 0 || strings.Contains(out, "λ ") {
		t.Fatalf("first ask (the tiny model's ΔS cannot tell λ): exit %d %s %s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "ask", "--fresh", "How do I install on Linux?")
	if code != 0 || !regexp.MustCompile(`λ convergent: cites a section the last answer to this question cited too \(ans_cli-\d+, `).MatchString(out) {
		t.Fatalf("second ask: exit %d %s %s", code, out, errOut)
	}
	log, err := os.ReadFile(filepath.Join(home, "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if strings.Contains(l, "kind=question") {
			last = l
		}
	}
	if !strings.Contains(last, " lambda=convergent ") {
		t.Errorf("the repeat's question line: %s", last)
	}
}

// Citations are numbered by rank; when their scores do not fall in that
// order, the CLI says why.
func TestCitationOrderIsExplained(t *testing.T) {
	ans := engine.Answer{Model: "m", Grounded: true, Citations: []engine.Citation{
		{N: 1, Title: "Install", SectionID: "install/linux", ScoreNorm: 0.89, KFinal: 1},
		{N: 2, Title: "Install", SectionID: "install/windows", ScoreNorm: 0.90, KFinal: 2},
	}}
	var b bytes.Buffer
	printCitations(&b, ans)
	if !strings.Contains(b.String(), "(score 0.89, rank 1,") || !strings.Contains(b.String(), "Passages are numbered by rank") {
		t.Errorf("out of score order, unexplained:\n%s", b.String())
	}
	ans.Citations[1].ScoreNorm = 0.5
	b.Reset()
	printCitations(&b, ans)
	if strings.Contains(b.String(), "numbered by rank") {
		t.Errorf("in score order, explained anyway:\n%s", b.String())
	}
}
