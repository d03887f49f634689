package app

import (
	"strings"

	"github.com/wailsapp/wails/v2/pkg/logger"
)

// readyFalseAlarm is what Wails v2.12 logs as an error at every start of
// the development build: the browser's Wails runtime announces itself with
// "runtime:ready" over the dev server's socket, and the dev server hands the
// message to a dispatcher that only knows calls, events and window commands.
// The desktop window handles the same message itself, and nothing waits for
// it in a browser, so nothing has failed.
const readyFalseAlarm = "Unknown message from front end: runtime:ready"

// WailsLogger is Wails' default log without that false alarm, so an error
// in the app log is always a real one.
func WailsLogger() logger.Logger {
	return quietLogger{logger.NewDefaultLogger()}
}

type quietLogger struct{ logger.Logger }

func (l quietLogger) Error(message string) {
	if strings.Contains(message, readyFalseAlarm) {
		return
	}
	l.Logger.Error(message)
}
