package app

import (
	"net"
	"net/url"
	"strings"

	"github.com/footnote-app/footnote/backend/config"
)

// isRemote reports whether a model server URL points off this machine.
// Loopback is the default and expected; anything else is allowed but shown
// as remote, since questions and passages then leave the computer.
func isRemote(raw string) bool {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return false // unparseable: the connection check reports it instead
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// modelServer is the URL questions are sent to under the given settings.
func modelServer(s config.Settings, ollamaHost string) string {
	if s.Provider == config.ProviderOpenAI {
		return s.OpenAIBaseURL
	}
	return ollamaHost
}
