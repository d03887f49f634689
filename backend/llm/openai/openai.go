// Package openai is Footnote's second LLM provider: any server that speaks
// the OpenAI chat completions API locally (LM Studio, llama.cpp server,
// vLLM, Ollama's /v1). It implements llm.LLM, so the answer pipeline streams
// from it exactly as from Ollama, and reports failures with the llm
// package's sentinel errors so they map to the same kind of user message.
package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
)

const (
	dialTimeout   = 5 * time.Second
	maxErrorBytes = 64 << 10
)

// Client talks to an OpenAI-compatible server. It is safe for concurrent use.
type Client struct {
	base   *url.URL // ends in /v1
	http   *http.Client
	apiKey string

	// FirstTokenTimeout cancels a streamed Chat when no event has arrived this
	// long after the request was sent; 0 disables it.
	FirstTokenTimeout time.Duration
	// StreamIdleTimeout cancels a streamed Chat when, after the first event,
	// no further event arrives for this long; 0 disables it.
	StreamIdleTimeout time.Duration
}

var _ llm.LLM = (*Client)(nil)

// ErrKeyOverPlainHTTP: the API key would cross the network unencrypted, to
// a server on another machine reached over http://. Footnote refuses to
// send it; use https:// for that server or drop the key.
var ErrKeyOverPlainHTTP = errors.New("an API key is never sent over plain http to another machine")

// keyExposure is ErrKeyOverPlainHTTP told as one sentence for the user.
type keyExposure string

func (k keyExposure) Error() string { return string(k) }
func (k keyExposure) Unwrap() error { return ErrKeyOverPlainHTTP }

