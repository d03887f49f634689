package llm

import (
	"net"
	"net/url"
	"strings"
)

// IsLoopbackHost reports whether host — a name or an IP address without a
// port, as url.URL.Hostname returns it — names this machine: "localhost",
// an address in 127.0.0.0/8, or ::1. Every other name counts as another
// machine, since DNS may resolve it anywhere (0.0.0.0 too: it is a bind
// address, not where a client should send documents).
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsRemoteURL reports whether a model server's base URL points off this
// machine. A URL without a scheme is read as http://; one that cannot be
// parsed, or names no host, counts as remote.
func IsRemoteURL(raw string) bool {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	return err != nil || u.Hostname() == "" || !IsLoopbackHost(u.Hostname())
}
