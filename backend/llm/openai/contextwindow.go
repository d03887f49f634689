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
//   - Ollama behind /v1: the num_ctx parameter in /api/show
//
// It returns a zero window when none of them says; the caller then uses
// its setting. Errors other than "this server does not have that
// endpoint" are returned only when nothing was learned.
func (c *Client) ContextWindow(ctx context.Context, model string) (llm.ContextWindow, error) {
	var errs []error
	if m, err := c.FindModel(ctx, model); err == nil && m.MaxModelLen > 0 {
		return llm.ContextWindow{Tokens: m.MaxModelLen, Source: llm.WindowFromVLLM}, nil
	} else if err != nil && !errors.Is(err, llm.ErrModelNotFound) {
		return llm.ContextWindow{}, err // unreachable or refused: nothing more to ask
	}
	probes := []func(context.Context, string) (int, error){c.lmStudioWindow, c.llamaCppWindow, c.ollamaWindow}
	sources := []string{llm.WindowFromLMStudio, llm.WindowFromLlamaCppProps, llm.WindowFromOllamaShow}
	for i, probe := range probes {
		n, err := probe(ctx, model)
		if n > 0 {
			return llm.ContextWindow{Tokens: n, Source: sources[i]}, nil
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

func (c *Client) lmStudioWindow(ctx context.Context, model string) (int, error) {
	var out struct {
		Data []struct {
			ID                  string `json:"id"`
			State               string `json:"state"`
			LoadedContextLength int    `json:"loaded_context_length"`
		} `json:"data"`
	}
	if err := c.getNative(ctx, http.MethodGet, "/api/v0/models", nil, &out); err != nil {
		return 0, err
	}
	for _, m := range out.Data {
		if listedAs(m.ID, model) {
			return m.LoadedContextLength, nil
		}
	}
	return 0, nil
}

func (c *Client) llamaCppWindow(ctx context.Context, _ string) (int, error) {
	var out struct {
		DefaultGenerationSettings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if err := c.getNative(ctx, http.MethodGet, "/props", nil, &out); err != nil {
		return 0, err
	}
	return out.DefaultGenerationSettings.NCtx, nil
}

func (c *Client) ollamaWindow(ctx context.Context, model string) (int, error) {
	var out llm.ShowResponse
	if err := c.getNative(ctx, http.MethodPost, "/api/show", &llm.ShowRequest{Model: model}, &out); err != nil {
		return 0, err
	}
	n, _ := out.NumCtxParameter()
	return n, nil
}
