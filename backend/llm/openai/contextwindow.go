package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/footnote-app/footnote/backend/llm"
)

// ContextWindow asks the server how many tokens it holds for one request to
// model. An OpenAI-compatible request cannot choose the window (the server
// fixed it when it loaded the model), so Footnote must pack the evidence
// within what the server really uses. Each server kind says it its own way,
// tried in turn:
//
//   - vLLM: max_model_len of the model's entry in /v1/models
//   - LM Studio: loaded_context_length in /api/v0/models (a model not yet
//     loaded has none; it loads with LM Studio's default)
//   - llama.cpp server: default_generation_settings.n_ctx in /props
//   - Ollama behind /v1: the Modelfile's num_ctx in /api/show, else the
//     window of the loaded model in /api/ps (a model not yet loaded has
//     none; it loads with Ollama's default)
//
// It returns a zero window when none of them says; the caller then uses
// its setting. An error means the server could not be asked (down, or it
// refused /v1/models); errors other than "this server does not have that
// endpoint" from the probes are returned only when nothing was learned.
func (c *Client) ContextWindow(ctx context.Context, model string) (llm.ContextWindow, error) {
	models, err := c.Models(ctx)
	if err != nil {
		return llm.ContextWindow{}, err
	}
	return c.ContextWindowListed(ctx, models, model)
}

// ContextWindowListed is ContextWindow for a caller that already has the
// server's /v1/models listing, so it is not asked for again.
func (c *Client) ContextWindowListed(ctx context.Context, models []Model, model string) (llm.ContextWindow, error) {
	if m, err := FindIn(models, model); err == nil && m.MaxModelLen > 0 {
		return llm.ContextWindow{Tokens: m.MaxModelLen, Source: llm.WindowFromVLLM}, nil
	}
	var errs []error
	for _, probe := range []func(context.Context, string) (llm.ContextWindow, error){c.lmStudioWindow, c.llamaCppWindow, c.ollamaWindow} {
		w, err := probe(ctx, model)
		if w.Tokens > 0 {
			return w, nil
		}
		if err != nil && !isAbsentEndpoint(err) {
			errs = append(errs, err)
		}
	}
	return llm.ContextWindow{}, errors.Join(errs...)
}

// isAbsentEndpoint: the server does not have this endpoint (or this model
// there), which only says it is another kind of server.
func isAbsentEndpoint(err error) bool {
	var se *llm.StatusError
	return errors.As(err, &se) && (se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusMethodNotAllowed ||
		se.StatusCode == http.StatusBadRequest || se.StatusCode == http.StatusNotImplemented)
}

// getNative fetches a server-specific endpoint beside /v1 into out.
func (c *Client) getNative(ctx context.Context, method, path string, body, out any) error {
	root := *c.base // the native endpoints live beside /v1
	root.Path = strings.TrimSuffix(root.Path, "/v1")
	req, err := llm.NewJSONRequest(ctx, "openai", method, &root, path, body, "application/json")
	if err != nil {
		return err
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(ctx, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(resp)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8*llm.MaxLineBytes)).Decode(out); err != nil {
		return fmt.Errorf("%w: %s: %v", llm.ErrMalformedStream, path, err)
	}
	return nil
}

func (c *Client) lmStudioWindow(ctx context.Context, model string) (llm.ContextWindow, error) {
	var out struct {
		Data []struct {
			ID                  string `json:"id"`
			State               string `json:"state"`
			LoadedContextLength int    `json:"loaded_context_length"`
		} `json:"data"`
	}
	if err := c.getNative(ctx, http.MethodGet, "/api/v0/models", nil, &out); err != nil {
		return llm.ContextWindow{}, err
	}
	for _, m := range out.Data {
		if listedAs(m.ID, model) {
			return llm.ContextWindow{Tokens: m.LoadedContextLength, Source: llm.WindowFromLMStudio}, nil
		}
	}
	return llm.ContextWindow{}, nil
}

func (c *Client) llamaCppWindow(ctx context.Context, _ string) (llm.ContextWindow, error) {
	var out struct {
		DefaultGenerationSettings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if err := c.getNative(ctx, http.MethodGet, "/props", nil, &out); err != nil {
		return llm.ContextWindow{}, err
	}
	return llm.ContextWindow{Tokens: out.DefaultGenerationSettings.NCtx, Source: llm.WindowFromLlamaCppProps}, nil
}

// ollamaWindow: the Modelfile's num_ctx, else the loaded model's window.
// Unlike the native API, /v1 cannot send a window, so with neither (a model
// not loaded yet) the server's default applies, which only it knows.
func (c *Client) ollamaWindow(ctx context.Context, model string) (llm.ContextWindow, error) {
	var show llm.ShowResponse
	if err := c.getNative(ctx, http.MethodPost, "/api/show", &llm.ShowRequest{Model: model}, &show); err != nil {
		return llm.ContextWindow{}, err
	}
	trained, _ := show.ContextLength()
	if n, ok := show.NumCtxParameter(); ok {
		return llm.ContextWindow{Tokens: n, Source: llm.WindowFromOllamaShow, Trained: trained}, nil
	}
	var ps llm.ProcessResponse
	if err := c.getNative(ctx, http.MethodGet, "/api/ps", nil, &ps); err != nil {
		return llm.ContextWindow{}, err
	}
	if n, ok := ps.LoadedWindow(model); ok {
		return llm.ContextWindow{Tokens: n, Source: llm.WindowFromOllamaPs, Trained: trained}, nil
	}
	return llm.ContextWindow{}, nil
}
