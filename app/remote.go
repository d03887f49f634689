package app

import (
	"errors"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm"
)

// isRemote reports whether a model server URL points off this machine
// (anything but localhost, 127.0.0.0/8 and ::1): questions and passages
// then leave the computer.
func isRemote(raw string) bool { return llm.IsRemoteURL(raw) }

// modelServer is the URL questions are sent to under the given settings.
func modelServer(s config.Settings, ollamaHost string) string {
	if s.Provider == config.ProviderOpenAI {
		return s.OpenAIBaseURL
	}
	return ollamaHost
}

// confirmServer applies the rule for model servers off this machine to a
// save: saving one needs confirm (the user agreed in the dialog) unless
// that server was confirmed before. The consent is saved with the server,
// and cleared when a server on this machine is saved.
func (a *App) confirmServer(saved *config.Settings, confirm bool) error {
	server, err := engine.ModelServer(*saved)
	if err != nil {
		return err
	}
	switch {
	case !isRemote(server):
		saved.RemoteServerConsent = ""
	case confirm:
		saved.RemoteServerConsent = server
	case !engine.SameServer(saved.RemoteServerConsent, server):
		return &engine.RemoteServerError{Server: server}
	}
	return nil
}

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

// FormatError is the desktop app's error formatter for bound methods: an
// error is its sentence, except those the UI acts on, which become a
// UIError it recognises by code.
func FormatError(err error) any {
	var re *engine.RemoteServerError
	if errors.As(err, &re) {
		return UIError{Message: err.Error(), Code: CodeRemoteUnconfirmed, Server: re.Server}
	}
	return err.Error()
}
