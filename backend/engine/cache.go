package engine

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/cache"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
)

// askCached serves a question from the semantic cache when a revalidated
// entry exists, else runs the pipeline and caches a grounded answer.
func (e *Engine) askCached(ctx context.Context, p *rag.Pipeline, req rag.Request, sink rag.Sink, fresh bool) (rag.Answer, error) {
	if len(req.History) > 0 && req.Followup == nil {
		// The cache keys on the standalone question, so rewrite first.
		f := p.Standalone(ctx, req.History, req.Question)
		req.Followup = &f
	}
	q := strings.TrimSpace(req.Question)
	if req.Followup != nil && strings.TrimSpace(req.Followup.Standalone) != "" {
		q = strings.TrimSpace(req.Followup.Standalone)
	}
	if !e.CacheEnabled() || q == "" || e.store == nil || e.embedder == nil || e.absentModel() != nil {
		return p.Ask(ctx, req, sink)
	}
	c := &cache.Cache{Store: e.store, Reverify: reverifyCached(p)}
	key := cache.Key{SettingsHash: e.hash, Model: p.Provider + "/" + p.Model, Template: rag.TemplateVersion}
	vec, err := e.embedder.EmbedQuery(ctx, q)
	if err != nil {
		return p.Ask(ctx, req, sink) // the pipeline reports the embedding failure
	}
	if !fresh {
		query := cache.Query{Key: key, Question: q, Vector: vec,
			Evidence: func(ctx context.Context) ([]rag.Citation, error) { return p.PackedEvidence(ctx, q) }}
		ans, ok, rejected := e.serveCached(ctx, c, query, p, req, sink)
		if ok {
			return ans, nil
		}
		req.Prior = append(req.Prior, rejected...) // shown and logged on the fresh answer
	}
	ans, err := p.Ask(ctx, req, sink)
	if err == nil {
		if _, perr := c.Put(context.Background(), key, vec, ans); perr != nil {
			fmt.Fprintln(os.Stderr, "footnote:", perr)
		}
	}
	return ans, err
}

// reverifyCached checks a cached answer's claims again, under the current
// verification setting and verifier, against the passages as the new
// question's retrieval packed them: an answer whose claims no longer pass is
// dropped from the cache and the question is answered fresh.
func reverifyCached(p *rag.Pipeline) func(context.Context, rag.Answer, []rag.Citation) (bool, error) {
	return func(ctx context.Context, cached rag.Answer, packed []rag.Citation) (bool, error) {
		now := make(map[string]rag.Citation, len(packed))
		for _, c := range packed {
			now[c.SnippetID] = c
		}
		ans := cached
		ans.Evidence = slices.Clone(cached.Evidence)
		for i, c := range ans.Evidence {
			if cur, ok := now[c.SnippetID]; ok {
				ans.Evidence[i].Text = cur.Text // numbering stays the cached prompt's
			}
		}
		p.Reverify(ctx, &ans)
		return ans.Grounded, nil
	}
}

// serveCached serves req from the cache when an entry passes every rule
// (cache.Lookup, which runs the question's own retrieval to check the cited
// passages) and its citations still validate against the live index. An
// entry whose citations fail validation is dropped, and its issues are
// returned so the fresh answer shows them.
func (e *Engine) serveCached(ctx context.Context, c *cache.Cache, query cache.Query, p *rag.Pipeline, req rag.Request, sink rag.Sink) (rag.Answer, bool, []provenance.Issue) {
	orig, info, found, err := c.Lookup(ctx, query)
	if err != nil || !found {
		return rag.Answer{}, false, nil
	}
	now := p.Clock.Now()
	req.Question = strings.TrimSpace(req.Question)
	ans := cache.Serve(orig, req, info, now)
	ans.Followup = req.Followup
	// Revalidate at the chain boundary against the live index: a cached
	// answer is shown as grounded only if its citations still check out.
	live := p.Live
	live.AsOf = now
	ans.Validation = provenance.Validate(rag.Payloads(ans.Citations), ans.Segments, live)
	if !ans.Validation.OK {
		_ = c.Store.DeleteCache(ctx, orig.ID)
		var rejected []provenance.Issue
		for _, is := range ans.Validation.Issues {
			if is.Severity == provenance.SeverityError {
				is.Message = fmt.Sprintf("a cached answer to this question (%s) was not served: %s", orig.ID, is.Message)
				rejected = append(rejected, is)
			}
		}
		return rag.Answer{}, false, rejected
	}
	// Every citation re-resolved against the live index: the answer is
	// served as the live index's.
	hash := p.IndexHash
	if live.HashNow != nil {
		hash = live.HashNow()
	}
	restamp(&ans, hash)
	if sink != nil {
		func() {
			defer func() { _ = recover() }() // a closed window must not lose the answer
			sink.Evidence(req.ID, ans.Evidence)
			sink.Token(req.ID, ans.Answer)
		}()
	}
	rec, err := rag.Record(ans)
	if err != nil {
		return rag.Answer{}, false, nil
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.store.SaveAnswer(sctx, rec); err != nil {
		return rag.Answer{}, false, nil
	}
	if p.Audit != nil {
		p.Audit(rag.TraceRows(ans, p.StoreName))
	}
	return ans, true, nil
}

// restamp gives a cached answer, whose citations all re-resolved, the live
// index's content identity.
func restamp(ans *rag.Answer, live string) {
	ans.IndexHash = live
	for _, cs := range [][]rag.Citation{ans.Citations, ans.Evidence} {
		for i := range cs {
			cs[i].IndexHash = live
		}
	}
}
