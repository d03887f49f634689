package rag

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/llm"
)

// ErrAnswerTooLong is the cause generation is cancelled with when the model
// streams past the answer length it was asked for (a server may ignore
// num_predict or max_tokens). The text up to the limit is kept and stored
// as incomplete.
var ErrAnswerTooLong = errors.New("the answer reached its length limit")

// maxBytesPerToken turns the token limit into a byte bound. The limit is
// counted in streamed chunks, one token each in Ollama's and the
// OpenAI-compatible servers' streams; a server may instead send many tokens
// in one chunk, so the answer is also held to this many bytes a token.
// English averages about 4 bytes a token and long whitespace or CJK tokens
// stay well under 32, so a well-behaved answer never meets this bound first.
const maxBytesPerToken = 32

// answerLimit holds a streamed answer to a number of chunks and bytes.
type answerLimit struct {
	maxChunks, maxBytes int // 0: no limit
	chunks, bytes       int
}

// admit returns the part of the next chunk that fits (all of it, a prefix
// cut at a character boundary, or nothing) and whether the answer is over
// its limit, so generation must stop.
func (l *answerLimit) admit(content string) (keep string, over bool) {
	if l.maxChunks <= 0 {
		return content, false
	}
	if l.chunks == l.maxChunks {
		return "", true // a chunk past the limit the server was sent
	}
	l.chunks++
	if room := l.maxBytes - l.bytes; len(content) > room {
		keep = content[:room]
		for keep != "" && !utf8.ValidString(keep) {
			keep = keep[:len(keep)-1]
		}
		l.bytes += len(keep)
		return keep, true
	}
	l.bytes += len(content)
	return content, false
}

// RefusalLengthLimit marks an answer cut off at its length limit, by
// Footnote or by the server: kept, and incomplete, but nothing failed.
const RefusalLengthLimit = "length_limit"

// lengthNote is the one sentence stored with an answer cut at its length
// limit: which limit it met, and what to do.
func (p *Pipeline) lengthNote(g Generation, u Usage) string {
	switch {
	case g.NumPredict <= 0 || (u.AnswerTokens > 0 && u.AnswerTokens < g.NumPredict):
		return "The model server cut the answer off at its own length limit, so it is incomplete; ask a narrower question."
	case p.MaxAnswerTokens <= 0 || g.NumPredict < p.MaxAnswerTokens:
		return fmt.Sprintf("The answer was cut off after %d tokens, all that the model's %d-token context window left after the question and passages, "+
			"so it is incomplete; ask a narrower question, or give the model a larger window (num_ctx).", g.NumPredict, g.ContextWindow)
	default:
		return fmt.Sprintf("The answer was cut off at the answer-length limit of %d tokens, so it is incomplete; "+
			"ask a narrower question, or raise max_answer_tokens in Settings.", g.NumPredict)
	}
}

// RequestOptions are the options of every generation request to a model:
// the answer, the follow-up rewrite and doctor's test send the same
// temperature, seed and num_ctx (the model's one window, 0 for none), so
// Ollama never loads the model again between them; only the answer length
// (num_predict, 0 for no limit) differs. An OpenAI-compatible client drops
// num_ctx: its server fixed the window itself.
func RequestOptions(window, seed, numPredict int) map[string]any {
	opts := map[string]any{"temperature": 0.0, "seed": seed}
	if window > 0 {
		opts["num_ctx"] = window
	}
	if numPredict > 0 {
		opts["num_predict"] = numPredict // max_tokens for OpenAI-compatible servers
	}
	return opts
}

// generate streams the answer into a buffer and the sink. It asks the
// server for at most g.NumPredict tokens (the answer-length limit, or less
// when the window leaves less) and enforces it: past the limit it cancels
// the request (closing the connection, which stops the server) and returns
// ErrAnswerTooLong with the text up to the limit.
func (p *Pipeline) generate(ctx context.Context, msgs []llm.Message, g Generation, requestID string, sink Sink) (string, Usage, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var b strings.Builder
	var usage Usage
	stream := true
	opts := RequestOptions(g.NumCtx, g.Seed, g.NumPredict)
	limit := answerLimit{maxChunks: g.NumPredict, maxBytes: g.NumPredict * maxBytesPerToken}
	req := &llm.ChatRequest{Model: p.Model, Messages: msgs, Stream: &stream, Options: opts}
	sent := p.Clock.Now()
	first := true
	err := p.LLM.Chat(ctx, req, func(r llm.ChatResponse) error {
		if r.Message.Content != "" {
			keep, over := limit.admit(r.Message.Content)
			if keep != "" {
				if first {
					usage.FirstTokenMS, first = p.Clock.Now().Sub(sent).Milliseconds(), false
				}
				b.WriteString(keep)
				sink.Token(requestID, keep)
			}
			if over {
				tooLong := fmt.Errorf("%w of %d tokens", ErrAnswerTooLong, g.NumPredict)
				cancel(tooLong)
				return tooLong
			}
		}
		if r.Done {
			usage.PromptTokens, usage.AnswerTokens = r.PromptEvalCount, r.EvalCount
			usage.TotalNS, usage.LoadNS = int64(r.TotalDuration), int64(r.LoadDuration)
			usage.PromptEvalNS, usage.EvalNS = int64(r.PromptEvalDuration), int64(r.EvalDuration)
			usage.DoneReason = r.DoneReason
		}
		return nil
	})
	return b.String(), usage, err
}
