package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// provState holds the audit log, opened at the first answer.
type provState struct {
	mu       sync.Mutex
	audit    *provenance.AuditLog
	auditErr error
}

// AuditLogPath is where the audit log is written.
func (e *Engine) AuditLogPath() string { return filepath.Join(e.cfg.Home, provenance.AuditFileName) }

// wireProvenance stamps the pipeline with the live index identity, the
// validators' view of the index and the audit trail.
func (e *Engine) wireProvenance(p *rag.Pipeline) {
	st := e.store
	p.Analyzer = store.Analyzer
	p.Live = provenance.Live{Analyzer: store.Analyzer, CrossSection: e.Settings().CrossSection}
	if st == nil {
		return
	}
	// Citations carry the content identity of the index state that served
	// them; one from another state counts if its passage still resolves.
	p.IndexHash = st.ContentHash()
	p.Live.IndexHash = p.IndexHash
	// Citations are checked against the index as it is when the answer is
	// done: one re-indexed meanwhile must still hold the cited passages.
	p.Live.HashNow = func() string { return st.LiveContentHash(context.Background()) }
	p.Live.Resolve = func(c provenance.Payload) bool { return resolves(st, c) }
	p.Live.SourceOf = func(snippetID string) (string, bool) {
		recs, err := st.Chunks(context.Background(), []string{snippetID})
		r, ok := recs[snippetID]
		return r.Source, ok && err == nil
	}
	// Citations carry the analyzer the index was written with; the check
	// compares it with the one this process tokenizes queries with
	// (store.Analyzer). An index written with another is refused before
	// retrieval (analyzer.go) unless it is the old index serving while it
	// is rebuilt: then the answer is refused before generation.
	if a, ok, err := st.Meta(context.Background(), "analyzer"); err == nil && ok {
		p.Analyzer = a
	}
	p.Live.Rev = func(docID string) (string, bool) {
		rev, ok, err := st.DocumentRev(context.Background(), docID)
		return rev, ok && err == nil
	}
	p.Previous = func(ctx context.Context, question string) (rag.Answer, bool) {
		rec, found, err := st.LatestAnswerTo(ctx, question)
		if err != nil || !found {
			return rag.Answer{}, false
		}
		a, err := rag.FromRecord(rec)
		return a, err == nil
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
		recs[i] = store.TraceRecord{TS: r.TS, QID: r.QID, Seg: r.Seg, Kind: r.Kind, K: r.K, TraceID: r.TraceID,
			DeltaS: r.DeltaS, Lambda: r.Lambda, Analyzer: r.Analyzer, Store: r.Store,
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

// resolves reports whether a citation's passage is in st as cited: the same
// snippet, document revision and offsets.
func resolves(st *store.Store, c provenance.Payload) bool {
	recs, err := st.Chunks(context.Background(), []string{c.SnippetID})
	if err != nil {
		return false
	}
	r, ok := recs[c.SnippetID]
	return ok && r.DocID == c.DocID && r.Rev == c.Rev && r.Offsets == c.Offsets
}
