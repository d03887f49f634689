package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/cache"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

// provState holds the answer cache switch, the cross-section policy, the
// retrieval mode and the audit log. The zero value has the cache on, the
// policy "allow" and hybrid retrieval; New applies the saved settings.
type provState struct {
	mu           sync.Mutex
	cacheOff     bool
	crossSection string
	mode         string // retrieval mode for questions and searches that name none
	audit        *provenance.AuditLog
	auditErr     error
}

// SetCacheEnabled turns the semantic answer cache on or off.
func (e *Engine) SetCacheEnabled(on bool) {
	e.prov.mu.Lock()
	e.prov.cacheOff = !on
	e.prov.mu.Unlock()
}

// SetRetrievalMode sets the retrieval mode (hybrid, lexical or vector) used
// by questions and by searches that name none.
func (e *Engine) SetRetrievalMode(mode string) error {
	mode, err := search.ParseMode(mode)
	if err != nil {
		return err
	}
	e.prov.mu.Lock()
	e.prov.mode = mode
	e.prov.mu.Unlock()
	return nil
}

// RetrievalMode is the mode SetRetrievalMode set (hybrid by default).
func (e *Engine) RetrievalMode() string {
	e.prov.mu.Lock()
	defer e.prov.mu.Unlock()
	if e.prov.mode == "" {
		return search.ModeHybrid
	}
	return e.prov.mode
}

// CacheEnabled reports whether answers may be served from the cache.
func (e *Engine) CacheEnabled() bool {
	e.prov.mu.Lock()
	defer e.prov.mu.Unlock()
	return !e.prov.cacheOff
}

// SetCrossSectionPolicy sets whether one answer sentence may cite several
// sections: provenance.PolicyAllow (with a warning, the default) or
// provenance.PolicyForbid.
func (e *Engine) SetCrossSectionPolicy(policy string) error {
	if policy != provenance.PolicyAllow && policy != provenance.PolicyForbid {
		return fmt.Errorf("unknown cross-section policy %q: use %q or %q", policy, provenance.PolicyAllow, provenance.PolicyForbid)
	}
	e.prov.mu.Lock()
	e.prov.crossSection = policy
	e.prov.mu.Unlock()
	return nil
}

// AuditLogPath is where the audit log is written.
func (e *Engine) AuditLogPath() string { return filepath.Join(e.cfg.Home, provenance.AuditFileName) }

// wireProvenance stamps the pipeline with the live index identity, the
// validators' view of the index and the audit trail.
func (e *Engine) wireProvenance(p *rag.Pipeline) {
	st := e.store
	p.IndexHash, p.Analyzer = e.hash, store.Analyzer
	e.prov.mu.Lock()
	policy := e.prov.crossSection
	e.prov.mu.Unlock()
	p.Live = provenance.Live{IndexHash: e.hash, Analyzer: store.Analyzer, CrossSection: policy}
	if st == nil {
		return
	}
	// The analyzer citations carry is the one the index was written with.
	if a, ok, err := st.Meta(context.Background(), "analyzer"); err == nil && ok {
		p.Analyzer = a
	}
	p.Live.Rev = func(docID string) (string, bool) {
		rev, ok, err := st.DocumentRev(context.Background(), docID)
		return rev, ok && err == nil
	}
	p.StoreName = filepath.Base(st.Path())
	p.Audit = func(rows []provenance.TraceRow) { e.audit(st, rows) }
}

