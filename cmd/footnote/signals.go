package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/footnote-app/footnote/backend/engine"
)

// stopSignal is the cancel cause when SIGINT or SIGTERM stops a command, so
// the process can exit with 128 + the signal's number, as shells expect.
type stopSignal struct{ sig syscall.Signal }

func (s stopSignal) Error() string { return "stopped by " + s.sig.String() }

// Is makes a signal stop count as a cancellation wherever the cause
// surfaces (the model clients return context.Cause), so the answer is
// stored as stopped rather than failed.
func (s stopSignal) Is(target error) bool { return target == context.Canceled }

// errAnswerStopped: the answer was stopped before it finished. It is stored
// (marked stopped), but a script must not mistake it for a finished one.
var errAnswerStopped = errors.New("the answer was stopped before it finished; what had arrived is kept in `footnote history`")

// signalContext is cancelled by the first SIGINT or SIGTERM, with a
// stopSignal cause. release stops catching the signals.
func signalContext() (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			if sig, ok := s.(syscall.Signal); ok {
				cancel(stopSignal{sig})
			} else {
				cancel(nil)
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// ingestStopped turns the error of an ingest, rescan or collection add that
// a signal stopped into a sentence saying what was kept; other errors pass
// through.
func ingestStopped(ctx context.Context, en *engine.Engine, sum engine.Summary, err error) error {
	if _, ok := signalExitCode(ctx); !ok {
		return err
	}
	pending := en.WatchState(context.WithoutCancel(ctx)).Pending
	return fmt.Errorf("stopped: the %d files indexed before the stop are kept and %d stay queued; run the same command again (or footnote rescan) to finish", sum.FilesIndexed, pending)
}

// signalExitCode is 128 + the signal that stopped the command (130 for
// SIGINT), or false when no signal did.
func signalExitCode(ctx context.Context) (int, bool) {
	var s stopSignal
	if errors.As(context.Cause(ctx), &s) {
		return 128 + int(s.sig), true
	}
	return 0, false
}
