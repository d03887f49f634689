package app

import (
	"testing"

	"github.com/wailsapp/wails/v2/pkg/logger"
)

// recordingLogger keeps the errors it is given.
type recordingLogger struct {
	logger.Logger
	errors []string
}

func (r *recordingLogger) Error(message string) { r.errors = append(r.errors, message) }

// TestWailsLoggerDropsOnlyTheReadyFalseAlarm: the two lines Wails' dev
// server logs for "runtime:ready" at every start are dropped; every other
// error, including another unknown message, still reaches the log.
func TestWailsLoggerDropsOnlyTheReadyFalseAlarm(t *testing.T) {
	rec := &recordingLogger{Logger: logger.NewDefaultLogger()}
	l := quietLogger{rec}
	l.Error("process message error: runtime:ready -> Unknown message from front end: runtime:ready")
	l.Error("Unknown message from front end: runtime:ready")
	l.Error("Unknown message from front end: Xsomething")
	l.Error("Websocket write message failed")
	want := []string{"Unknown message from front end: Xsomething", "Websocket write message failed"}
	if len(rec.errors) != len(want) || rec.errors[0] != want[0] || rec.errors[1] != want[1] {
		t.Fatalf("errors logged: %q, want %q", rec.errors, want)
	}
}
