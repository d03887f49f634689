// Package ollamafake is an in-process stand-in for an Ollama server. It
// reproduces the wire behaviour recorded from real Ollama (status codes,
// content types, NDJSON framing, the final done object, error bodies), so the
// client, the answer pipeline and end-to-end tests run without Ollama. Fault
// options (truncated stream, malformed line, error object, stalled start,
// stall mid-answer, pull failing mid-stream)
// exercise the failure paths real servers produce. Like Ollama it keeps
// models loaded, with the window they were loaded with (GET /api/ps), and
// loads one again when a request asks for another num_ctx (loads.go).
// WithServerKind makes it answer as llama.cpp, LM Studio or vLLM instead,
// each reporting its context window its own way (serverkinds.go).
package ollamafake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
)

// DefaultModel is the one model a server has unless WithModels says otherwise.
const DefaultModel = "llama3.2:1b"

// DefaultVersion is what GET /api/version reports; the response shapes are
// those recorded from this Ollama release.
const DefaultVersion = "0.24.0"

// Reply is what a Responder wants the model to say.
type Reply struct {
	Tokens []string      // streamed one object each; see Words
	Delay  time.Duration // between tokens; 0 uses the server's token delay
	// DoneReason for the final object; "" means "stop" ("length" when the
	// request's num_predict cut the reply short).
	DoneReason string
}

// Responder decides the reply to a chat (or generate) request.
type Responder func(req llm.ChatRequest) Reply

// Model is one installed model.
type Model struct {
	Name              string // "name:tag"; ":latest" is assumed without a tag
	Family            string // architecture, e.g. "llama"
	ParameterSize     string // e.g. "1.2B"
	QuantizationLevel string // e.g. "Q8_0"
	Size              int64  // bytes on disk
	ContextLength     int    // trained window, model_info "<family>.context_length"
	// NumCtx is the PARAMETER num_ctx of the model's Modelfile: /api/show
	// lists it in parameters, and Ollama loads the model with it when a
	// request sets no num_ctx (always, on /v1). 0 means none, as for most
	// models pulled from the library; Ollama then uses DefaultNumCtx. The
	// other server kinds report it as the window they run (0: DefaultNumCtx).
	NumCtx int
}

// DefaultNumCtx is the window Ollama loads a model with when neither the
// request nor the Modelfile sets num_ctx: the smallest of the 4k/32k/256k
// tiers Ollama (0.24.0 on) picks by GPU memory, which a machine without a
// large GPU gets. It is capped at the model's trained length.
const DefaultNumCtx = 4096

// runWindow is the window the model loads with when a request sets none.
func (m Model) runWindow() int {
	if m.NumCtx > 0 {
		return m.NumCtx
	}
	return min(DefaultNumCtx, m.ContextLength)
}

// Option configures a Server.
type Option func(*config)

type config struct {
	addr       string
	models     []Model
	responder  Responder
	tokenDelay time.Duration
	version    string

	truncateAfter  int // -1: off
	malformedAfter int
	errorAfter     int
	errorMessage   string
	stall          time.Duration
	stallAfter     int // -1: off
	midStall       time.Duration
	endless        bool
	kind           ServerKind
	pullErrorAfter int
	pullError      string
}

// WithAddr sets the listen address (default "127.0.0.1:0"). Only loopback
// addresses are accepted.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithModels replaces the installed models. Zero fields get defaults.
func WithModels(models ...Model) Option {
	return func(c *config) { c.models = append([]Model(nil), models...) }
}

// WithResponder sets how the fake answers (default DefaultResponder).
func WithResponder(r Responder) Option { return func(c *config) { c.responder = r } }

// WithTokenDelay sets the pause between streamed tokens (default none).
func WithTokenDelay(d time.Duration) Option { return func(c *config) { c.tokenDelay = d } }

// WithVersion sets the version GET /api/version reports.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithTruncateAfter cuts the connection after n streamed tokens, before the
// done object, as when a server crashes mid-answer.
func WithTruncateAfter(n int) Option { return func(c *config) { c.truncateAfter = n } }

