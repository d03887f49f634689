package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultHost is where Ollama listens when OLLAMA_HOST is unset.
const DefaultHost = "http://127.0.0.1:11434"

const (
	// DefaultFirstTokenTimeout bounds the wait for the first streamed object,
	// which includes loading the model into memory.
	DefaultFirstTokenTimeout = 2 * time.Minute
	// DefaultStreamIdleTimeout bounds the silence between streamed objects
	// once the answer has started: a server that stalls mid-answer (a hung
	// runner, a half-open connection) must not hold the question forever.
	DefaultStreamIdleTimeout = time.Minute
	// MaxLineBytes bounds one NDJSON line (and a whole non-streamed reply),
	// so a misbehaving server cannot make the client buffer without limit.
	MaxLineBytes = 1 << 20

	dialTimeout   = 5 * time.Second
	maxErrorBytes = 64 << 10
)

// Client talks to Ollama's native HTTP API. It is safe for concurrent use.
type Client struct {
	base *url.URL
	http *http.Client

	// FirstTokenTimeout cancels a streamed Chat when no object has arrived
	// this long after the request was sent; 0 disables it. It does not apply
	// to stream:false requests, whose first byte comes after the whole answer.
	FirstTokenTimeout time.Duration
	// StreamIdleTimeout cancels a streamed Chat when, after the first object,
	// no further object arrives for this long; 0 disables it.
	StreamIdleTimeout time.Duration
}

var _ LLM = (*Client)(nil)

// NewClient returns a client for the Ollama server at base. A nil hc gets a
// client with a 5 s dial timeout and no overall timeout (answers stream).
func NewClient(base *url.URL, hc *http.Client) *Client {
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
		tr.Proxy = nil // Ollama is local; a system proxy would only get in the way
		hc = &http.Client{Transport: tr}
	}
	u := *base
	return &Client{base: &u, http: hc, FirstTokenTimeout: DefaultFirstTokenTimeout, StreamIdleTimeout: DefaultStreamIdleTimeout}
}

// WithFirstTokenTimeout returns a copy of c (sharing its connections) whose
// streamed chats give up after d without a first object; 0 waits forever.
func (c *Client) WithFirstTokenTimeout(d time.Duration) *Client {
	cp := *c
	cp.FirstTokenTimeout = d
	return &cp
}

// WithStreamIdleTimeout returns a copy of c (sharing its connections) whose
// streamed chats give up after d without a new object once the answer has
// started; 0 waits forever.
func (c *Client) WithStreamIdleTimeout(d time.Duration) *Client {
	cp := *c
	cp.StreamIdleTimeout = d
	return &cp
}

// IdleWatch cancels a stream that goes quiet: call its returned tick on every
// object received; the timer starts at the first tick (the first-token
// timeout covers the wait before it) and each tick restarts it. When d
// passes without a tick, cancel is called with cause. stop releases the
// timer. A zero d returns no-ops. Providers other than Ollama share it.
func IdleWatch(d time.Duration, cancel context.CancelCauseFunc, cause error) (tick, stop func()) {
	if d <= 0 {
		return func() {}, func() {}
	}
	var mu sync.Mutex
	var t *time.Timer
	tick = func() {
		mu.Lock()
		defer mu.Unlock()
		if t == nil {
			t = time.AfterFunc(d, func() { cancel(cause) })
			return
		}
		t.Reset(d)
	}
	stop = func() {
		mu.Lock()
		defer mu.Unlock()
		if t != nil {
			t.Stop()
		}
	}
	return tick, stop
}

// ParseHost interprets an OLLAMA_HOST value the way Ollama does: "" means
// http://127.0.0.1:11434; "host", "host:port", ":port", "[::1]:port" and
// "http(s)://host[:port][/path]" are accepted. Without a scheme the port
// defaults to 11434; with http:// or https:// it defaults to 80 or 443.
// A wildcard bind address (0.0.0.0, ::) or an empty host means "this
// machine", which a client reaches via 127.0.0.1.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	scheme, rest, hasScheme := strings.Cut(s, "://")
	port := "11434"
	switch {
	case !hasScheme:
		scheme, rest = "http", s
	case scheme == "http":
		port = "80"
	case scheme == "https":
		port = "443"
	default:
		return nil, fmt.Errorf("unsupported scheme %q in %q (use http or https)", scheme, s)
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host := hostport
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	} else {
		host = strings.Trim(hostport, "[]")
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, fmt.Errorf("invalid port %q in %q", port, s)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path = strings.Trim(path, "/"); path != "" {
		u.Path = "/" + path
	}
	return u, nil
}

