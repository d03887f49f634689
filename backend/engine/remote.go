package engine

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/openai"
)

// ErrRemoteNotConfirmed matches a model server on another machine that
// nobody agreed to send passages to. Match it with errors.Is; errors.As
// with *RemoteServerError gives the server.
var ErrRemoteNotConfirmed = errors.New("sending passages to a model server on another machine was not confirmed")

// RemoteServerError refuses a model server that is not on this machine
// until the user confirms it: every question sends passages from their
// documents there.
type RemoteServerError struct {
	Server string // the server's base URL, as questions would be sent to it
}

func (e *RemoteServerError) Error() string {
	return fmt.Sprintf("The model server %s is not on this machine, and every question would send passages from your documents there; "+
		"confirm that server in Settings, or allow it with %s=1 (the CLI takes --allow-remote)", e.Server, config.EnvAllowRemote)
}

// Is makes errors.Is(err, ErrRemoteNotConfirmed) true.
func (e *RemoteServerError) Is(target error) bool { return target == ErrRemoteNotConfirmed }

// ModelServer returns the base URL questions are sent to under s: the
// Ollama host or the OpenAI-compatible base URL, normalised as the clients
// use it.
func ModelServer(s config.Settings) (string, error) {
	if s.Provider == config.ProviderOpenAI {
		u, err := openai.BaseURL(s.OpenAIBaseURL)
		if err != nil {
			return "", err
		}
		return u.String(), nil
	}
	u, err := llm.ParseHost(s.OllamaHost)
	if err != nil {
		return "", fmt.Errorf("the Ollama host %q is not valid: %w", s.OllamaHost, err)
	}
	return u.String(), nil
}

// SameServer reports whether two server URLs name the same machine and
// port over the same scheme; consent given for one covers the other.
func SameServer(a, b string) bool {
	ka, kb := serverKey(a), serverKey(b)
	return ka != "" && ka == kb
}

func serverKey(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// CheckRemoteConsent returns a *RemoteServerError when s sends questions to
// a server on another machine without consent: FOOTNOTE_ALLOW_REMOTE=1 or
// --allow-remote (s.AllowRemote), or a confirmed save naming that server
// (s.RemoteServerConsent). Loopback servers need none.
func CheckRemoteConsent(s config.Settings) error {
	server, err := ModelServer(s)
	if err != nil {
		return err
	}
	if !llm.IsRemoteURL(server) || s.AllowRemote || SameServer(s.RemoteServerConsent, server) {
		return nil
	}
	return &RemoteServerError{Server: server}
}

// remoteConsent holds the servers confirmed while the engine runs (a save
// in Settings), on top of the consent it started with.
type remoteConsent struct {
	mu        sync.Mutex
	confirmed []string
}

// ConfirmRemoteServer records that the user agreed to send passages to
// server, so a running engine that uses it answers without a restart.
func (e *Engine) ConfirmRemoteServer(server string) {
	e.remote.mu.Lock()
	defer e.remote.mu.Unlock()
	for _, c := range e.remote.confirmed {
		if SameServer(c, server) {
			return
		}
	}
	e.remote.confirmed = append(e.remote.confirmed, server)
}

// CheckRemoteServer is CheckRemoteConsent for the engine's settings and the
// servers confirmed since it started: a *RemoteServerError when questions
// would go to a model server on another machine nobody agreed to. Asking
// checks it; commands that send passages may call it before they start.
func (e *Engine) CheckRemoteServer() error {
	err := CheckRemoteConsent(e.cfg.Settings)
	var re *RemoteServerError
	if !errors.As(err, &re) {
		return err
	}
	e.remote.mu.Lock()
	defer e.remote.mu.Unlock()
	for _, c := range e.remote.confirmed {
		if SameServer(c, re.Server) {
			return nil
		}
	}
	return err
}
