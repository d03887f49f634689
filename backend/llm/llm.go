// Package llm owns Footnote's connection to the local language model: the
// Ollama wire types, a typed HTTP client for Ollama's native API, the LLM
// interface the answer pipeline generates through, and the mapping from
// client errors to one user-facing sentence (Describe).
package llm

import (
	"context"
	"errors"
	"strings"
)

// ChatFunc receives each streamed ChatResponse in order; the last one has
// Done set. Returning an error stops generation and is returned by Chat.
type ChatFunc func(ChatResponse) error

// LLM is what the answer pipeline needs from a model server. *Client
// implements it; tests can substitute anything that streams ChatResponses.
type LLM interface {
	Chat(ctx context.Context, req *ChatRequest, fn ChatFunc) error
}

// Sentinel errors; match them with errors.Is.
var (
	// ErrUnreachable: no Ollama server answered at the configured host.
	ErrUnreachable = errors.New("ollama is unreachable")
	// ErrModelNotFound: the requested model is not installed.
	ErrModelNotFound = errors.New("model not found")
	// ErrTruncatedStream: the stream ended before its done:true object, so
	// the answer received so far is incomplete.
	ErrTruncatedStream = errors.New("ollama stream ended before the answer was complete")
	// ErrMalformedStream: a stream line was not a JSON object, or was too long.
	ErrMalformedStream = errors.New("ollama sent a malformed stream")
	// ErrFirstTokenTimeout: nothing arrived within Client.FirstTokenTimeout.
	ErrFirstTokenTimeout = errors.New("ollama did not start answering in time")
	// ErrStreamStalled: the answer had started, then nothing more arrived
	// within Client.StreamIdleTimeout.
	ErrStreamStalled = errors.New("ollama stopped sending the answer")
)

// DescribedError is an error told in one sentence that says what to do,
// keeping the error it describes, so errors.Is and errors.As still find it.
type DescribedError struct {
	Sentence string
	Err      error
}

func (d *DescribedError) Error() string { return d.Sentence }
func (d *DescribedError) Unwrap() error { return d.Err }

// Describe turns an error from this package into one sentence for the user.
// host is the Ollama address shown to the user; model is the model that was
// requested. It returns "" for a nil error.
func Describe(err error, host, model string) string {
	var se *StatusError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "Generation stopped."
	case errors.Is(err, ErrUnreachable):
		if host == "" {
			host = DefaultHost
		}
		return "Ollama is not reachable at " + host + ". Start it with `ollama serve` (or set OLLAMA_HOST)."
	case errors.Is(err, ErrRegistryUnreachable):
		return "Ollama cannot reach its model registry to download \"" + model + "\", so check this computer's internet connection and try again."
	case errors.Is(err, ErrModelNotFound):
		return "The model \"" + model + "\" is not installed in Ollama. Run `ollama pull " + model + "` or pick another model."
	case errors.Is(err, ErrFirstTokenTimeout):
		return "Ollama did not start answering in time; the model may still be loading or the computer is busy. Try again, or pick a smaller model."
	case errors.Is(err, ErrStreamStalled):
		return "Ollama stopped sending the answer partway through, so Footnote kept what had arrived; try again, or pick a smaller model if the computer is busy."
	case errors.Is(err, ErrTruncatedStream):
		return "Ollama stopped before finishing the answer (the connection was cut). Try again."
	case errors.Is(err, ErrMalformedStream):
		return "Ollama sent a reply Footnote could not read. Check that OLLAMA_HOST points to an Ollama server."
	case errors.Is(err, context.DeadlineExceeded):
		return "Ollama did not answer in time. Try again."
	case errors.As(err, &se):
		msg := strings.TrimSuffix(strings.TrimSpace(se.ErrorMessage), ".")
		if msg == "" {
			msg = se.Status
		}
		return "Ollama reported an error: " + msg + "."
	default:
		return "The request to Ollama failed: " + strings.TrimSuffix(err.Error(), ".") + "."
	}
}
