package app

import (
	"errors"

	"github.com/footnote-app/footnote/backend/engine"
)

// CodeRemoteUnconfirmed marks a save refused until the user confirms that
// passages may be sent to a model server on another machine.
const CodeRemoteUnconfirmed = "remote_server_unconfirmed"

// UIError is how a binding's error reaches the UI when the UI acts on it:
// the sentence, a code and what the code is about.
type UIError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Server  string `json:"server,omitempty"`
}

// FormatError is the desktop app's error formatter for bound methods, and
// the one place an error becomes text for the UI: an error is its
// sentence, except those the UI acts on, which become a UIError it
// recognises by code. Everything below keeps the cause, so errors.Is and
// errors.As work up to here.
func FormatError(err error) any {
	var re *engine.RemoteServerError
	if errors.As(err, &re) {
		return UIError{Message: userText(err), Code: CodeRemoteUnconfirmed, Server: re.Server}
	}
	return userText(err)
}

// userText is the sentence the UI shows for err, in bound methods' results
// (FormatError) and in answer:error events alike.
func userText(err error) string { return err.Error() }

// userError tells err to the user as sentence, keeping err as the cause.
func userError(sentence string, err error) error {
	return &engine.DescribedError{Sentence: sentence, Err: err}
}
