package rag

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/verify"
)

// TraceRows renders an answer's audit trail: a question row, one row per
// answer segment with the citations it uses, then one row per failed check
// with its code and fix.
func TraceRows(a Answer, storeName string) []provenance.TraceRow {
	base := provenance.TraceRow{TS: a.FinishedAt, QID: a.RequestID, K: a.Retrieval.K, Store: storeName, IndexHash: a.IndexHash,
		EmbedModel: a.EmbedModel, TraceID: a.TraceID, Version: a.Version}
	if a.Cache != nil {
		base.Store = "cache"
	}
	q := base
	q.Kind, q.Text, q.TS = provenance.KindQuestion, a.Question, a.CreatedAt
	q.DeltaS, q.Lambda = a.Retrieval.DeltaS, a.Lambda
	q.EvidenceSources = CountEvidenceSources(a.Evidence)
	q.RefusedBy = a.Retrieval.RefusedBy.Short()
	// The question row lists the candidate passages — what was packed, or
	// for a refusal what was nearest — so a refused or uncited answer still
	// shows what retrieval found.
	candidates := a.Evidence
	if len(candidates) == 0 {
		candidates = a.Nearest
	}
	for _, c := range candidates {
		traceCitation(&q, c)
		if base.Analyzer == "" {
			base.Analyzer = c.Analyzer
		}
	}
	q.Analyzer = base.Analyzer
	for _, is := range a.Validation.Issues {
		q.Checks = append(q.Checks, is.Code)
	}
	rows := []provenance.TraceRow{q}
	byN := map[int]Citation{}
	for _, c := range a.Evidence {
		byN[c.N] = c
	}
	for i, seg := range a.Segments {
		r := base
		r.Kind, r.Seg, r.Text = provenance.KindSegment, i+1, seg.Text
		var cited []Citation
		for _, n := range seg.Cites {
			c, ok := byN[n]
			if !ok {
				continue
			}
			traceCitation(&r, c)
			cited = append(cited, c)
			if c.DeltaS != nil && (r.DeltaS == nil || *c.DeltaS < *r.DeltaS) {
				r.DeltaS = c.DeltaS
			}
		}
		// A segment's λ is its own by ΔS when that can be told; else the
		// answer's (a repeat's, or a stored answer's measured when asked).
		if r.Lambda = lambdaOf(a.measure, cited); r.Lambda == LambdaUnknown && len(cited) > 0 {
			r.Lambda = a.Lambda
		}
		rows = append(rows, r)
	}
	return append(rows, provenance.CheckRows(base, a.Validation.Issues)...)
}

// traceCitation appends one passage to a trace row's parallel lists.
func traceCitation(r *provenance.TraceRow, c Citation) {
	r.Citations = append(r.Citations, c.SnippetID)
	r.Scores = append(r.Scores, c.ScoreNorm)
	r.KPos = append(r.KPos, c.KPos)
	r.KFinal = append(r.KFinal, c.KFinal)
	r.SectionIDs = append(r.SectionIDs, c.SectionID)
	r.Revs = append(r.Revs, c.Rev)
}

// storedDetails is what retrieval_json holds: the retrieval summary and
// evidence, and the generation details that have no column of their own.
type storedDetails struct {
	RetrievalSummary
	Evidence   []Citation `json:"evidence"`
	Nearest    []Citation `json:"nearest,omitempty"`
	Generation Generation `json:"generation"`
	Usage      Usage      `json:"usage"`
	FinishedAt time.Time  `json:"finished_at"`

	IndexHash  string                `json:"index_hash,omitempty"`
	Provenance provenance.Provenance `json:"provenance"`
	Validation provenance.Report     `json:"validation"`
	Segments   []provenance.Segment  `json:"segments,omitempty"`
	Cache      *CacheInfo            `json:"cache,omitempty"`

	Claims       []verify.ClaimResult `json:"claims,omitempty"`
	Verification *Verification        `json:"verification,omitempty"`

	EvidenceSourceCounts map[string]int `json:"evidence_source_counts,omitempty"`
	TraceID              string         `json:"trace_id,omitempty"`

	Followup    *Followup    `json:"followup,omitempty"`
	Lambda      string       `json:"lambda_state,omitempty"`
	LambdaBasis *LambdaBasis `json:"lambda_basis,omitempty"`

	Version string `json:"footnote_version,omitempty"`
}

