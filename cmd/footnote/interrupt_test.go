package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestAskInterruptedExitsWith130 runs `footnote ask` as a real process
// against a slowly streaming server, sends SIGINT once the answer has
// started, and expects exit code 130 and the stopped answer in history.
func TestAskInterruptedExitsWith130(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithEndlessReply(), ollamafake.WithTokenDelay(20*time.Millisecond))
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := cliProcess(t, ctx, "ask", "How do I install on Linux?")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the streamed answer to begin (the endless token), then interrupt.
	r := bufio.NewReader(stdout)
	var seen strings.Builder
	buf := make([]byte, 256)
	for !strings.Contains(seen.String(), ollamafake.EndlessToken) {
		n, err := r.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("the answer never started streaming (%v): %q %s", err, seen.String(), errb.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	seen.Write(rest)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("ask after SIGINT: %v (exit %d), want exit 130\nstdout %q\nstderr %q", err, cmd.ProcessState.ExitCode(), seen.String(), errb.String())
	}
	if !strings.Contains(seen.String(), "(stopped)") || !strings.Contains(errb.String(), "stopped before it finished") {
		t.Errorf("the stop is not said: stdout %q stderr %q", seen.String(), errb.String())
	}

	code, out, errOut := runCLI(t, "history", "--json")
	if code != 0 {
		t.Fatalf("history: exit %d %s", code, errOut)
	}
	var answers []struct {
		Stopped bool   `json:"stopped"`
		Answer  string `json:"answer"`
	}
	if err := json.Unmarshal([]byte(out), &answers); err != nil {
		t.Fatalf("history --json: %v\n%s", err, out)
	}
	if len(answers) != 1 || !answers[0].Stopped || !strings.Contains(answers[0].Answer, ollamafake.EndlessToken) {
		t.Errorf("the stopped answer is not stored as stopped: %s", out)
	}
}
