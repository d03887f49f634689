package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/llm/openai"
	"github.com/footnote-app/footnote/backend/rag"
)

// routedClient reaches target (a loopback server) under the given host
// names and refuses every other address, so a test can use remote-looking
// servers while no traffic leaves the machine.
func routedClient(target string, names ...string) *http.Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil || !slices.Contains(names, host) {
			return nil, fmt.Errorf("test dialer: %s is not routed", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", target)
	}}
	return &http.Client{Transport: tr}
}

// remoteEngine is an indexed engine whose Ollama host is gpu-box.test,
// routed by hc.
func remoteEngine(t *testing.T, hc *http.Client, adjust func(*config.Settings)) *Engine {
	t.Helper()
	en := newEngineWith(t, "http://gpu-box.test:11434", adjust, WithEmbedder(loadTestEmbedder(t)), WithHTTPClient(hc))
	if _, err := en.Ingest(context.Background(), []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	return en
}

// TestRemoteModelServerNeedsConsent: a model server on another machine
// gets no question — nothing is retrieved, stored or sent — until the user
// confirmed that server in Settings or allowed remote servers for the
// process; a loopback server needs nothing.
func TestRemoteModelServerNeedsConsent(t *testing.T) {
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	hc := routedClient(strings.TrimPrefix(fake.URL(), "http://"), "gpu-box.test")
	openaiAt := func(url string) func(*config.Settings) {
		return func(s *config.Settings) { s.Provider, s.OpenAIBaseURL = config.ProviderOpenAI, url }
	}
	cases := []struct {
		name    string
		adjust  func(*config.Settings)
		refused string // the server named in the refusal; "" when allowed
	}{
		{"ollama host, no consent", nil, "http://gpu-box.test:11434"},
		{"consent for another server", func(s *config.Settings) { s.RemoteServerConsent = "http://other-box.test:11434" }, "http://gpu-box.test:11434"},
		{"consent over https does not cover http", func(s *config.Settings) { s.RemoteServerConsent = "https://gpu-box.test:11434" }, "http://gpu-box.test:11434"},
		{"confirmed in settings", func(s *config.Settings) { s.RemoteServerConsent = "http://GPU-box.test:11434/" }, ""},
		{"allowed for the process", func(s *config.Settings) { s.AllowRemote = true }, ""},
		{"openai base url, no consent", openaiAt("http://gpu-box.test:1234"), "http://gpu-box.test:1234/v1"},
		{"openai base url, confirmed", func(s *config.Settings) {
			openaiAt("http://gpu-box.test:1234/v1")(s)
			s.RemoteServerConsent = "http://gpu-box.test:1234/v1"
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			en := remoteEngine(t, hc, tc.adjust)
			ctx := context.Background()
			before := len(fake.Requests())
			ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil)
			stored, serr := en.index().Answers(ctx, 0)
			if serr != nil {
				t.Fatal(serr)
			}
			if tc.refused == "" {
				if err != nil || !ans.Grounded || len(fake.Requests()) != before+1 {
					t.Fatalf("confirmed server not asked: err %v, grounded %v", err, ans.Grounded)
				}
				return
			}
			var re *RemoteServerError
			if !errors.Is(err, ErrRemoteNotConfirmed) || !errors.As(err, &re) || re.Server != tc.refused {
				t.Fatalf("want a refusal naming %s, got %v", tc.refused, err)
			}
			if !strings.Contains(err.Error(), "passages from your documents") || !strings.Contains(err.Error(), config.EnvAllowRemote) {
				t.Errorf("refusal does not say what would be sent and how to allow it: %q", err)
			}
			if n := len(fake.Requests()); n != before {
				t.Errorf("%d requests reached the unconfirmed server", n-before)
			}
			if len(stored) != 0 {
				t.Errorf("a refused question stored %d answers", len(stored))
			}
			if err := en.CheckAnswerModel(ctx); !errors.Is(err, ErrRemoteNotConfirmed) {
				t.Errorf("CheckAnswerModel: %v", err)
			}
			// Confirming the running server (a save in Settings) lets it answer at once.
			en.ConfirmRemoteServer(re.Server)
			if ans, err := en.Ask(ctx, rag.Request{ID: "q2", Question: question}, nil); err != nil || !ans.Grounded {
				t.Errorf("after confirming: %v", err)
			}
		})
	}
}

// authRecorder serves the fake behind a record of the Authorization header
// of every request.
type authRecorder struct {
	mu   sync.Mutex
	auth []string
}

func (a *authRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.auth = append(a.auth, r.Header.Get("Authorization"))
		a.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (a *authRecorder) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.auth)
}

// TestAPIKeyNeverSentOverPlainHTTP: with an API key set and remote
// servers allowed, an OpenAI-compatible server on another machine reached
// over http:// is refused with a clear error before any request; the
// Ollama provider never sends the key at all; a loopback server still gets
// it.
func TestAPIKeyNeverSentOverPlainHTTP(t *testing.T) {
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	var rec authRecorder
	addr := strings.TrimPrefix(serve(t, rec.wrap(fake).ServeHTTP), "http://")
	hc := routedClient(addr, "gpu-box.test", "127.0.0.1")
	const key = "sk-test-secret"
	withKey := func(provider, url string) func(*config.Settings) {
		return func(s *config.Settings) {
			s.AllowRemote, s.OpenAIAPIKey = true, key
			if provider == config.ProviderOpenAI {
				s.Provider, s.OpenAIBaseURL = provider, url
			}
		}
	}
	ctx := context.Background()

	t.Run("openai over http to another machine", func(t *testing.T) {
		en := remoteEngine(t, hc, withKey(config.ProviderOpenAI, "http://gpu-box.test:1234/v1"))
		before := len(rec.seen())
		if err := en.CheckAnswerModel(ctx); !errors.Is(err, openai.ErrKeyOverPlainHTTP) || !strings.Contains(err.Error(), "https://") {
			t.Errorf("CheckAnswerModel: %v", err)
		}
		_, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil)
		if err == nil || !strings.Contains(err.Error(), "unencrypted") {
			t.Errorf("ask: %v", err)
		}
		if n := len(rec.seen()); n != before {
			t.Errorf("%d requests went out although the key must not travel over http", n-before)
		}
	})
	t.Run("ollama never sends the key", func(t *testing.T) {
		en := remoteEngine(t, hc, withKey(config.ProviderOllama, ""))
		before := len(rec.seen())
		if ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil); err != nil || !ans.Grounded {
			t.Fatalf("ask: %v", err)
		}
		got := rec.seen()[before:]
		if len(got) == 0 || slices.ContainsFunc(got, func(a string) bool { return a != "" }) {
			t.Errorf("Authorization headers sent to Ollama: %q", got)
		}
	})
	t.Run("openai on this machine gets the key", func(t *testing.T) {
		en := remoteEngine(t, hc, withKey(config.ProviderOpenAI, "http://"+addr+"/v1"))
		before := len(rec.seen())
		if ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, nil); err != nil || !ans.Grounded {
			t.Fatalf("ask: %v", err)
		}
		got := rec.seen()[before:]
		if len(got) == 0 || got[len(got)-1] != "Bearer "+key {
			t.Errorf("loopback server got Authorization %q", got)
		}
	})
}
