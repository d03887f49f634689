package ollamafake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
)

// Ollama also serves the OpenAI-compatible API (/v1/chat/completions,
// /v1/models), which LM Studio, llama.cpp server and vLLM speak too. The
// stream framing follows the recorded transcript: one "data: {chunk}" event
// per token, a last chunk with finish_reason, then "data: [DONE]".

type openAIRequest struct {
	Model         string        `json:"model"`
	Messages      []llm.Message `json:"messages"`
	Stream        bool          `json:"stream"`
	MaxTokens     *int          `json:"max_tokens"`
	Temperature   *float64      `json:"temperature"`
	Seed          *int          `json:"seed"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type openAIUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func writeOpenAIError(w http.ResponseWriter, status int, msg, typ string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func (s *Server) handleOpenAIModels(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	models := append([]Model(nil), s.models...)
	s.mu.Unlock()
	data := []map[string]any{}
	for _, m := range models {
		data = append(data, s.openAIModelEntry(m))
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) handleOpenAIChat(w http.ResponseWriter, r *http.Request) {
	var req openAIRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return
	}
	opts := map[string]any{}
	if req.Temperature != nil {
		opts["temperature"] = *req.Temperature
	}
	if req.Seed != nil {
		opts["seed"] = *req.Seed
	}
	if req.MaxTokens != nil {
		opts["num_predict"] = *req.MaxTokens
	}
	stream := req.Stream
	chat := llm.ChatRequest{Model: req.Model, Messages: req.Messages, Stream: &stream, Options: opts}
	s.noteRequest(chat)
	if req.Model == "" {
		writeOpenAIError(w, http.StatusBadRequest, "model is required", "invalid_request_error")
		return
	}
	m, ok := s.findModel(req.Model)
	if !ok {
		writeOpenAIError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model), "not_found_error")
		return
	}
	s.load(m, 0, nil) // /v1 cannot ask for a window: the Modelfile's or the default applies

	ctx := r.Context()
	reply := withRewrites(s.cfg.responder)(chat)
	tokens, reason := reply.Tokens, cmp.Or(reply.DoneReason, "stop")
	if req.MaxTokens != nil && *req.MaxTokens > 0 && len(tokens) > *req.MaxTokens && !s.cfg.endless {
		tokens, reason = tokens[:*req.MaxTokens], "length"
	}
	total, token := s.replyLength(tokens, req.Stream)
	usage := openAIUsage{PromptTokens: promptTokens(req.Messages), CompletionTokens: total}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	id, created := "chatcmpl-"+digest(req.Model)[:3], time.Now().Unix()
	delay := cmp.Or(reply.Delay, s.cfg.tokenDelay)

	if !wait(ctx, s.cfg.stall) {
		s.noteCancelled()
		return
	}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": strings.Join(tokens, "")}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": req.Model, "system_fingerprint": "fp_ollama",
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": reason}},
			"usage":   usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	event := func(v any) bool {
		b, err := json.Marshal(v)
		if err == nil {
			_, err = fmt.Fprintf(w, "data: %s\n\n", b)
		}
		if err == nil {
			err = rc.Flush()
		}
		return err == nil
	}
	chunk := func(content string, finish any) map[string]any {
		return map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "system_fingerprint": "fp_ollama",
			"choices": []map[string]any{{"index": 0, "delta": map[string]any{"role": "assistant", "content": content}, "finish_reason": finish}},
		}
	}
	for i := 0; ; i++ {
		if i == s.cfg.truncateAfter {
			panic(http.ErrAbortHandler) // cut the connection before [DONE]
		}
		if i == s.cfg.errorAfter {
			event(map[string]any{"error": map[string]any{"message": s.cfg.errorMessage, "type": "api_error"}})
			return
		}
		if i == s.cfg.malformedAfter {
			_, _ = w.Write([]byte("data: {\"id\":\"" + id + "\",\"choices\":[{\n\n"))
			_ = rc.Flush()
			return
		}
		if i == total {
			break
		}
		if i == s.cfg.stallAfter && !wait(ctx, s.cfg.midStall) {
			s.noteCancelled()
			return
		}
		if (i > 0 && !wait(ctx, delay)) || ctx.Err() != nil || !event(chunk(token(i), nil)) {
			s.noteCancelled()
			return
		}
	}
	if !event(chunk("", reason)) {
		s.noteCancelled()
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		event(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": "fp_ollama", "choices": []any{}, "usage": usage})
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	_ = rc.Flush()
}
