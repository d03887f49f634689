package ingest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// The programs ingest runs on a file (pdftotext, pdftoppm, tesseract) get
// the caps of the parser child (childCaps): its memory limit and its time
// budget for a file of that size. A program runs in a process group of
// its own, killed as a whole when it overruns either cap or when ingest is
// stopped. On Linux its address space is capped like the parser child's
// (what it maps at start plus twice the memory limit, set right after it
// starts) and its resident memory is watched; elsewhere only time is
// capped. Unbounded, pdftotext took 2.45 GB for 120 s on pdf.js's
// bomb_giant.pdf, a 123 KB JBIG2 bomb.

// childMemoryPoll is how often a program's resident memory is read.
const childMemoryPoll = 20 * time.Millisecond

// runCapped runs cmd, which must not have been started, under caps until it
// ends, ctx ends or a cap is hit. Its standard error is kept for the error
// it returns when the program fails; the error then matches ErrTooSlow
// (time), ErrUnsafe (memory) or ctx's error (stopped).
func runCapped(ctx context.Context, cmd *exec.Cmd, caps childCaps) error {
	name := filepath.Base(cmd.Path)
	var stderr *limitedBuffer
	if cmd.Stderr == nil {
		stderr = &limitedBuffer{limit: 4 << 10}
		cmd.Stderr = stderr
	}
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	pid := cmd.Process.Pid
	limitChildMemory(pid, caps.memory)
	exited := make(chan struct{})
	var why atomic.Value // "time", "memory" or "stopped"
	kill := func(reason string) {
		why.CompareAndSwap(nil, reason)
		killGroup(cmd)
	}
	go func() {
		timer := time.NewTimer(caps.timeout)
		defer timer.Stop()
		poll := time.NewTicker(childMemoryPoll)
		defer poll.Stop()
		for {
			select {
			case <-exited:
				return
			case <-ctx.Done():
				kill("stopped")
				return
			case <-timer.C:
				kill("time")
				return
			case <-poll.C:
				if rss := childRSS(pid); rss > caps.memory {
					kill("memory")
					return
				}
			}
		}
	}()
	err := cmd.Wait()
	close(exited)
	switch why.Load() {
	case "stopped":
		return stopped(ctx)
	case "time":
		return tooSlow("%s took longer than %s on this file, so it was stopped", name, caps.timeout.Round(time.Second))
	case "memory":
		return overLimit("%s ran out of memory on this file (limit %s), so it was stopped", name, humanBytes(caps.memory))
	}
	if err != nil {
		if stderr == nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if cause := brief(strings.TrimSpace(stderr.b.String())); cause != "" {
			return fmt.Errorf("%s: %w (%s)", name, err, cause)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