// WithMalformedLineAfter sends a line that is not valid JSON after n tokens
// and ends the stream.
func WithMalformedLineAfter(n int) Option { return func(c *config) { c.malformedAfter = n } }

// WithErrorAfter sends {"error":msg} inside the 200 stream after n tokens
// and ends it, as Ollama does when its runner fails mid-generation.
func WithErrorAfter(n int, msg string) Option {
	return func(c *config) { c.errorAfter, c.errorMessage = n, msg }
}

// WithFirstTokenStall waits d before answering a chat or generate request
// (as while a model loads). A client that gives up meanwhile is counted by
// Cancelled.
func WithFirstTokenStall(d time.Duration) Option { return func(c *config) { c.stall = d } }

// WithStallAfter pauses for d after n streamed tokens (or until the client
// gives up), keeping the connection open and silent, as a hung runner does.
// A client that gives up meanwhile is counted by Cancelled; otherwise the
// reply resumes.
func WithStallAfter(n int, d time.Duration) Option {
	return func(c *config) { c.stallAfter, c.midStall = n, d }
}

// EndlessTokens is how long an endless reply (WithEndlessReply) goes on
// when no client stops it: long enough for any test, short of forever.
const EndlessTokens = 1 << 20

// EndlessToken is what an endless reply repeats after the responder's tokens.
const EndlessToken = "more "

// WithEndlessReply makes every streamed reply go on after the responder's
// tokens, repeating EndlessToken until the client disconnects (or
// EndlessTokens in all), and ignore num_predict and max_tokens — as a
// server that loops and disregards the requested limit does.
func WithEndlessReply() Option { return func(c *config) { c.endless = true } }

// Server is a running fake. Create it with New or Listen; Close it.
type Server struct {
	cfg     config
	ln      net.Listener
	srv     *http.Server
	served  chan struct{}
	started time.Time

	mu        sync.Mutex
	closed    bool
	handlers  sync.WaitGroup
	models    []Model
	requests  []llm.ChatRequest
	calls     []string
	loaded    map[string]*loadedModel // by model name (loads.go)
	loads     int
	cancelled int
	changed   chan struct{} // closed and replaced whenever cancelled grows
}

// New starts a fake on 127.0.0.1 (or WithAddr) and panics if it cannot
// listen, like httptest.NewServer.
func New(opts ...Option) *Server {
	s, err := Listen(opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// Listen starts a fake and reports listen errors, for commands.
func Listen(opts ...Option) (*Server, error) {
	cfg := config{
		addr:           "127.0.0.1:0",
		models:         []Model{{Name: DefaultModel}},
		responder:      DefaultResponder,
		version:        DefaultVersion,
		truncateAfter:  -1,
		malformedAfter: -1,
		errorAfter:     -1,
		stallAfter:     -1,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if err := checkLoopback(cfg.addr); err != nil {
		return nil, err
	}
	models := make([]Model, len(cfg.models))
	for i, m := range cfg.models {
		models[i] = withDefaults(m)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("fake ollama: listen on %s: %w", cfg.addr, err)
	}
	s := &Server{
		cfg:     cfg,
		ln:      ln,
		served:  make(chan struct{}),
		started: time.Now().UTC(),
		models:  models,
		loaded:  map[string]*loadedModel{},
		changed: make(chan struct{}),
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln) // returns ErrServerClosed on Close
	}()
	return s, nil
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("fake ollama: address %q: %w", addr, err)
	}
	if !llm.IsLoopbackHost(host) {
		return fmt.Errorf("fake ollama: refusing to listen on %q: only loopback addresses (127.0.0.1, ::1, localhost) are allowed", addr)
	}
	return nil
}

func withDefaults(m Model) Model {
	m.Name = canonicalName(m.Name)
	if m.Family == "" {
		m.Family = "llama"
	}
	if m.ParameterSize == "" {
		m.ParameterSize = "1.2B"
	}
	if m.QuantizationLevel == "" {
		m.QuantizationLevel = "Q8_0"
	}
	if m.Size == 0 {
		m.Size = 1321098329
	}
	if m.ContextLength == 0 {
		m.ContextLength = 131072
	}
	return m
}

func canonicalName(name string) string {
	if name != "" && !strings.Contains(name, ":") {
		return name + ":latest"
	}
	return name
}

// URL is the base URL clients use, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server, cutting open streams, and waits for its handlers.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	_ = s.srv.Close()
	<-s.served
	s.handlers.Wait()
}

