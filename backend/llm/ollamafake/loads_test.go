package ollamafake_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// recordedPs reads the context_length of the one model in a recorded
// /api/ps answer.
func recordedPs(t *testing.T, dir string) int {
	t.Helper()
	rec := loadTranscript(t, filepath.Join("testdata", dir, "10_ps.txt"))
	var ps llm.ProcessResponse
	if err := json.Unmarshal(rec.body, &ps); err != nil || len(ps.Models) != 1 {
		t.Fatalf("recorded ps: %v, %s", err, rec.body)
	}
	return ps.Models[0].ContextLength
}

func psWindow(t *testing.T, srv *ollamafake.Server) (int, bool) {
	t.Helper()
	resp, body := replay(t, srv, http.MethodGet, "/api/ps", "")
	var ps llm.ProcessResponse
	if resp.StatusCode != 200 || json.Unmarshal(body, &ps) != nil {
		t.Fatalf("ps: %d %s", resp.StatusCode, body)
	}
	return ps.LoadedWindow("tiny")
}

func chat(t *testing.T, srv *ollamafake.Server, options string) {
	t.Helper()
	body := `{"model":"tiny","stream":false,"messages":[{"role":"user","content":"hi"}]` + options + `}`
	if resp, b := replay(t, srv, http.MethodPost, "/api/chat", body); resp.StatusCode != 200 {
		t.Fatalf("chat: %d %s", resp.StatusCode, b)
	}
}

// TestLoadedWindowAndReloads: like the recorded servers, the fake lists a
// model in /api/ps only once a request loaded it, with the Modelfile's
// num_ctx when the request set none (2048 in the recordings, whose model
// had PARAMETER num_ctx 2048), and loads it again whenever a request asks
// for another num_ctx — the reload every follow-up used to cost.
func TestLoadedWindowAndReloads(t *testing.T) {
	for _, dir := range []string{"ollama-0.24.0", "ollama-0.33.0-rc2"} {
		t.Run(dir, func(t *testing.T) {
			srv := tinyServer(t, strings.TrimPrefix(dir, "ollama-"))
			if n, loaded := psWindow(t, srv); loaded {
				t.Fatalf("nothing asked yet, but ps lists tiny at %d", n)
			}
			chat(t, srv, "")
			if n, _ := psWindow(t, srv); n != recordedPs(t, dir) || srv.Loads() != 1 {
				t.Errorf("after a chat without num_ctx: ps %d (recorded %d), %d loads", n, recordedPs(t, dir), srv.Loads())
			}
			steps := []struct {
				options   string
				window    int
				loadsThen int
			}{
				{`,"options":{"num_ctx":2048}`, 2048, 1},  // the same window: no reload
				{`,"options":{"num_ctx":3072}`, 3072, 2},  // another: reload
				{`,"options":{"num_ctx":3072}`, 3072, 2},  // kept
				{``, 2048, 3},                             // none: back to the Modelfile's, reload
				{`,"options":{"num_ctx":65536}`, 4096, 4}, // capped at the trained length
				{`,"options":{"num_ctx":65536}`, 4096, 4},
			}
			for i, st := range steps {
				chat(t, srv, st.options)
				if n, _ := psWindow(t, srv); n != st.window || srv.Loads() != st.loadsThen {
					t.Errorf("step %d (%s): ps %d, %d loads; want %d, %d", i, st.options, n, srv.Loads(), st.window, st.loadsThen)
				}
			}
			replay(t, srv, http.MethodPost, "/api/generate", `{"model":"tiny","keep_alive":0}`)
			if n, loaded := psWindow(t, srv); loaded {
				t.Errorf("keep_alive 0 should unload, ps still lists tiny at %d", n)
			}
		})
	}
}

// TestModelWithoutModelfileWindow: a model pulled from the library sets no
// num_ctx, so /api/show lists none and the server's default applies.
func TestModelWithoutModelfileWindow(t *testing.T) {
	srv := ollamafake.New(ollamafake.WithModels(ollamafake.Model{Name: "tiny", ContextLength: 131072}))
	t.Cleanup(srv.Close)
	resp, body := replay(t, srv, http.MethodPost, "/api/show", `{"model":"tiny"}`)
	var show llm.ShowResponse
	if resp.StatusCode != 200 || json.Unmarshal(body, &show) != nil {
		t.Fatalf("show: %d %s", resp.StatusCode, body)
	}
	if n, ok := show.NumCtxParameter(); ok || strings.Contains(show.Modelfile, "num_ctx") {
		t.Errorf("no Modelfile num_ctx was set, show says %d: %q", n, show.Parameters)
	}
	chat(t, srv, "")
	if n, _ := psWindow(t, srv); n != ollamafake.DefaultNumCtx {
		t.Errorf("loaded at %d, want the default %d", n, ollamafake.DefaultNumCtx)
	}
}
