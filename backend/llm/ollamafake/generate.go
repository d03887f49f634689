package ollamafake

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
)

// generateResponse mirrors Ollama's /api/generate objects (field order too).
type generateResponse struct {
	Model      string    `json:"model"`
	CreatedAt  time.Time `json:"created_at"`
	Response   string    `json:"response"`
	Done       bool      `json:"done"`
	DoneReason string    `json:"done_reason,omitempty"`
	Context    []int     `json:"context,omitempty"`
	llm.Metrics
}

// frameFunc builds one wire object: a token (done false) or the final
// object, whose content is "" when streaming and the whole reply otherwise.
type frameFunc func(content string, done bool, reason string, m llm.Metrics) any

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req llm.ChatRequest
	if !decode(w, r, &req) {
		return
	}
	s.noteRequest(req)

	m, ok := s.admit(w, req.Model, req.Options)
	if !ok {
		return
	}
	if len(req.Messages) == 0 { // Ollama's way to load or unload a model
		s.loadOnly(m, req.Options, req.KeepAlive)
		writeJSON(w, http.StatusOK, llm.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: llm.Message{Role: "assistant"}, Done: true, DoneReason: loadReason(req.KeepAlive),
		})
		return
	}
	s.run(w, r, req, m, func(content string, done bool, reason string, mt llm.Metrics) any {
		return llm.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: llm.Message{Role: "assistant", Content: content},
			Done:    done, DoneReason: reason, Metrics: mt,
		}
	})
}

func (s *Server) handleGenerate(w http.ResponseWriter, r *http.Request) {
	// Named like Ollama's type so decode errors read the same
	// ("... Go struct field GenerateRequest.stream of type bool").
	type GenerateRequest struct {
		Model     string          `json:"model"`
		Prompt    string          `json:"prompt"`
		System    string          `json:"system"`
		Template  string          `json:"template"`
		Context   []int           `json:"context"`
		Stream    *bool           `json:"stream"`
		Raw       bool            `json:"raw"`
		Format    json.RawMessage `json:"format"`
		KeepAlive *llm.Duration   `json:"keep_alive"`
		Options   map[string]any  `json:"options"`
	}
	var req GenerateRequest
	if !decode(w, r, &req) {
		return
	}
	chat := llm.ChatRequest{Model: req.Model, Stream: req.Stream, Format: req.Format, Options: req.Options, KeepAlive: req.KeepAlive}
	if req.System != "" {
		chat.Messages = append(chat.Messages, llm.Message{Role: "system", Content: req.System})
	}
	if req.Prompt != "" {
		chat.Messages = append(chat.Messages, llm.Message{Role: "user", Content: req.Prompt})
	}
	s.noteRequest(chat)
	m, ok := s.admit(w, req.Model, req.Options)
	if !ok {
		return
	}
	if req.Prompt == "" {
		s.loadOnly(m, req.Options, req.KeepAlive)
		writeJSON(w, http.StatusOK, generateResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(), Done: true, DoneReason: loadReason(req.KeepAlive),
		})
		return
	}
	s.run(w, r, chat, m, func(content string, done bool, reason string, mt llm.Metrics) any {
		g := generateResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(),
			Response: content, Done: done, DoneReason: reason, Metrics: mt,
		}
		if done { // token ids of prompt and reply; only their presence matters
			for i := range mt.PromptEvalCount + mt.EvalCount {
				g.Context = append(g.Context, 100+i)
			}
		}
		return g
	})
}

// loadOnly serves a request without a prompt: keep_alive 0 unloads the
// model, anything else loads it.
func (s *Server) loadOnly(m Model, opts map[string]any, keepAlive *llm.Duration) {
	if keepAlive != nil && *keepAlive == 0 {
		s.unload(m)
		return
	}
	n, _ := intOption(opts, "num_ctx")
	s.load(m, n, keepAlive)
}

func loadReason(keepAlive *llm.Duration) string {
	if keepAlive != nil && *keepAlive == 0 {
		return "unload"
	}
	return "load"
}

