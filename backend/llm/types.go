package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Message is one chat turn. Ollama roles are "system", "user" and "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the body of POST /api/chat.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Stream nil or true streams NDJSON, one object per token; false returns
	// a single JSON object once generation has finished.
	Stream *bool `json:"stream,omitempty"`
	// Format is "json" (as a JSON string) or a JSON schema object.
	Format json.RawMessage `json:"format,omitempty"`
	// Options are model parameters such as temperature, seed, num_ctx and
	// num_predict. Ollama silently truncates prompts longer than num_ctx, so
	// callers that care about long prompts must set num_ctx explicitly.
	Options   map[string]any `json:"options,omitempty"`
	KeepAlive *Duration      `json:"keep_alive,omitempty"`
}

// Metrics are the counters Ollama appends to the final (done:true) object.
// Durations are nanoseconds on the wire, which is what time.Duration holds.
type Metrics struct {
	TotalDuration      time.Duration `json:"total_duration,omitempty"`
	LoadDuration       time.Duration `json:"load_duration,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       time.Duration `json:"eval_duration,omitempty"`
}

// ChatResponse is one object of a /api/chat stream, or the whole reply when
// streaming is off. The last object has Done set, an empty Message.Content,
// a DoneReason ("stop", "length", "load", "unload") and the Metrics.
type ChatResponse struct {
	Model      string    `json:"model"`
	CreatedAt  time.Time `json:"created_at"`
	Message    Message   `json:"message"`
	Done       bool      `json:"done"`
	DoneReason string    `json:"done_reason,omitempty"`
	Metrics
}

// ListResponse is the body of GET /api/tags: the locally installed models.
type ListResponse struct {
	Models []ModelInfo `json:"models"`
}

// ModelInfo describes one installed model in /api/tags.
type ModelInfo struct {
	Name       string       `json:"name"`
	Model      string       `json:"model"`
	ModifiedAt time.Time    `json:"modified_at"`
	Size       int64        `json:"size"`
	Digest     string       `json:"digest"`
	Details    ModelDetails `json:"details"`
	// Capabilities is absent from 0.24.0's /api/tags (recorded) and sent by
	// 0.32.9 and 0.33.0-rc2; Ollama's api/types.go has it from 0.30.0.
	Capabilities []string `json:"capabilities,omitempty"`
}

// ModelDetails is the short model summary shared by /api/tags and /api/show.
type ModelDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
	// ContextLength (the trained window) and EmbeddingLength are absent
	// from 0.24.0's /api/tags (recorded) and sent by 0.32.9 and 0.33.0-rc2;
	// Ollama's api/types.go has them from 0.30.0. /api/show and /api/ps
	// leave them out.
	ContextLength   int `json:"context_length,omitempty"`
	EmbeddingLength int `json:"embedding_length,omitempty"`
}

// ShowRequest is the body of POST /api/show.
type ShowRequest struct {
	Model string `json:"model"`
}

// ShowResponse is the body of POST /api/show. Only the fields Footnote uses
// are typed; ModelInfo keeps the GGUF metadata as Ollama sends it.
type ShowResponse struct {
	Modelfile    string         `json:"modelfile,omitempty"`
	Parameters   string         `json:"parameters,omitempty"`
	Template     string         `json:"template,omitempty"`
	Details      ModelDetails   `json:"details"`
	ModelInfo    map[string]any `json:"model_info,omitempty"`
	Capabilities []string       `json:"capabilities,omitempty"`
	ModifiedAt   time.Time      `json:"modified_at"`
}

// ContextLength returns the trained context window from model_info
// ("<general.architecture>.context_length"). The window Ollama actually
// allocates is num_ctx, which is often smaller (NumCtxParameter).
func (r *ShowResponse) ContextLength() (int, bool) {
	arch, _ := r.ModelInfo["general.architecture"].(string)
	if arch == "" {
		return 0, false
	}
	n, ok := r.ModelInfo[arch+".context_length"].(float64)
	if !ok || n <= 0 || n > math.MaxInt32 || n != math.Trunc(n) {
		return 0, false
	}
	return int(n), true
}

// ProcessResponse is the body of GET /api/ps: the models loaded now.
type ProcessResponse struct {
	Models []ProcessModel `json:"models"`
}

// ProcessModel is one loaded model in /api/ps (recorded from 0.24.0 and
// 0.33.0-rc2 alike).
type ProcessModel struct {
	Name      string       `json:"name"`
	Model     string       `json:"model"`
	Size      int64        `json:"size"`
	Digest    string       `json:"digest"`
	Details   ModelDetails `json:"details"`
	ExpiresAt time.Time    `json:"expires_at"`
	SizeVRAM  int64        `json:"size_vram"`
	// ContextLength is the window the model was loaded with: the num_ctx
	// every request must repeat, or Ollama loads the model again.
	ContextLength int `json:"context_length"`
}

// VersionResponse is the body of GET /api/version.
type VersionResponse struct {
	Version string `json:"version"`
}

// PullRequest is the body of POST /api/pull.
type PullRequest struct {
	Model    string `json:"model"`
	Insecure bool   `json:"insecure,omitempty"`
	Stream   *bool  `json:"stream,omitempty"`
}

// ProgressResponse is one status object of a /api/pull stream. A successful
// pull ends with Status "success".
type ProgressResponse struct {
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Completed int64  `json:"completed,omitempty"`
}

// StatusError is a non-2xx answer from Ollama, or an {"error":...} object
// inside a 200 stream (then StatusCode is the stream's 200).
type StatusError struct {
	StatusCode   int
	Status       string // e.g. "404 Not Found"
	ErrorMessage string // the server's {"error":...} text, or its plain-text body
}

func (e *StatusError) Error() string {
	switch {
	case e.ErrorMessage == "":
		return "ollama: " + e.Status
	case e.Status == "":
		return "ollama: " + e.ErrorMessage
	default:
		return "ollama: " + e.Status + ": " + e.ErrorMessage
	}
}

// Is makes errors.Is(err, ErrModelNotFound) true for Ollama's 404
// "model 'x' not found" answers (chat, generate, show, embed).
func (e *StatusError) Is(target error) bool {
	if target != ErrModelNotFound || e.StatusCode != 404 {
		return false
	}
	msg := strings.ToLower(e.ErrorMessage)
	return strings.Contains(msg, "model") && strings.Contains(msg, "not found")
}

// Duration is a keep_alive value. Ollama accepts a Go duration string ("5m")
// or a number of seconds; a negative value keeps the model loaded forever
// and 0 unloads it right after the request.
type Duration time.Duration

// MarshalJSON writes a duration string, or -1 for "forever".
func (d Duration) MarshalJSON() ([]byte, error) {
	if d < 0 {
		return []byte("-1"), nil
	}
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON accepts a number of seconds or a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch t := v.(type) {
	case float64:
		if t < 0 {
			*d = -1
		} else {
			*d = Duration(t * float64(time.Second))
		}
	case string:
		p, err := time.ParseDuration(t)
		if err != nil {
			return fmt.Errorf("keep_alive: %w", err)
		}
		if p < 0 {
			p = -1
		}
		*d = Duration(p)
	default:
		return errors.New("keep_alive: must be a number of seconds or a duration string")
	}
	return nil
}
