package rag

import (
	"context"

	"github.com/footnote-app/footnote/backend/search"
)

// plan sizes the context window and the evidence budget:
// budget = min(setting, num_ctx − prompt − question − answer reserve).
func (p *Pipeline) plan(ctx context.Context, ans *Answer) {
	count := p.CountTokens
	if count == nil {
		count = approxTokens
	}
	g := &ans.Generation
	g.PromptTokens = PromptTokens(count, ans.Question)
	g.NumCtx = p.NumCtx
	if p.ServerWindow != nil {
		g.NumCtx, g.ContextSource = p.ServerWindow(ctx, p.Model)
		g.ModelContext, g.ContextWindow = g.NumCtx, g.NumCtx // a fixed window cannot grow
		ans.Retrieval.Budget = Budget(p.ContextTokens, g.NumCtx, g.PromptTokens, p.AnswerReserve)
		return
	}
	g.ContextSource = contextSourceNumCtx
	if p.ModelContext != nil {
		if n, err := p.ModelContext(ctx, p.Model); err == nil && n > 0 {
			g.ModelContext = n
			if g.NumCtx == 0 || n < g.NumCtx {
				g.NumCtx, g.ContextSource = n, contextSourceModel
			}
		}
	}
	g.ContextWindow = g.NumCtx
	ans.Retrieval.Budget = Budget(p.ContextTokens, g.NumCtx, g.PromptTokens, p.AnswerReserve)
}

// Where the window sent as num_ctx came from (Ollama's native API).
const (
	contextSourceNumCtx = "num_ctx setting, sent with the request"
	contextSourceModel  = "model's trained window (ollama /api/show), sent as num_ctx"
)

// Budget is the evidence token budget: the setting, lowered to what the
// context window leaves after the prompt (rules, framing and question) and
// the answer reserve. numCtx 0 means the window is unknown. Never negative;
// Pack still packs one passage when it is 0.
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

// Gate refuses before any LLM call when there is no evidence or the best
// evidence scores below the gate. It returns the refusal reason or "".
// The best fused score is looked for among all hits, not just the first: a
// reranker may have moved a lower-fused hit to the top, and reordering must
// not turn an answerable question into a refusal.
func Gate(hits []search.Hit, gate float64) string {
	if len(hits) == 0 {
		return RefusalNoChunks
	}
	best := hits[0].ScoreNorm
	for _, h := range hits[1:] {
		best = max(best, h.ScoreNorm)
	}
	if best < gate {
		return RefusalScoreGate
	}
	return ""
}

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