// Host returns the server's base URL, e.g. "http://127.0.0.1:11434".
func (c *Client) Host() string { return c.base.String() }

// Heartbeat checks that an Ollama server answers at the host (GET /).
func (c *Client) Heartbeat(ctx context.Context) error {
	resp, err := c.send(ctx, http.MethodGet, "/", nil, "text/plain")
	if err != nil {
		return err
	}
	return drainClose(resp)
}

// Version returns the server's version, e.g. "0.24.0".
func (c *Client) Version(ctx context.Context) (string, error) {
	var v VersionResponse
	if err := c.getJSON(ctx, http.MethodGet, "/api/version", nil, &v); err != nil {
		return "", err
	}
	return v.Version, nil
}

// List returns the locally installed models (GET /api/tags).
func (c *Client) List(ctx context.Context) (*ListResponse, error) {
	var v ListResponse
	if err := c.getJSON(ctx, http.MethodGet, "/api/tags", nil, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ListRunning returns the models loaded now (GET /api/ps), each with the
// window it was loaded with.
func (c *Client) ListRunning(ctx context.Context) (*ProcessResponse, error) {
	var v ProcessResponse
	if err := c.getJSON(ctx, http.MethodGet, "/api/ps", nil, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// Show returns a model's details (POST /api/show). An unknown model is an
// error matching ErrModelNotFound.
func (c *Client) Show(ctx context.Context, model string) (*ShowResponse, error) {
	var v ShowResponse
	if err := c.getJSON(ctx, http.MethodPost, "/api/show", &ShowRequest{Model: model}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// Chat generates a reply. With req.Stream nil or true fn receives one
// ChatResponse per token and then the done:true object; with false it
// receives the single final object. Chat returns nil only after a done:true
// object: a stream that breaks off yields ErrTruncatedStream, never a
// silently shorter answer. Cancelling ctx closes the connection, which makes
// Ollama stop generating; Chat then returns an error matching ctx's error.
func (c *Client) Chat(ctx context.Context, req *ChatRequest, fn ChatFunc) error {
	streaming := req.Stream == nil || *req.Stream
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var gotFirst func()
	if d := c.FirstTokenTimeout; streaming && d > 0 {
		timeout := fmt.Errorf("%w: no reply from %s within %s", ErrFirstTokenTimeout, req.Model, d)
		t := time.AfterFunc(d, func() { cancel(timeout) })
		defer t.Stop()
		gotFirst = func() { t.Stop() }
	}
	tick := func() {}
	if streaming {
		stalled := fmt.Errorf("%w: nothing from %s for %s", ErrStreamStalled, req.Model, c.StreamIdleTimeout)
		var stop func()
		tick, stop = IdleWatch(c.StreamIdleTimeout, cancel, stalled)
		defer stop()
	}

	accept := "application/json"
	if streaming {
		accept = "application/x-ndjson"
	}
	resp, err := c.send(ctx, http.MethodPost, "/api/chat", req, accept)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	return c.readLines(ctx, resp, gotFirst, func(line []byte) (bool, error) {
		tick()
		var obj struct {
			ChatResponse
			Error string `json:"error"`
		}
		if err := json.Unmarshal(line, &obj); err != nil {
			return false, fmt.Errorf("%w: %v", ErrMalformedStream, err)
		}
		if obj.Error != "" {
			return false, &StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: obj.Error}
		}
		if err := fn(obj.ChatResponse); err != nil {
			return false, err
		}
		return obj.Done, nil
	})
}

// Pull downloads a model (POST /api/pull), passing each progress object to
// fn. It returns nil once the server reports "success".
func (c *Client) Pull(ctx context.Context, req *PullRequest, fn func(ProgressResponse) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	resp, err := c.send(ctx, http.MethodPost, "/api/pull", req, "application/x-ndjson")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return c.readLines(ctx, resp, nil, func(line []byte) (bool, error) {
		var obj struct {
			ProgressResponse
			Error string `json:"error"`
		}
		if err := json.Unmarshal(line, &obj); err != nil {
			return false, fmt.Errorf("%w: %v", ErrMalformedStream, err)
		}
		if obj.Error != "" {
			return false, pullError(&StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: obj.Error})
		}
		if fn != nil {
			if err := fn(obj.ProgressResponse); err != nil {
				return false, err
			}
		}
		return obj.Status == "success", nil
	})
}

// readLines feeds each non-empty NDJSON line to handle until it reports
// done. ctx must be the request's context (with a cancel cause).
func (c *Client) readLines(ctx context.Context, resp *http.Response, first func(), handle func([]byte) (bool, error)) error {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if first != nil {
			first()
			first = nil
		}
		done, err := handle(line)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return err
		}
		if done {
			return nil
		}
	}
	err := sc.Err()
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%w: a line from %s is longer than %d bytes", ErrMalformedStream, c.Host(), MaxLineBytes)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrTruncatedStream, err)
	default:
		return fmt.Errorf("%w: no done object from %s", ErrTruncatedStream, c.Host())
	}
}

// getJSON sends body (if any) and decodes a single JSON reply into out.
func (c *Client) getJSON(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8*MaxLineBytes+1))
	if err != nil {
		return c.transportError(ctx, path, err)
	}
	if len(b) > 8*MaxLineBytes {
		return fmt.Errorf("%w: %s reply is larger than %d bytes", ErrMalformedStream, path, 8*MaxLineBytes)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformedStream, path, err)
	}
	return nil
}

