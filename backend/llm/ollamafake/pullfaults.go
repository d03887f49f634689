package ollamafake

import (
	"fmt"
	"net/http"
	"strings"
)

// OfflinePullError is the error line Ollama sends inside a pull stream when
// it cannot reach its registry (no network, no DNS), after "pulling manifest".
func OfflinePullError(model string) string {
	name, tag, ok := strings.Cut(model, ":")
	if !ok {
		tag = "latest"
	}
	return fmt.Sprintf(`pull model manifest: Get "https://registry.ollama.ai/v2/library/%s/manifests/%s": `+
		`dial tcp: lookup registry.ollama.ai on 127.0.0.53:53: server misbehaving`, name, tag)
}

// WithPullErrorAfter makes a pull fail after n progress lines with
// {"error":msg} inside the 200 stream, as Ollama does when the download
// breaks off; msg "" uses OfflinePullError for the pulled model.
func WithPullErrorAfter(n int, msg string) Option {
	if msg == "" {
		msg = "offline"
	}
	return func(c *config) { c.pullErrorAfter, c.pullError = n, msg }
}

// failPull ends a pull with the configured error: a line in the stream,
// or a 500 JSON body when the client asked for no stream.
func (s *Server) failPull(w http.ResponseWriter, rc *http.ResponseController, stream bool, model string) {
	msg := s.cfg.pullError
	if msg == "offline" {
		msg = OfflinePullError(model)
	}
	if !stream {
		writeError(w, http.StatusInternalServerError, msg)
		return
	}
	_ = writeLine(w, rc, map[string]string{"error": msg})
}
