package rag

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/search"
)

// evidence retrieves for ans.Question and packs what the model will be
// shown: the re-entry filter, the gates (gate.go), the context plan,
// packing within the budget, and the index stamp on every passage. A gated
// question gets its refusal reason, what refused it, and its nearest
// passages instead of evidence.
func (p *Pipeline) evidence(ctx context.Context, ans *Answer, started time.Time, history []Turn) (search.Result, error) {
	ans.Retrieval.RetrievedAt = p.Clock.Now()
	res, err := p.Retriever.Search(ctx, ans.SearchQuestion(), search.Options{Mode: p.Mode, TopK: p.TopK, AsOf: started})
	if err != nil {
		return res, fmt.Errorf("retrieve evidence: %w", err)
	}
	// Re-entry guard, first pass: the index already filters non-evidence;
	// this drops anything that slipped through before it can be packed.
	res.Hits = slices.DeleteFunc(res.Hits, func(h search.Hit) bool { return !search.Eligible(h.Chunk, started) })
	ans.Retrieval.Returned = len(res.Hits)
	if len(res.Hits) > 0 {
		ans.Retrieval.TopScore = res.Hits[0].ScoreNorm
	}
	res.Hits = withListLeaders(res.Hits, max(p.EvidenceK, 1))

	top := res.Hits[:min(len(res.Hits), max(p.EvidenceK, 1))] // what the model would be shown
	var words WordEvidence
	if p.Answerability != nil && len(top) > 0 {
		// The question searched for, as ΔS reads it: a follow-up's standalone one.
		if words, err = p.Answerability.Words(ctx, ans.SearchQuestion(), top); err != nil {
			return res, err
		}
		ans.Retrieval.recordWords(words)
	}
	d := p.measureDeltaS(ctx, ans, res.Hits)
	refusal, by := p.gate(res.Hits, words, d)
	ans.Retrieval.RefusedBy = by
	if refusal == "" && words.Judged && words.Match < p.WordMatchGate { // passed on ΔS alone
		ans.Retrieval.DeltaSGate = "evidence: the best passage is nearer to the question than an unrelated one; " + ans.Retrieval.DeltaSGate
	}
	if refusal != "" {
		ans.RefusalReason = &refusal
		ans.Answer = RefusalSentence
		for i, h := range res.Hits {
			if i == 3 {
				break
			}
			ans.Nearest = append(ans.Nearest, p.stamp(CitationFromHit(i+1, h), res, ans.Retrieval.RetrievedAt))
		}
		ans.measure.stamp(ans.Nearest)
		return res, nil
	}

	p.plan(ctx, ans)
	p.planHistory(ans, history)
	ans.Evidence = Pack(res.Hits, p.EvidenceK, ans.Retrieval.Budget)
	for i := range ans.Evidence {
		ans.Evidence[i] = p.stamp(ans.Evidence[i], res, ans.Retrieval.RetrievedAt)
	}
	ans.measure.stamp(ans.Evidence)
	ans.Retrieval.Used = len(ans.Evidence)
	for _, c := range ans.Evidence {
		ans.Retrieval.PackedTokens += c.Tokens
	}
	return res, nil
}

// PackedEvidence is the evidence Ask would pack for question now, without
// calling the model; a question the score gate refuses packs none. The
// answer cache uses it to check that a new question's own retrieval finds
// the passages a cached answer cited.
func (p *Pipeline) PackedEvidence(ctx context.Context, question string) ([]Citation, error) {
	ans := Answer{Question: strings.TrimSpace(question), Evidence: []Citation{},
		Retrieval: RetrievalSummary{Mode: p.Mode, K: p.TopK, Gate: p.WordMatchGate}}
	if ans.Question == "" {
		return nil, ErrEmptyQuestion
	}
	if _, err := p.evidence(ctx, &ans, p.Clock.Now(), nil); err != nil {
		return nil, err
	}
	return ans.Evidence, nil
}

// measureDeltaS records ΔS of the question to the passages that would be
// packed (the best EvidenceK hits) on ans, and returns the measurement; nil
// when ΔS is not measured. A failed measurement is noted, not fatal: ΔS
// informs the answer, retrieval already found the evidence.
func (p *Pipeline) measureDeltaS(ctx context.Context, ans *Answer, hits []search.Hit) *DeltaS {
	if p.Relevance == nil || len(hits) == 0 {
		return nil
	}
	top := hits[:min(len(hits), max(p.EvidenceK, 1))]
	ids := make([]string, 0, len(hits))
	for _, h := range hits[:min(len(hits), 3+len(top))] { // the packed ones and the nearest shown on a refusal
		ids = append(ids, h.SnippetID)
	}
	d, err := p.Relevance.Measure(ctx, ans.SearchQuestion(), ids, p.DeltaSGate)
	if err != nil {
		ans.Retrieval.DeltaSGate = "not measured: " + err.Error()
		return nil
	}
	d.Best = d.Background
	for _, h := range top {
		if ds, ok := d.PerPassage[h.SnippetID]; ok {
			d.Best = min(d.Best, ds)
		}
	}
	ans.Retrieval.DeltaS, ans.Retrieval.DeltaSBackground = &d.Best, &d.Background
	ans.Retrieval.DeltaSGate = DeltaSGateState(d.Calibration, p.DeltaSGate)
	ans.measure = &d
	return &d
}

// stamp sets each citation's ΔS from the measurement d (nil: none).
func (d *DeltaS) stamp(cs []Citation) {
	if d == nil {
		return
	}
	for i := range cs {
		if ds, ok := d.PerPassage[cs[i].SnippetID]; ok {
			cs[i].DeltaS = &ds
		}
	}
}

// carryWeight is the least fusion weight (search.WeighRetrievers, relative
// to the most informative list) at which a retriever's list is evidence on
// its own: a flat list — the random-weight models' vector list, floored at
// 0.001 — is not.
const carryWeight = 0.01

// withListLeaders returns hits with the first hit of every list that
// carries weight moved within the first k, ahead of the fused hits it
// displaces, so the gates read it and the model is shown it: a passage one
// retriever ranked first is evidence even when the other list, weighted
// higher, did not find it (issue 36). Otherwise the order is the fused one.
func withListLeaders(hits []search.Hit, k int) []search.Hit {
	if len(hits) <= k {
		return hits
	}
	var leaders []search.Hit
	for _, h := range hits[k:] {
		for _, c := range h.Explain {
			if c.KPos == 1 && c.Weight >= carryWeight {
				leaders = append(leaders, h)
				break
			}
		}
	}
	if len(leaders) == 0 {
		return hits
	}
	keep := max(k-len(leaders), 0)
	out := make([]search.Hit, 0, len(hits))
	out = append(out, hits[:keep]...)
	out = append(out, leaders...)
	for _, h := range hits[keep:] {
		if !slices.ContainsFunc(leaders, func(l search.Hit) bool { return l.SnippetID == h.SnippetID }) {
			out = append(out, h)
		}
	}
	return out
}
