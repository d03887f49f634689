package llm

import (
	"context"
	"strconv"
	"strings"
)

// ContextWindow is the number of tokens a model server holds for one
// request (prompt and answer together) and where Footnote learned it.
// Tokens is 0 when the server does not say. Trained is the model's trained
// length when the server reported it (0 otherwise).
type ContextWindow struct {
	Tokens  int
	Source  string
	Trained int
}

// Where a context window came from, recorded with every answer.
const (
	WindowFromOllamaShow    = "ollama /api/show num_ctx (the model's Modelfile)"
	WindowFromOllamaPs      = "ollama /api/ps context_length (the model as loaded)"
	WindowFromTrained       = "the model's trained window (ollama /api/show), below the num_ctx setting"
	WindowFromLlamaCppProps = "llama.cpp /props n_ctx"
	WindowFromLMStudio      = "lm studio /api/v0/models loaded_context_length"
	WindowFromVLLM          = "vllm /v1/models max_model_len"
	WindowFromSetting       = "setting"
)

// NumCtxParameter reads "num_ctx N" from /api/show's parameters text: the
// PARAMETER num_ctx of the model's Modelfile, the window Ollama runs the
// model with when a request does not set num_ctx (as on its
// OpenAI-compatible /v1 endpoint). A model pulled from the library
// usually has none; then Ollama's default applies.
func (r *ShowResponse) NumCtxParameter() (int, bool) {
	for line := range strings.SplitSeq(r.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n, true
			}
		}
	}
	return 0, false
}

// LoadedWindow returns the window model is loaded with, from /api/ps;
// false when it is not loaded (Ollama lists loaded models only).
func (r *ProcessResponse) LoadedWindow(model string) (int, bool) {
	for _, m := range r.Models {
		if (SameModel(m.Name, model) || SameModel(m.Model, model)) && m.ContextLength > 0 {
			return m.ContextLength, true
		}
	}
	return 0, false
}

// SameModel reports whether two Ollama model names name one model: Ollama
// reads a name without a tag as ":latest" and ignores case.
func SameModel(a, b string) bool {
	canonical := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if s != "" && !strings.Contains(s[strings.LastIndex(s, "/")+1:], ":") {
			s += ":latest"
		}
		return s
	}
	return a != "" && canonical(a) == canonical(b)
}

// ChooseWindow decides the one window a model runs with on an Ollama
// server, from its /api/show answer and, when the model is loaded, its
// /api/ps entry (nil when not asked or not answered):
//
//  1. the Modelfile's num_ctx, which the user set on purpose;
//  2. else the window the loaded model runs with, so sending it costs no
//     reload;
//  3. else setting, capped at the model's trained length.
//
// Every request to the model must carry the result as num_ctx: Ollama
// loads the model again whenever num_ctx changes between requests.
func ChooseWindow(show *ShowResponse, ps *ProcessResponse, model string, setting int) ContextWindow {
	trained, _ := show.ContextLength()
	if n, ok := show.NumCtxParameter(); ok {
		return ContextWindow{Tokens: n, Source: WindowFromOllamaShow, Trained: trained}
	}
	if ps != nil {
		if n, ok := ps.LoadedWindow(model); ok {
			return ContextWindow{Tokens: n, Source: WindowFromOllamaPs, Trained: trained}
		}
	}
	if trained > 0 && trained < setting {
		return ContextWindow{Tokens: trained, Source: WindowFromTrained, Trained: trained}
	}
	return ContextWindow{Tokens: setting, Source: WindowFromSetting + " num_ctx", Trained: trained}
}

// ContextWindow decides the window model runs with on this server (see
// ChooseWindow); setting is the num_ctx setting. /api/ps is asked only
// when the Modelfile does not fix the window. An error (server down, model
// missing) decides nothing.
func (c *Client) ContextWindow(ctx context.Context, model string, setting int) (ContextWindow, error) {
	show, err := c.Show(ctx, model)
	if err != nil {
		return ContextWindow{}, err
	}
	var ps *ProcessResponse
	if _, fixed := show.NumCtxParameter(); !fixed {
		ps, _ = c.ListRunning(ctx) // a server without /api/ps just has no loaded window to offer
	}
	return ChooseWindow(show, ps, model, setting), nil
}
