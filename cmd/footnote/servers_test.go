package main

import (
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestDoctorFailsForDeadOpenAIServer: doctor checks the configured
// provider, so a dead OpenAI-compatible address fails (exit non-zero) with
// a fix naming the variable that set it, instead of "all ok" from Ollama.
func TestDoctorFailsForDeadOpenAIServer(t *testing.T) {
	fake := ollamafake.New() // Ollama is fine; the configured server is not
	defer fake.Close()
	setup(t, fake.URL())
	t.Setenv("FOOTNOTE_LLM_PROVIDER", "openai")
	t.Setenv("FOOTNOTE_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	code, out, _ := runCLI(t, "doctor")
	if code == 0 || !strings.Contains(out, "FAIL model server (OpenAI-compatible)") || !strings.Contains(out, "FOOTNOTE_OPENAI_BASE_URL") {
		t.Errorf("doctor exit %d:\n%s", code, out)
	}
	code, out, errOut := runCLI(t, "ask", "How do I install on Linux?")
	if code != 0 || !strings.Contains(errOut, "set FOOTNOTE_OPENAI_BASE_URL to where it runs") || !strings.Contains(errOut, "Answering with the passages that match") {
		t.Errorf("ask exit %d: stdout %q stderr %q", code, out, errOut)
	}
}

// TestPullOfflineIsOneSentence: when Ollama cannot reach its registry the
// pull stream fails after "pulling manifest"; the user reads one sentence
// saying so, not Go's DNS error.
func TestPullOfflineIsOneSentence(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithPullErrorAfter(1, ""))
	defer fake.Close()
	setup(t, fake.URL())
	code, out, errOut := runCLI(t, "pull", "qwen2.5:0.5b")
	last := errOut[strings.LastIndex(strings.TrimSpace(errOut), "\n")+1:]
	if code == 0 || strings.Contains(out, "ready") || !strings.Contains(last, "cannot reach its model registry") ||
		strings.Contains(last, "dial tcp") || strings.Count(strings.TrimSpace(last), ". ") > 0 {
		t.Errorf("pull offline: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}