// Requests returns every generation request the server decoded, in order:
// /api/chat and /api/generate bodies, and /v1/chat/completions ones as the
// options Ollama maps them to (max_tokens as num_predict).
func (s *Server) Requests() []llm.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.ChatRequest(nil), s.requests...)
}

// Calls returns every request the server received, in order, as
// "METHOD /path" (e.g. "POST /api/show").
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *Server) noteRequest(req llm.ChatRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

// Cancelled counts chat, generate and pull streams the client abandoned
// before the server finished them.
func (s *Server) Cancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// WaitCancelled blocks until Cancelled() >= n or ctx ends, so tests need
// not poll for the server to notice a disconnect.
func (s *Server) WaitCancelled(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		got, ch := s.cancelled, s.changed
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("fake ollama: %d of %d cancellations seen: %w", got, n, ctx.Err())
		}
	}
}

func (s *Server) noteCancelled() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled++
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) findModel(name string) (Model, bool) {
	name = canonicalName(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if strings.EqualFold(m.Name, name) {
			return m, true
		}
	}
	return Model{}, false
}

// ServeHTTP routes like Ollama's gin router: a known path with the wrong
// method is a text/plain 405, an unknown path a text/plain 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "server closed", http.StatusServiceUnavailable)
		return
	}
	s.handlers.Add(1)
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	defer s.handlers.Done()

	type route struct {
		methods []string
		handle  func(http.ResponseWriter, *http.Request)
	}
	read := []string{http.MethodGet, http.MethodHead}
	post := []string{http.MethodPost}
	routes := map[string]route{
		"/":             {read, s.handleRoot},
		"/api/version":  {read, s.handleVersion},
		"/api/tags":     {read, s.handleTags},
		"/api/show":     {post, s.handleShow},
		"/api/ps":       {read, s.handlePs},
		"/api/chat":     {post, s.handleChat},
		"/api/generate": {post, s.handleGenerate},
		"/api/pull":     {post, s.handlePull},

		"/v1/chat/completions": {post, s.handleOpenAIChat},
		"/v1/models":           {read, s.handleOpenAIModels},
		"/props":               {read, s.handleProps},          // llama.cpp (serverkinds.go)
		"/api/v0/models":       {read, s.handleLMStudioModels}, // LM Studio
	}
	rt, ok := routes[r.URL.Path]
	if !ok || !s.servesPath(r.URL.Path) {
		writeText(w, http.StatusNotFound, "404 page not found")
		return
	}
	for _, m := range rt.methods {
		if r.Method == m {
			rt.handle(w, r)
			return
		}
	}
	w.Header().Set("Allow", strings.Join(rt.methods, ", "))
	writeText(w, http.StatusMethodNotAllowed, "405 method not allowed")
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"fake ollama: encode response"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// decode reads a JSON body the way gin's ShouldBindJSON does, so the error
// texts match Ollama's ("unexpected EOF", "json: cannot unmarshal ...").
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(r.Body).Decode(v)
	switch {
	case err == nil:
		return true
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "missing request body")
	default:
		writeError(w, http.StatusBadRequest, err.Error())
	}
	return false
}

func (s *Server) handleRoot(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("Ollama is running"))
}

func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, llm.VersionResponse{Version: s.cfg.version})
}

