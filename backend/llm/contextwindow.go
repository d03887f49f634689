package llm

import (
	"strconv"
	"strings"
)

// ContextWindow is the number of tokens a model server holds for one
// request (prompt and answer together) and where Footnote learned it.
// Tokens is 0 when the server does not say.
type ContextWindow struct {
	Tokens int
	Source string
}

// Where a context window came from, recorded with every answer.
const (
	WindowFromOllamaShow    = "ollama /api/show num_ctx"
	WindowFromLlamaCppProps = "llama.cpp /props n_ctx"
	WindowFromLMStudio      = "lm studio /api/v0/models loaded_context_length"
	WindowFromVLLM          = "vllm /v1/models max_model_len"
	WindowFromSetting       = "setting"
)

// NumCtxParameter reads "num_ctx N" from /api/show's parameters text: the
// window Ollama runs the model with when a request does not set num_ctx,
// as on its OpenAI-compatible /v1 endpoint.
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