// admit applies Ollama's checks in its order: model given (400), model
// installed (404), option types valid (500).
func (s *Server) admit(w http.ResponseWriter, model string, opts map[string]any) (Model, bool) {
	if model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return Model{}, false
	}
	m, ok := s.findModel(model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", model))
		return Model{}, false
	}
	if err := checkOptions(opts); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return Model{}, false
	}
	return m, true
}

var optionKinds = map[string]string{
	"num_keep": "integer", "seed": "integer", "num_predict": "integer", "top_k": "integer",
	"repeat_last_n": "integer", "num_ctx": "integer", "num_batch": "integer", "num_gpu": "integer",
	"main_gpu": "integer", "num_thread": "integer",
	"temperature": "float32", "top_p": "float32", "min_p": "float32", "typical_p": "float32",
	"repeat_penalty": "float32", "presence_penalty": "float32", "frequency_penalty": "float32",
	"use_mmap": "boolean", "stop": "array",
}

// checkOptions type-checks known options with Ollama's error texts;
// unknown options are ignored, as Ollama only logs them.
func checkOptions(opts map[string]any) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		v := opts[key]
		if v == nil {
			continue
		}
		kind, known := optionKinds[key]
		if !known {
			continue
		}
		ok := true
		switch kind {
		case "integer", "float32":
			_, ok = v.(float64)
		case "boolean":
			_, ok = v.(bool)
		case "array":
			items, isArray := v.([]any)
			if !isArray {
				ok = false
				break
			}
			for _, it := range items {
				if _, isString := it.(string); !isString {
					return fmt.Errorf("option %q must be of an array of strings", key)
				}
			}
		}
		if !ok {
			return fmt.Errorf("option %q must be of type %s", key, kind)
		}
	}
	return nil
}

func intOption(opts map[string]any, key string) (int, bool) {
	f, ok := opts[key].(float64)
	return int(f), ok
}

// promptTokens estimates the prompt's token count: its words plus the
// template's role markers.
func promptTokens(msgs []llm.Message) int {
	n := 1
	for _, m := range msgs {
		n += 3 + len(Words(m.Content))
	}
	return n
}

// wait pauses for d unless ctx ends first; it reports whether ctx is alive.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func writeLine(w http.ResponseWriter, rc *http.ResponseController, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	return rc.Flush()
}

// run generates the responder's reply for req, streaming it unless
// req.Stream is false, and applies the configured faults.
func (s *Server) run(w http.ResponseWriter, r *http.Request, req llm.ChatRequest, m Model, frame frameFunc) {
	ctx := r.Context()
	start := time.Now()
	stream := req.Stream == nil || *req.Stream

	reply := withRewrites(s.cfg.responder)(req)
	tokens, reason := reply.Tokens, cmp.Or(reply.DoneReason, "stop")
	if n, ok := intOption(req.Options, "num_predict"); ok && n > 0 && len(tokens) > n && !s.cfg.endless {
		tokens, reason = tokens[:n], "length"
	}
	total, token := s.replyLength(tokens, stream)
	delay := cmp.Or(reply.Delay, s.cfg.tokenDelay)
	n, _ := intOption(req.Options, "num_ctx")
	numCtx := s.load(m, n, req.KeepAlive)
	if req.KeepAlive != nil && *req.KeepAlive == 0 {
		defer s.unload(m)
	}
	// Ollama silently keeps only the last num_ctx prompt tokens.
	prompt := min(promptTokens(req.Messages), numCtx)

	if !wait(ctx, s.cfg.stall) {
		s.noteCancelled()
		return
	}
	loaded := time.Now()
	rc := http.NewResponseController(w)
	if stream {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
	}
	var text strings.Builder
	for i := 0; ; i++ {
		if s.fault(w, rc, stream, i, req.Model) {
			return
		}
		if i == s.cfg.stallAfter && i < total && !wait(ctx, s.cfg.midStall) {
			s.noteCancelled()
			return
		}
		if i == total {
			break
		}
		if (i > 0 && !wait(ctx, delay)) || ctx.Err() != nil {
			s.noteCancelled()
			return
		}
		text.WriteString(token(i))
		if stream {
			if err := writeLine(w, rc, frame(token(i), false, "", llm.Metrics{})); err != nil {
				s.noteCancelled()
				return
			}
		}
	}
	mt := llm.Metrics{
		LoadDuration:       max(loaded.Sub(start), time.Microsecond),
		PromptEvalCount:    prompt,
		PromptEvalDuration: time.Duration(prompt) * 10 * time.Microsecond,
		EvalCount:          total,
		EvalDuration:       max(time.Since(loaded), time.Microsecond),
	}
	mt.TotalDuration = mt.LoadDuration + mt.PromptEvalDuration + mt.EvalDuration
	if !stream {
		writeJSON(w, http.StatusOK, frame(text.String(), true, reason, mt))
		return
	}
	if err := writeLine(w, rc, frame("", true, reason, mt)); err != nil {
		s.noteCancelled()
	}
}

