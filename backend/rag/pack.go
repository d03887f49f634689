package rag

import (
	"context"
	"errors"
	"fmt"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/search"
)

// plan sizes the evidence budget within the model's one context window
// (Pipeline.Window): budget = min(setting, window − prompt − question −
// answer reserve).
func (p *Pipeline) plan(ctx context.Context, ans *Answer) {
	g := &ans.Generation
	g.PromptTokens = PromptTokens(p.counter(), ans.Question)
	w := p.window(ctx)
	g.NumCtx, g.ContextWindow, g.ContextSource, g.ModelContext = w.Tokens, w.Tokens, w.Source, w.Trained
	ans.Retrieval.Budget = Budget(p.ContextTokens, w.Tokens, g.PromptTokens, p.AnswerReserve)
}

// window is the one context window of p.Model that every request carries
// (Pipeline.Window), or the NumCtx setting when nothing decides one; zero
// when neither is known.
func (p *Pipeline) window(ctx context.Context) llm.ContextWindow {
	if p.Window != nil {
		if w := p.Window(ctx, p.Model); w.Tokens > 0 {
			return w
		}
	}
	if p.NumCtx > 0 {
		return llm.ContextWindow{Tokens: p.NumCtx, Source: contextSourceNumCtx}
	}
	return llm.ContextWindow{}
}

func (p *Pipeline) counter() func(string) int {
	if p.CountTokens != nil {
		return p.CountTokens
	}
	return approxTokens
}

// contextSourceNumCtx: no server decided the window, so the num_ctx
// setting is sent.
const contextSourceNumCtx = "num_ctx setting, sent with the request"

// minAnswerTokens is the least room an answer is asked to fit in: a
// sentence or two with their citations.
const minAnswerTokens = 64

// templateTokens allows for the chat template's markers around each
// message (role tags, separators), which the counted text leaves out.
const templateTokens = 8

// RefusalContextWindow: the question and its best passage leave too little
// of the model's context window for an answer, so the model was not asked.
const RefusalContextWindow = "context_window"

// ErrWindowTooSmall is the cause stored with a RefusalContextWindow answer.
var ErrWindowTooSmall = errors.New("the context window is too small for the question and its evidence")

// answerLength returns the longest answer to ask for after msgs
// (num_predict, max_tokens on OpenAI-compatible servers): MaxAnswerTokens,
// lowered to what the window leaves, so prompt and answer never exceed the
// window. fits is false when the window leaves less than minAnswerTokens
// (or the whole MaxAnswerTokens, when that is smaller); used is the prompt's
// estimated size.
func (p *Pipeline) answerLength(window int, msgs []llm.Message) (n, used int, fits bool) {
	count := p.counter()
	for _, m := range msgs {
		used += count(m.Content) + templateTokens
	}
	n = p.MaxAnswerTokens
	if window <= 0 {
		return n, used, true
	}
	room := window - used
	if n <= 0 || room < n {
		n = room
	}
	least := minAnswerTokens
	if p.MaxAnswerTokens > 0 {
		least = min(least, p.MaxAnswerTokens)
	}
	return max(n, 0), used, n >= least
}

// windowTooSmall is the note of a RefusalContextWindow answer.
func windowTooSmall(g Generation, model string, used int) string {
	return fmt.Sprintf("The question and its best passage take about %d of the %d tokens of %s's context window (%s), leaving too little for an answer, "+
		"so the model was not asked; give the model a larger window (num_ctx).", used, g.ContextWindow, model, g.ContextSource)
}

// Budget is the evidence token budget: the setting, lowered to what the
// context window leaves after the prompt (rules, framing and question) and
// the answer reserve. numCtx 0 means the window is unknown. Never negative;
// Pack still packs one passage when it is 0, and the answer length is then
// cut to what the window leaves (answerLength).
func Budget(setting, numCtx, promptTokens, reserve int) int {
	b := setting
	if numCtx > 0 {
		b = min(b, numCtx-promptTokens-reserve)
	}
	return max(b, 0)
}

// approxTokens is the fallback estimate: about four bytes a token for
// English text with BPE tokenizers, rounded up.
func approxTokens(s string) int { return (len(s) + 3) / 4 }

// Pack takes hits in rank order while they fit the token budget and the
// evidence count; the first hit is always packed so a question with any
// evidence gets an answer attempt. Passages are numbered [#1]..[#n].
func Pack(hits []search.Hit, maxChunks, budget int) []Citation {
	var out []Citation
	used := 0
	for _, h := range hits {
		if len(out) == maxChunks {
			break
		}
		if len(out) > 0 && used+h.Tokens > budget {
			continue
		}
		used += h.Tokens
		out = append(out, CitationFromHit(len(out)+1, h))
	}
	return out
}