// newerAPI reports whether the configured version is 0.33 or later, whose
// /api/tags and /api/show answers differ slightly from 0.24's.
func (s *Server) newerAPI() bool {
	var major, minor int
	_, _ = fmt.Sscanf(s.cfg.version, "%d.%d", &major, &minor)
	return major > 0 || minor >= 33
}

func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

func (s *Server) handleTags(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	models := append([]Model(nil), s.models...)
	s.mu.Unlock()
	resp := llm.ListResponse{Models: []llm.ModelInfo{}}
	for _, m := range models {
		resp.Models = append(resp.Models, llm.ModelInfo{
			Name:       m.Name,
			Model:      m.Name,
			ModifiedAt: s.started,
			Size:       m.Size,
			Digest:     digest(m.Name),
			Details:    details(m),
		})
		if s.newerAPI() {
			last := &resp.Models[len(resp.Models)-1]
			last.Details.ContextLength, last.Details.EmbeddingLength = m.ContextLength, 2048
			last.Capabilities = []string{"completion"}
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

func details(m Model) llm.ModelDetails {
	return llm.ModelDetails{
		Format:            "gguf",
		Family:            m.Family,
		Families:          []string{m.Family},
		ParameterSize:     m.ParameterSize,
		QuantizationLevel: m.QuantizationLevel,
	}
}

type tensor struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Shape []int  `json:"shape"`
}

// showResponse mirrors the recorded /api/show field order.
type showResponse struct {
	Modelfile    string           `json:"modelfile"`
	Parameters   string           `json:"parameters"`
	Template     string           `json:"template"`
	Details      llm.ModelDetails `json:"details"`
	ModelInfo    map[string]any   `json:"model_info"`
	Tensors      []tensor         `json:"tensors"`
	Capabilities []string         `json:"capabilities"`
	ModifiedAt   time.Time        `json:"modified_at"`
}

const chatTemplate = "{{- if .System }}<|system|>\n{{ .System }}\n{{ end }}{{- range .Messages }}<|{{ .Role }}|>\n{{ .Content }}\n{{ end }}<|assistant|>\n"

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model   string `json:"model"`
		Name    string `json:"name"` // deprecated spelling Ollama still accepts
		Verbose bool   `json:"verbose"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Model == "" {
		req.Model = req.Name
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.findModel(req.Model)
	if !ok {
		name := req.Model
		if s.newerAPI() {
			name = canonicalName(name)
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	arch := m.Family
	// Parameters and the Modelfile list num_ctx only when the Modelfile
	// sets it, as in the recorded 03_show.txt (PARAMETER num_ctx 2048).
	params := "stop                           \"<|user|>\""
	modelfileParams := "PARAMETER stop <|user|>\n"
	if m.NumCtx > 0 {
		params = fmt.Sprintf("num_ctx                        %d\n", m.NumCtx) + params
		modelfileParams += fmt.Sprintf("PARAMETER num_ctx %d\n", m.NumCtx)
	}
	writeJSON(w, http.StatusOK, showResponse{
		Modelfile: "# Modelfile generated by \"ollama show\"\n# To build a new Modelfile based on this, replace FROM with:\n# FROM " + m.Name +
			"\n\nFROM " + m.Name + "\nTEMPLATE \"" + chatTemplate + "\"\n" + modelfileParams,
		Parameters: params,
		Template:   chatTemplate,
		Details:    details(m),
		ModelInfo: map[string]any{
			"general.architecture":     arch,
			"general.file_type":        7,
			"general.parameter_count":  m.Size,
			arch + ".context_length":   m.ContextLength,
			arch + ".embedding_length": 2048,
			arch + ".block_count":      16,
			"tokenizer.ggml.model":     "gpt2",
			"tokenizer.ggml.tokens":    nil,
		},
		Tensors:      []tensor{{Name: "token_embd.weight", Type: m.QuantizationLevel, Shape: []int{2048, 128256}}},
		Capabilities: []string{"completion"},
		ModifiedAt:   s.started,
	})
}
