package ollamafake

import (
	"net/http"
	"strings"
)

// ServerKind is which OpenAI-compatible server the fake impersonates. Each
// reports the context window it runs a model with in its own way, which is
// what these kinds reproduce; chat completions are served alike.
type ServerKind string

const (
	// KindOllama is Ollama: /api/* natively, /v1 for OpenAI clients; the
	// window is the Modelfile's num_ctx in /api/show, else that of the
	// loaded model in /api/ps (loads.go).
	KindOllama ServerKind = "ollama"
	// KindLlamaCpp is llama.cpp's llama-server: /v1 plus GET /props, whose
	// default_generation_settings.n_ctx is the window (-c); /v1/models
	// carries only the trained length in meta.n_ctx_train.
	KindLlamaCpp ServerKind = "llama.cpp"
	// KindLMStudio is LM Studio: /v1 plus GET /api/v0/models, whose entries
	// carry max_context_length and, once loaded, loaded_context_length.
	KindLMStudio ServerKind = "lmstudio"
	// KindVLLM is vLLM: /v1 only; /v1/models entries carry max_model_len.
	KindVLLM ServerKind = "vllm"
	// KindPlain is any other OpenAI-compatible server: /v1 only, and
	// nothing about the window it runs.
	KindPlain ServerKind = "plain"
)

// WithServerKind makes the fake answer as that kind of server (default
// KindOllama). Model.NumCtx (else DefaultNumCtx) is the window the other
// kinds report; they list model names exactly as given, without Ollama's
// ":latest".
func WithServerKind(k ServerKind) Option { return func(c *config) { c.kind = k } }

// servesPath reports whether this kind of server has the endpoint; the
// others answer a plain 404, as a server of another kind would.
func (s *Server) servesPath(path string) bool {
	switch s.cfg.kind {
	case KindLlamaCpp:
		return strings.HasPrefix(path, "/v1/") || path == "/props"
	case KindLMStudio:
		return strings.HasPrefix(path, "/v1/") || path == "/api/v0/models"
	case KindVLLM, KindPlain:
		return strings.HasPrefix(path, "/v1/")
	default:
		return path != "/props" && path != "/api/v0/models"
	}
}

// listedID is a model's id in /v1/models for this kind of server.
func (s *Server) listedID(m Model) string {
	if s.cfg.kind == KindOllama || s.cfg.kind == "" {
		return m.Name
	}
	return strings.TrimSuffix(m.Name, ":latest")
}

// openAIModelEntry is one /v1/models entry, with the extensions each kind adds.
func (s *Server) openAIModelEntry(m Model) map[string]any {
	e := map[string]any{"id": s.listedID(m), "object": "model", "created": s.started.Unix(), "owned_by": "library"}
	switch s.cfg.kind {
	case KindVLLM:
		e["owned_by"], e["root"], e["max_model_len"] = "vllm", s.listedID(m), m.runWindow()
	case KindLlamaCpp:
		e["owned_by"] = "llamacpp"
		e["meta"] = map[string]any{"vocab_type": 2, "n_vocab": 128256, "n_ctx_train": m.ContextLength, "n_embd": 2048, "size": m.Size}
	case KindLMStudio:
		e["owned_by"] = "organization_owner"
	}
	return e
}

// handleProps is llama-server's GET /props (the fields Footnote reads and
// a few beside them).
func (s *Server) handleProps(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	m := s.models[0] // llama-server serves one model
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": m.runWindow(), "params": map[string]any{"n_predict": -1, "temperature": 0.8}},
		"total_slots":                 1,
		"model_path":                  "/models/" + s.listedID(m) + ".gguf",
		"modalities":                  map[string]any{"vision": false, "audio": false},
		"build_info":                  "b6000-fake",
	})
}

// handleLMStudioModels is LM Studio's GET /api/v0/models.
func (s *Server) handleLMStudioModels(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	models := append([]Model(nil), s.models...)
	s.mu.Unlock()
	data := []map[string]any{}
	for _, m := range models {
		data = append(data, map[string]any{
			"id": s.listedID(m), "object": "model", "type": "llm", "publisher": "lmstudio-community", "arch": m.Family,
			"compatibility_type": "gguf", "quantization": m.QuantizationLevel, "state": "loaded",
			"max_context_length": m.ContextLength, "loaded_context_length": m.runWindow(),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}