// replyLength returns how many tokens a reply has and the i-th of them:
// the responder's, then EndlessToken when a streamed reply is endless.
func (s *Server) replyLength(tokens []string, stream bool) (int, func(int) string) {
	total := len(tokens)
	if s.cfg.endless && stream {
		total = max(total, EndlessTokens)
	}
	return total, func(i int) string {
		if i < len(tokens) {
			return tokens[i]
		}
		return EndlessToken
	}
}

// fault injects the configured failure once n tokens have been produced;
// it reports whether the response is finished.
func (s *Server) fault(w http.ResponseWriter, rc *http.ResponseController, stream bool, n int, model string) bool {
	switch n {
	case s.cfg.truncateAfter:
		if stream {
			_ = rc.Flush()
		}
		// Aborting the handler makes net/http drop the connection without
		// the final chunk: the client sees the stream cut off.
		panic(http.ErrAbortHandler)
	case s.cfg.malformedAfter:
		half := `{"model":"` + model + `","created_at":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","message":{"role":"assistant","content":"`
		if !stream {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = w.Write([]byte(half))
			return true
		}
		_, _ = w.Write([]byte(half + "\n"))
		_ = rc.Flush()
		return true
	case s.cfg.errorAfter:
		if !stream {
			writeError(w, http.StatusInternalServerError, s.cfg.errorMessage)
			return true
		}
		_ = writeLine(w, rc, map[string]string{"error": s.cfg.errorMessage})
		return true
	}
	return false
}

func (s *Server) handlePull(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Name     string `json:"name"`
		Insecure bool   `json:"insecure"`
		Stream   *bool  `json:"stream"`
	}
	if !decode(w, r, &req) {
		return
	}
	name := canonicalName(cmp.Or(req.Model, req.Name))
	if name == "" {
		writeError(w, http.StatusBadRequest, "invalid model name")
		return
	}
	ctx := r.Context()
	stream := req.Stream == nil || *req.Stream
	m := withDefaults(Model{Name: name})
	d := "sha256:" + digest(name)
	steps := []llm.ProgressResponse{
		{Status: "pulling manifest"},
		{Status: "pulling " + d[7:19], Digest: d, Total: m.Size},
		{Status: "pulling " + d[7:19], Digest: d, Total: m.Size, Completed: m.Size / 2},
		{Status: "pulling " + d[7:19], Digest: d, Total: m.Size, Completed: m.Size},
		{Status: "verifying sha256 digest"},
		{Status: "writing manifest"},
		{Status: "success"},
	}
	rc := http.NewResponseController(w)
	if stream {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
	}
	for i, p := range steps {
		if (i > 0 && !wait(ctx, s.cfg.tokenDelay)) || ctx.Err() != nil {
			s.noteCancelled()
			return
		}
		if i == s.cfg.pullErrorAfter && s.cfg.pullError != "" {
			s.failPull(w, rc, stream, name)
			return
		}
		if p.Status == "success" {
			if _, have := s.findModel(name); !have {
				s.mu.Lock()
				s.models = append(s.models, m)
				s.mu.Unlock()
			}
		}
		if stream {
			if err := writeLine(w, rc, p); err != nil {
				s.noteCancelled()
				return
			}
		}
	}
	if !stream {
		writeJSON(w, http.StatusOK, llm.ProgressResponse{Status: "success"})
	}
}