// send performs one request; a non-2xx status becomes a *StatusError.
func (c *Client) send(ctx context.Context, method, path string, body any, accept string) (*http.Response, error) {
	req, err := NewJSONRequest(ctx, "ollama", method, c.base, path, body, accept)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, readStatusError(resp)
	}
	return resp, nil
}

// NewJSONRequest builds a request to base+path for any provider: body (if
// any) is sent as JSON, and the reply type is announced in Accept.
func NewJSONRequest(ctx context.Context, provider, method string, base *url.URL, path string, body any, accept string) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode %s request: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base.JoinPath(path).String(), rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", provider, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "footnote")
	return req, nil
}

// transportError classifies a failure below HTTP for this client.
func (c *Client) transportError(ctx context.Context, path string, err error) error {
	return TransportError(ctx, "ollama", c.Host(), path, err)
}

// TransportError classifies a failure below HTTP for any provider:
// cancellation keeps the context's error (or its cause), a failed dial
// becomes ErrUnreachable, and a connection the server dropped after
// accepting the request becomes ErrTruncatedStream.
func TransportError(ctx context.Context, provider, host, path string, err error) error {
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			return fmt.Errorf("%s %s: %w", provider, path, cause)
		}
		return fmt.Errorf("%s %s: %w", provider, path, err)
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if (errors.As(err, &opErr) && opErr.Op == "dial") || errors.As(err, &dnsErr) {
		return fmt.Errorf("%w at %s: %w", ErrUnreachable, host, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return fmt.Errorf("%w: %s: %w", ErrTruncatedStream, path, err)
	}
	return fmt.Errorf("%s %s: %w", provider, path, err)
}

func readStatusError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	msg := strings.TrimSpace(string(b))
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		msg = e.Error
	} else if strings.HasPrefix(msg, "<") {
		// An HTML error page (from a proxy, not Ollama) means nothing to a
		// person reading one sentence; the status line says enough.
		msg = ""
	}
	msg = strings.Join(strings.Fields(msg), " ")
	return &StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: msg}
}

func drainClose(resp *http.Response) error {
	_, err := io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBytes))
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	return err
}
