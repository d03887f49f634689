package llm

import (
	"fmt"
	"strings"
)

// ErrRegistryUnreachable: Ollama could not reach its model registry to
// download a model (the computer is offline, or DNS or a proxy fails).
var ErrRegistryUnreachable = fmt.Errorf("ollama cannot reach its model registry")

// registryNetworkFailures are the network failures Go (which Ollama is
// written in) reports when a download cannot start. Ollama sends them only
// as text inside the pull stream, so the text is all there is to classify.
var registryNetworkFailures = []string{
	"dial tcp", "lookup ", "no such host", "server misbehaving", "connection refused",
	"network is unreachable", "i/o timeout", "tls handshake timeout", "temporary failure in name resolution",
}

// pullError types an {"error":...} line of a pull stream: a failure to
// reach the registry also matches ErrRegistryUnreachable.
func pullError(se *StatusError) error {
	msg := strings.ToLower(se.ErrorMessage)
	for _, f := range registryNetworkFailures {
		if strings.Contains(msg, f) {
			return fmt.Errorf("%w: %w", ErrRegistryUnreachable, se)
		}
	}
	return se
}
