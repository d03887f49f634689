package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// keyRecorder is a loopback server in front of the fake that notes the
// Authorization header of every request.
type keyRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func newKeyRecorder(t *testing.T, h http.Handler) *keyRecorder {
	t.Helper()
	k := &keyRecorder{}
	k.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.auth = append(k.auth, r.Header.Get("Authorization"))
		k.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(k.Close)
	return k
}

func (k *keyRecorder) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.auth...)
}

// routes dials host:port pairs to loopback addresses and refuses the rest,
// so remote-looking names reach test servers and nothing leaves the machine.
func routes(tr *http.Transport, to map[string]string) *http.Transport {
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		target, ok := to[addr]
		if !ok {
			return nil, fmt.Errorf("test dialer: %s is not routed", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", target)
	}
	return tr
}

// TestKeyNeverOverPlainHTTPToAnotherMachine: a key with an http:// server
// on another machine is refused before any request; the same server
// without a key, and a loopback server with one, work; a redirect from an
// https server to http on the same name is not followed with the key.
func TestKeyNeverOverPlainHTTPToAnotherMachine(t *testing.T) {
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	plain := newKeyRecorder(t, fake)
	const key = "sk-test-secret"
	routed := &http.Client{Transport: routes(&http.Transport{}, map[string]string{"gpu-box.test:1234": plain.Listener.Addr().String()})}
	ctx := context.Background()

	_, err := New("http://gpu-box.test:1234/v1", key, routed)
	if !errors.Is(err, ErrKeyOverPlainHTTP) || !strings.Contains(err.Error(), "https://") || strings.Contains(err.Error(), key) {
		t.Fatalf("key for an http server on another machine: %v", err)
	}
	if got := plain.seen(); len(got) != 0 {
		t.Fatalf("requests went out anyway: %q", got)
	}

	noKey, err := New("http://gpu-box.test:1234/v1", "", routed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noKey.Models(ctx); err != nil {
		t.Fatalf("the routed server without a key: %v", err)
	}
	local, err := New(plain.URL, key, nil)
	if err != nil {
		t.Fatalf("a key for a loopback server: %v", err)
	}
	if _, err := local.Models(ctx); err != nil {
		t.Fatal(err)
	}
	if got := plain.seen(); len(got) != 2 || got[0] != "" || got[1] != "Bearer "+key {
		t.Fatalf("Authorization seen: %q", got)
	}

	// https://gpu-box.test redirects to http://gpu-box.test, which net/http
	// would follow with the key (same host name).
	redirector := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://gpu-box.test"+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	tr := redirector.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com" // the test certificate's name
	routes(tr, map[string]string{"gpu-box.test:443": redirector.Listener.Addr().String(), "gpu-box.test:80": plain.Listener.Addr().String()})
	secure, err := New("https://gpu-box.test/v1", key, &http.Client{Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := secure.Models(ctx); !errors.Is(err, ErrKeyOverPlainHTTP) {
		t.Errorf("redirect to plain http: %v", err)
	}
	if got := plain.seen(); len(got) != 2 {
		t.Errorf("the redirect reached the http server: %q", got[2:])
	}
}