// audit writes rows to the log file and the rag_traces table. A failing
// audit write must not lose the answer, so errors go to stderr.
func (e *Engine) audit(st *store.Store, rows []provenance.TraceRow) {
	e.prov.mu.Lock()
	if e.prov.audit == nil && e.prov.auditErr == nil {
		e.prov.audit, e.prov.auditErr = provenance.OpenAudit(e.cfg.Home, 0, 0)
	}
	log := e.prov.audit
	e.prov.mu.Unlock()
	if log != nil {
		if err := log.Write(rows...); err != nil {
			fmt.Fprintln(os.Stderr, "footnote:", err)
		}
	}
	recs := make([]store.TraceRecord, len(rows))
	for i, r := range rows {
		// The table keeps the trail; the evidence source counts are in the log line.
		recs[i] = store.TraceRecord{TS: r.TS, QID: r.QID, Seg: r.Seg, Kind: r.Kind, Store: r.Store,
			IndexHash: r.IndexHash, EmbedModel: r.EmbedModel, Citations: r.Citations, Scores: r.Scores,
			KPos: r.KPos, KFinal: r.KFinal, SectionIDs: r.SectionIDs, Revs: r.Revs, Text: r.Text}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := st.AddTraces(ctx, recs); err != nil {
		fmt.Fprintln(os.Stderr, "footnote:", err)
	}
}

func (e *Engine) closeAudit() error {
	e.prov.mu.Lock()
	defer e.prov.mu.Unlock()
	if e.prov.audit == nil {
		return nil
	}
	err := e.prov.audit.Close()
	e.prov.audit = nil
	return err
}

// AskFresh answers without consulting the cache (the answer still refreshes it).
func (e *Engine) AskFresh(ctx context.Context, req rag.Request, sink rag.Sink, adjust func(*rag.Pipeline)) (rag.Answer, error) {
	return e.askWith(ctx, req, sink, adjust, true)
}

// askCached serves a question from the semantic cache when a revalidated
// entry exists, else runs the pipeline and caches a grounded answer.
func (e *Engine) askCached(ctx context.Context, p *rag.Pipeline, req rag.Request, sink rag.Sink, fresh bool) (rag.Answer, error) {
	q := strings.TrimSpace(req.Question)
	if !e.CacheEnabled() || q == "" || e.store == nil || e.embedder == nil {
		return p.Ask(ctx, req, sink)
	}
	c := &cache.Cache{Store: e.store, Reverify: reverifyCached(p)}
	key := cache.Key{IndexHash: e.hash, Model: p.Provider + "/" + p.Model, Template: rag.TemplateVersion}
	vec, err := e.embedder.EmbedQuery(ctx, q)
	if err != nil {
		return p.Ask(ctx, req, sink) // the pipeline reports the embedding failure
	}
	if !fresh {
		query := cache.Query{Key: key, Question: q, Vector: vec,
			Evidence: func(ctx context.Context) ([]rag.Citation, error) { return p.PackedEvidence(ctx, q) }}
		if ans, ok := e.serveCached(ctx, c, query, p, req, sink); ok {
			return ans, nil
		}
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
// passages) and its citations still validate against the live index.
func (e *Engine) serveCached(ctx context.Context, c *cache.Cache, query cache.Query, p *rag.Pipeline, req rag.Request, sink rag.Sink) (rag.Answer, bool) {
	orig, info, found, err := c.Lookup(ctx, query)
	if err != nil || !found {
		return rag.Answer{}, false
	}
	now := p.Clock.Now()
	req.Question = strings.TrimSpace(req.Question)
	ans := cache.Serve(orig, req, info, now)
	// Revalidate at the chain boundary against the live index: a cached
	// answer is shown as grounded only if its citations still check out.
	live := p.Live
	live.AsOf = now
	ans.Validation = provenance.Validate(rag.Payloads(ans.Citations), ans.Segments, live)
	if !ans.Validation.OK {
		_ = c.Store.DeleteCache(ctx, orig.ID)
		return rag.Answer{}, false
	}
	if sink != nil {
		func() {
			defer func() { _ = recover() }() // a closed window must not lose the answer
			sink.Evidence(req.ID, ans.Evidence)
			sink.Token(req.ID, ans.Answer)
		}()
	}
	rec, err := rag.Record(ans)
	if err != nil {
		return rag.Answer{}, false
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.store.SaveAnswer(sctx, rec); err != nil {
		return rag.Answer{}, false
	}
	if p.Audit != nil {
		p.Audit(rag.TraceRows(ans, p.StoreName))
	}
	return ans, true
}
