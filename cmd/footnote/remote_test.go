package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// routeModelServer sends the CLI's model server requests for host to the
// loopback fake (and nowhere else) until the test ends.
func routeModelServer(t *testing.T, fake *ollamafake.Server, host string) {
	t.Helper()
	target := strings.TrimPrefix(fake.URL(), "http://")
	modelHTTPClient = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if h, _, _ := net.SplitHostPort(addr); h != host {
			return nil, fmt.Errorf("test dialer: %s is not routed", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", target)
	}}}
	t.Cleanup(func() { modelHTTPClient = nil })
}

// TestRemoteServerNeedsAllowRemote: with OLLAMA_HOST naming another
// machine, ask and eval refuse before anything reaches it and say to add
// --allow-remote; with the flag (or FOOTNOTE_ALLOW_REMOTE=1) they answer.
func TestRemoteServerNeedsAllowRemote(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, "http://gpu-box.test:11434")
	routeModelServer(t, fake, "gpu-box.test")
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	gold := filepath.Join(t.TempDir(), "gold.json")
	qa := `[{"qid": "q1", "q": "How do I install on Linux?", "answerable": true, "gold_ids": ["install/install/linux"], "gold_claim": "AppImage"}]`
	if err := os.WriteFile(gold, []byte(qa), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ask", "How do I install on Linux?"}, {"eval", "--qaset", gold}} {
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "http://gpu-box.test:11434 is not on this machine") || !strings.Contains(errOut, "--allow-remote") {
			t.Errorf("%s without --allow-remote: exit %d, %q", args[0], code, errOut)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d chat requests reached the unconfirmed server", n)
	}
	if code, out, _ := runCLI(t, "history", "--json"); code != 0 || strings.Contains(out, "question") {
		t.Errorf("a refused question was stored: %s", out)
	}

	code, out, errOut := runCLI(t, "ask", "--allow-remote", "How do I install on Linux?")
	if code != 0 || !strings.Contains(out, "[#1]") || len(fake.Requests()) != 1 {
		t.Fatalf("ask --allow-remote: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Setenv("FOOTNOTE_ALLOW_REMOTE", "1") // (the repeated question may come from the answer cache)
	if code, _, errOut := runCLI(t, "ask", "How do I install on Linux?"); code != 0 || strings.Contains(errOut, "not on this machine") {
		t.Fatalf("ask with FOOTNOTE_ALLOW_REMOTE=1: exit %d %s", code, errOut)
	}
}

// TestAskShowsTheLengthNote: an answer cut at max_answer_tokens is printed
// with the note saying so, and is not a failure.
func TestAskShowsTheLengthNote(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithEndlessReply())
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	t.Setenv("FOOTNOTE_MAX_ANSWER_TOKENS", "20")
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	code, out, errOut := runCLI(t, "ask", "How do I install on Linux?")
	if code != 0 || !strings.Contains(out, "Not grounded: length_limit") ||
		!strings.Contains(out, "Incomplete: The answer was cut off at the answer-length limit of 20 tokens, so it is incomplete;") {
		t.Fatalf("ask: exit %d\n%s\n%s", code, out, errOut)
	}
	if fmt.Sprint(fake.Requests()[0].Options["num_predict"]) != "20" {
		t.Errorf("num_predict sent: %v", fake.Requests()[0].Options)
	}
}
