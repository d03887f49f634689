package ollamafake

import (
	"cmp"
	"net/http"
	"slices"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
)

// Ollama keeps a model loaded between requests and loads it again when a
// request's runner options differ from the loaded ones; of those Footnote
// sets only num_ctx (server/sched.go needsReload). A request without
// num_ctx runs at the Modelfile's num_ctx, else the server's default
// (Model.runWindow), so leaving it out where another request set it costs a
// reload too. The fake keeps the same books: which models are loaded, with
// which window and until when, shown by GET /api/ps, and how many loads
// there were (Loads), so a test can tell that a run never reloaded.

// defaultKeepAlive is how long Ollama keeps an idle model loaded.
const defaultKeepAlive = 5 * time.Minute

// loadedModel is one model in memory.
type loadedModel struct {
	model   Model
	numCtx  int
	expires time.Time // zero: kept loaded forever (keep_alive < 0)
}

// Loads counts the times a model was loaded, first loads included.
func (s *Server) Loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads
}

// load makes m resident for a request that asks for numCtx (0: none) and
// keeps it for keepAlive (nil: the default); it reports the window the
// model runs with. The window is capped at the trained length, as Ollama
// does, so asking beyond it changes nothing.
func (s *Server) load(m Model, numCtx int, keepAlive *llm.Duration) int {
	if numCtx <= 0 {
		numCtx = m.runWindow()
	}
	numCtx = min(numCtx, m.ContextLength)
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.loaded[m.Name]
	if !ok || cur.numCtx != numCtx || (!cur.expires.IsZero() && now.After(cur.expires)) {
		s.loads++
		cur = &loadedModel{model: m, numCtx: numCtx}
		s.loaded[m.Name] = cur
	}
	switch {
	case keepAlive == nil:
		cur.expires = now.Add(defaultKeepAlive)
	case *keepAlive < 0:
		cur.expires = time.Time{}
	default:
		cur.expires = now.Add(time.Duration(*keepAlive))
	}
	return numCtx
}

// unload drops m from memory (keep_alive 0).
func (s *Server) unload(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.loaded, m.Name)
}

// handlePs is GET /api/ps: the loaded models, each with the window it was
// loaded with (context_length); an empty list when none is loaded.
func (s *Server) handlePs(w http.ResponseWriter, _ *http.Request) {
	now := time.Now()
	resp := llm.ProcessResponse{Models: []llm.ProcessModel{}}
	s.mu.Lock()
	for _, l := range s.loaded {
		if !l.expires.IsZero() && now.After(l.expires) {
			continue
		}
		expires := l.expires
		if expires.IsZero() {
			expires = now.AddDate(290, 0, 0) // what Ollama shows for "forever"
		}
		resp.Models = append(resp.Models, llm.ProcessModel{
			Name: l.model.Name, Model: l.model.Name, Size: l.model.Size, Digest: digest(l.model.Name),
			Details: details(l.model), ExpiresAt: expires.UTC(), ContextLength: l.numCtx,
		})
	}
	s.mu.Unlock()
	slices.SortFunc(resp.Models, func(a, b llm.ProcessModel) int { // longest to live first, as Ollama lists them
		return cmp.Or(b.ExpiresAt.Compare(a.ExpiresAt), cmp.Compare(a.Name, b.Name))
	})
	writeJSON(w, http.StatusOK, resp)
}