// Record converts an answer into its stored form.
func Record(a Answer) (store.AnswerRecord, error) {
	cites, err := json.Marshal(a.Citations)
	if err != nil {
		return store.AnswerRecord{}, err
	}
	retrieval, err := json.Marshal(storedDetails{a.Retrieval, a.Evidence, a.Nearest, a.Generation, a.Usage, a.FinishedAt,
		a.IndexHash, a.Provenance, a.Validation, a.Segments, a.Cache, a.Claims, a.Verification, a.EvidenceSourceCounts, a.TraceID, a.Followup, a.Lambda, a.LambdaBasis, a.Version})
	if err != nil {
		return store.AnswerRecord{}, err
	}
	reason := ""
	if a.RefusalReason != nil {
		reason = *a.RefusalReason
	}
	return store.AnswerRecord{
		ID: a.ID, RequestID: a.RequestID, Question: a.Question, Answer: a.Answer,
		Grounded: a.Grounded, Stopped: a.Stopped, RefusalReason: reason,
		CitationsJSON: string(cites), Model: a.Model, EmbedModel: a.EmbedModel,
		PromptTemplate: a.PromptTemplate, RetrievalJSON: string(retrieval),
		PromptTokens: a.Usage.PromptTokens, AnswerTokens: a.Usage.AnswerTokens,
		DurationMS: a.DurationMS, Error: a.Error, CreatedAt: a.CreatedAt,
	}, nil
}

// FromRecord rebuilds an answer from its stored form; FromRecord(Record(a))
// equals a, so what is shown (ask --json, history) is what was stored.
func FromRecord(r store.AnswerRecord) (Answer, error) {
	a := Answer{
		Schema: AnswerSchema, ID: r.ID, RequestID: r.RequestID, Question: r.Question, Answer: r.Answer,
		Grounded: r.Grounded, Stopped: r.Stopped, Model: r.Model, EmbedModel: r.EmbedModel,
		PromptTemplate: r.PromptTemplate, Error: r.Error, DurationMS: r.DurationMS, CreatedAt: r.CreatedAt,
	}
	if r.RefusalReason != "" {
		reason := r.RefusalReason
		a.RefusalReason = &reason
	}
	// Derived rather than stored: the partial text is kept with the reason.
	a.Incomplete = r.Answer != "" && (r.Stopped || r.RefusalReason == RefusalLLMError || r.RefusalReason == RefusalLengthLimit)
	if err := json.Unmarshal([]byte(r.CitationsJSON), &a.Citations); err != nil {
		return Answer{}, fmt.Errorf("answer %s: citations: %w", r.ID, err)
	}
	var d storedDetails
	if err := json.Unmarshal([]byte(r.RetrievalJSON), &d); err != nil {
		return Answer{}, fmt.Errorf("answer %s: retrieval: %w", r.ID, err)
	}
	a.Retrieval, a.Evidence, a.Nearest = d.RetrievalSummary, d.Evidence, d.Nearest
	a.Generation, a.Usage, a.FinishedAt = d.Generation, d.Usage, d.FinishedAt
	a.IndexHash, a.Provenance, a.Validation, a.Segments, a.Cache = d.IndexHash, d.Provenance, d.Validation, d.Segments, d.Cache
	a.Claims, a.Verification, a.TraceID = d.Claims, d.Verification, d.TraceID
	a.Followup, a.Lambda, a.LambdaBasis = d.Followup, d.Lambda, d.LambdaBasis
	a.Version = d.Version
	if a.Provenance.SourceTimestamp.IsZero() { // stored before retrieval time was recorded
		a.Provenance.SourceTimestamp = a.CreatedAt
	}
	if a.Lambda == "" { // stored before λ was recorded
		a.Lambda = LambdaUnknown
	}
	if a.Citations == nil {
		a.Citations = []Citation{}
	}
	if a.Evidence == nil {
		a.Evidence = []Citation{}
	}
	a.EvidenceSourceCounts = d.EvidenceSourceCounts
	if a.EvidenceSourceCounts == nil { // stored before the counts were kept
		a.EvidenceSourceCounts = CountEvidenceSources(a.Evidence)
	}
	return a, nil
}
