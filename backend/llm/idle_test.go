package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestStreamIdleTimeout: a stream that stalls after some tokens ends within
// the idle timeout with ErrStreamStalled, the tokens that arrived are
// delivered, and the server sees the client leave.
func TestStreamIdleTimeout(t *testing.T) {
	srv, c := newFake(t, fixed("To", " install", ",", " run", " it."), ollamafake.WithStallAfter(2, time.Minute))
	c.StreamIdleTimeout = 150 * time.Millisecond
	start := time.Now()
	got, err := collect(ctxTimeout(t, 10*time.Second), c, question(ollamafake.DefaultModel))
	if !errors.Is(err, llm.ErrStreamStalled) {
		t.Fatalf("err = %v, want ErrStreamStalled", err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrFirstTokenTimeout) {
		t.Errorf("a stall must read as neither a user cancel nor a slow start: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to give up on a stalled stream", d)
	}
	if text(got) != "To install" {
		t.Errorf("tokens before the stall = %q, want %q", text(got), "To install")
	}
	d := llm.Describe(err, c.Host(), "m")
	if !strings.Contains(d, "stopped sending the answer partway") || strings.Contains(d, "\n") {
		t.Errorf("Describe = %q", d)
	}
	if err := srv.WaitCancelled(ctxTimeout(t, 5*time.Second), 1); err != nil {
		t.Fatal(err)
	}
}

// TestStreamIdleTimeoutSparesSlowStreams: the timeout is per gap, not per
// answer, and does not cover the wait for the first token (model loading).
func TestStreamIdleTimeoutSparesSlowStreams(t *testing.T) {
	srv, c := newFake(t, fixed("a", " b", " c", " d", " e", " f"),
		ollamafake.WithFirstTokenStall(300*time.Millisecond), ollamafake.WithTokenDelay(60*time.Millisecond))
	c.StreamIdleTimeout = 200 * time.Millisecond // < first-token wait, > each gap, < whole answer
	got, err := collect(ctxTimeout(t, 10*time.Second), c, question(ollamafake.DefaultModel))
	if err != nil || text(got) != "a b c d e f" {
		t.Fatalf("slow but flowing stream: %q, %v", text(got), err)
	}
	if srv.Cancelled() != 0 {
		t.Errorf("Cancelled = %d", srv.Cancelled())
	}

	// Disabled (0): a stall is waited out and the answer completes.
	_, c0 := newFake(t, fixed("x", " y", " z"), ollamafake.WithStallAfter(1, 300*time.Millisecond))
	c0 = c0.WithStreamIdleTimeout(0)
	got, err = collect(ctxTimeout(t, 10*time.Second), c0, question(ollamafake.DefaultModel))
	if err != nil || text(got) != "x y z" {
		t.Fatalf("idle timeout off: %q, %v", text(got), err)
	}
}