// BaseURL normalises a server address the way New does: http:// when no
// scheme is given, a trailing /v1, no query or fragment.
func BaseURL(baseURL string) (*url.URL, error) {
	raw := strings.TrimSpace(baseURL)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("The OpenAI-compatible server address %q is not an http(s) URL; use one such as http://127.0.0.1:1234/v1.", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/v1") {
		u.Path += "/v1"
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// New returns a client for the server at baseURL ("http://127.0.0.1:1234",
// with or without the trailing /v1). apiKey may be empty; local servers
// rarely need one. A key is refused (ErrKeyOverPlainHTTP) for a server on
// another machine reached over http://, and a redirect that would carry it
// there is not followed. A nil hc gets a 5 s dial timeout and no overall
// timeout.
func New(baseURL, apiKey string, hc *http.Client) (*Client, error) {
	u, err := BaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if exposesKey(u, apiKey) {
		return nil, keyExposure("The API key is not sent to " + u.Redacted() + ", which is not on this machine and uses http://, " +
			"so the key would travel unencrypted; use an https:// address for that server, or remove the API key.")
	}
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
		tr.Proxy = nil // the server is local; a system proxy would only get in the way
		hc = &http.Client{Transport: tr}
	}
	if apiKey != "" {
		guarded := *hc
		guarded.CheckRedirect = keyRedirectGuard(hc.CheckRedirect)
		hc = &guarded
	}
	return &Client{base: u, http: hc, apiKey: apiKey,
		FirstTokenTimeout: llm.DefaultFirstTokenTimeout, StreamIdleTimeout: llm.DefaultStreamIdleTimeout}, nil
}

// exposesKey reports whether sending apiKey to u would put it on the
// network in clear text.
func exposesKey(u *url.URL, apiKey string) bool {
	return apiKey != "" && u.Scheme != "https" && !llm.IsLoopbackHost(u.Hostname())
}

// keyRedirectGuard refuses a redirect that would carry the Authorization
// header to another machine over http:// (net/http keeps it for the same
// host, even from https to http), then applies next, or the default limit.
func keyRedirectGuard(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.Header.Get("Authorization") != "" && req.URL.Scheme != "https" && !llm.IsLoopbackHost(req.URL.Hostname()) {
			return keyExposure("The API key is not sent along a redirect to " + req.URL.Redacted() + ", which is on another machine and uses http://.")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// Host returns the base URL, e.g. "http://127.0.0.1:1234/v1".
func (c *Client) Host() string { return c.base.String() }

// Model is one entry of GET /v1/models. Context lengths are extensions some
// servers add: vLLM's max_model_len, llama.cpp's meta.n_ctx_train, LM
// Studio's context_length.
type Model struct {
	ID            string `json:"id"`
	OwnedBy       string `json:"owned_by,omitempty"`
	MaxModelLen   int    `json:"max_model_len,omitempty"`
	ContextLength int    `json:"context_length,omitempty"`
	Meta          *struct {
		NCtxTrain int `json:"n_ctx_train,omitempty"`
	} `json:"meta,omitempty"`
}

// Context returns the model's context window when the server reports it.
func (m Model) Context() (int, bool) {
	switch {
	case m.MaxModelLen > 0:
		return m.MaxModelLen, true
	case m.ContextLength > 0:
		return m.ContextLength, true
	case m.Meta != nil && m.Meta.NCtxTrain > 0:
		return m.Meta.NCtxTrain, true
	}
	return 0, false
}

// Models lists the models the server offers (GET /v1/models).
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	resp, err := c.send(ctx, http.MethodGet, "/models", nil, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Data []Model `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8*llm.MaxLineBytes)).Decode(&out); err != nil {
		return nil, fmt.Errorf("%w: /models: %v", llm.ErrMalformedStream, err)
	}
	return out.Data, nil
}

// FindModel returns the listed model called name (matched as the server
// matches names, see listedAs), or an error matching llm.ErrModelNotFound.
func (c *Client) FindModel(ctx context.Context, name string) (Model, error) {
	models, err := c.Models(ctx)
	if err != nil {
		return Model{}, err
	}
	return FindIn(models, name)
}

// FindIn returns the model of a /v1/models listing called name (matched as
// the server matches names, see listedAs), or an error matching
// llm.ErrModelNotFound.
func FindIn(models []Model, name string) (Model, error) {
	var ids []string
	for _, m := range models {
		if listedAs(m.ID, name) {
			return m, nil
		}
		ids = append(ids, m.ID)
	}
	return Model{}, fmt.Errorf("%w: %q is not among the server's models (%s)", llm.ErrModelNotFound, name, strings.Join(ids, ", "))
}

// ContextLength returns the model's context window when /v1/models reports
// one; otherwise an error, and callers keep their configured window.
func (c *Client) ContextLength(ctx context.Context, model string) (int, error) {
	m, err := c.FindModel(ctx, model)
	if err != nil {
		return 0, err
	}
	if n, ok := m.Context(); ok {
		return n, nil
	}
	return 0, fmt.Errorf("the server does not report a context length for %s", model)
}

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []llm.Message `json:"messages"`
	Stream        bool          `json:"stream"`
	Temperature   *float64      `json:"temperature,omitempty"`
	TopP          *float64      `json:"top_p,omitempty"`
	Seed          *int          `json:"seed,omitempty"`
	MaxTokens     *int          `json:"max_tokens,omitempty"`
	StreamOptions *streamOpts   `json:"stream_options,omitempty"`
}

type streamOpts struct {
	IncludeUsage bool `json:"include_usage"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// chunk is one streamed event or, with Message set, a whole reply.
type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta        llm.Message  `json:"delta"`
		Message      *llm.Message `json:"message"`
		FinishReason *string      `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// translate maps Ollama-style options onto the OpenAI request. num_ctx has
// no OpenAI equivalent: the server decides its window when the model loads.
func translate(req *llm.ChatRequest, stream bool) chatRequest {
	out := chatRequest{Model: req.Model, Messages: req.Messages, Stream: stream}
	if stream {
		out.StreamOptions = &streamOpts{IncludeUsage: true}
	}
	if v, ok := number(req.Options["temperature"]); ok {
		out.Temperature = &v
	}
	if v, ok := number(req.Options["top_p"]); ok {
		out.TopP = &v
	}
	if v, ok := number(req.Options["seed"]); ok {
		n := int(v)
		out.Seed = &n
	}
	if v, ok := number(req.Options["num_predict"]); ok && v > 0 {
		n := int(v)
		out.MaxTokens = &n
	}
	return out
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case float64:
		return t, !math.IsNaN(t)
	case float32:
		return float64(t), true
	}
	return 0, false
}

// Chat generates a reply, calling fn per streamed token and once more with
// a Done object carrying finish_reason and, when the server sends it, token
// usage (TotalDuration is measured here; servers do not report durations).
// A stream that ends without "data: [DONE]" is llm.ErrTruncatedStream.
func (c *Client) Chat(ctx context.Context, req *llm.ChatRequest, fn llm.ChatFunc) error {
	streaming := req.Stream == nil || *req.Stream
	start := time.Now()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	gotFirst := func() {}
	if d := c.FirstTokenTimeout; streaming && d > 0 {
		timeout := fmt.Errorf("%w: no reply from %s within %s", llm.ErrFirstTokenTimeout, req.Model, d)
		t := time.AfterFunc(d, func() { cancel(timeout) })
		defer t.Stop()
		gotFirst = func() { t.Stop() }
	}
	tick := func() {}
	if streaming {
		stalled := fmt.Errorf("%w: nothing from %s for %s", llm.ErrStreamStalled, req.Model, c.StreamIdleTimeout)
		var stop func()
		tick, stop = llm.IdleWatch(c.StreamIdleTimeout, cancel, stalled)
		defer stop()
	}
	accept := "application/json"
	if streaming {
		accept = "text/event-stream"
	}
	resp, err := c.send(ctx, http.MethodPost, "/chat/completions", translate(req, streaming), accept)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	final := llm.ChatResponse{Model: req.Model, Done: true, Message: llm.Message{Role: "assistant"}}
	handle := func(data []byte) error {
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return fmt.Errorf("%w: %v", llm.ErrMalformedStream, err)
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return &llm.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: errorText(ch.Error)}
		}
		if ch.Usage != nil {
			final.PromptEvalCount, final.EvalCount = ch.Usage.PromptTokens, ch.Usage.CompletionTokens
		}
		for _, choice := range ch.Choices {
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				final.DoneReason = *choice.FinishReason
			}
			content := choice.Delta.Content
			if choice.Message != nil {
				content = choice.Message.Content
			}
			if content != "" {
				if err := fn(llm.ChatResponse{Model: req.Model, Message: llm.Message{Role: "assistant", Content: content}}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	finish := func() error {
		final.TotalDuration = time.Since(start)
		return fn(final)
	}

	if !streaming {
		gotFirst()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 8*llm.MaxLineBytes))
		if err != nil {
			return c.transportError(ctx, "/chat/completions", err)
		}
		if err := handle(b); err != nil {
			return err
		}
		return finish()
	}

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), llm.MaxLineBytes)
	for sc.Scan() {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		data, isData := bytes.CutPrefix(line, []byte("data:"))
		if !isData { // blank separators, ": comments", event:/id: fields
			continue
		}
		gotFirst()
		tick()
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			return finish()
		}
		if err := handle(data); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return err
		}
	}
	err = sc.Err()
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%w: an event from %s is longer than %d bytes", llm.ErrMalformedStream, c.Host(), llm.MaxLineBytes)
	case err != nil:
		return fmt.Errorf("%w: %w", llm.ErrTruncatedStream, err)
	default:
		return fmt.Errorf("%w: no [DONE] from %s", llm.ErrTruncatedStream, c.Host())
	}
}

// errorText reads OpenAI's {"message":...} error object or a plain string.
func errorText(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (c *Client) send(ctx context.Context, method, path string, body any, accept string) (*http.Response, error) {
	req, err := llm.NewJSONRequest(ctx, "openai", method, c.base, path, body, accept)
	if err != nil {
		return nil, err
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, statusError(resp)
	}
	return resp, nil
}

func (c *Client) transportError(ctx context.Context, path string, err error) error {
	return llm.TransportError(ctx, "openai", c.Host(), path, err)
}

// statusError turns a non-2xx reply into *llm.StatusError, wrapped with
// llm.ErrModelNotFound when the server says the model does not exist.
func statusError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	msg := strings.TrimSpace(string(b))
	var e struct {
		Error json.RawMessage `json:"error"`
		// vLLM and some llama.cpp builds put the text at the top level.
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &e) == nil {
		if len(e.Error) > 0 && string(e.Error) != "null" {
			msg = errorText(e.Error)
		} else if e.Message != "" {
			msg = e.Message
		}
	}
	se := &llm.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: msg}
	lower := strings.ToLower(msg)
	if resp.StatusCode == http.StatusNotFound && strings.Contains(lower, "model") &&
		(strings.Contains(lower, "not found") || strings.Contains(lower, "does not exist")) {
		return fmt.Errorf("%w: %w", llm.ErrModelNotFound, se)
	}
	return se
}

// ServerStartHint names how each OpenAI-compatible server is started.
const ServerStartHint = "the local server in LM Studio, llama-server for llama.cpp, vllm serve for vLLM, or ollama serve for Ollama's /v1"

// Describe turns an error from this client into one sentence for the user;
// host is the server's base URL and model the requested model.
func Describe(err error, host, model string) string {
	return DescribeFor(err, host, model, "openai_base_url")
}

// DescribeFor is Describe naming where the user set the server's address
// (the environment variable, or the setting), so the fix names it too.
func DescribeFor(err error, host, model, addressSetBy string) string {
	var se *llm.StatusError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "Generation stopped."
	case errors.Is(err, llm.ErrUnreachable):
		return "No OpenAI-compatible server answers at " + host + ". Start it (" + ServerStartHint + "), or set " + addressSetBy + " to where it runs."
	case errors.Is(err, llm.ErrModelNotFound):
		if errors.As(err, &se) && strings.TrimSpace(se.ErrorMessage) != "" {
			return "The server at " + host + " refused the model \"" + model + "\" (" + strings.TrimSuffix(strings.TrimSpace(se.ErrorMessage), ".") +
				"). Load it there, or pick one of the models the server lists."
		}
		return "The model \"" + model + "\" is not available on the server at " + host + ". Load it there, or pick one of the models the server lists."
	case errors.Is(err, llm.ErrFirstTokenTimeout):
		return "The model server did not start answering in time; the model may still be loading. Try again, or pick a smaller model."
	case errors.Is(err, llm.ErrStreamStalled):
		return "The model server stopped sending the answer partway through, so Footnote kept what had arrived; try again, or pick a smaller model if the computer is busy."
	case errors.Is(err, llm.ErrTruncatedStream):
		return "The model server stopped before finishing the answer (the connection was cut). Try again."
	case errors.Is(err, llm.ErrMalformedStream):
		return "The model server sent a reply Footnote could not read. Check that " + addressSetBy + " points to an OpenAI-compatible server."
	case errors.Is(err, context.DeadlineExceeded):
		return "The model server did not answer in time. Try again."
	case errors.As(err, &se):
		if se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden {
			return "The model server refused the request (" + se.Status + "). Set FOOTNOTE_OPENAI_API_KEY to the key it expects."
		}
		msg := strings.TrimSuffix(strings.TrimSpace(se.ErrorMessage), ".")
		if msg == "" {
			msg = se.Status
		}
		return "The model server reported an error: " + msg + "."
	default:
		return "The request to the model server failed: " + strings.TrimSuffix(err.Error(), ".") + "."
	}
}
