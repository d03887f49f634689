// Package rag owns the grounded answer pipeline: retrieve → score gate →
// pack evidence within a token budget → prompt → stream from the LLM →
// split the answer into claims (markers copied out of evidence or inside
// code are not citations) → validate the citations → verify each claim
// against the passage it cites (verify.go) → persist. An answer is called
// grounded only when its citations check out against the packed evidence
// and, under strict verification, every claim is cited and supported.
package rag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/clock"
	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/verify"
)

// Citation is a numbered piece of evidence as shown to the model, the UI and
// the CLI. It carries the full provenance payload (see backend/provenance):
// score_raw is the fused RRF score before normalisation (each retriever's
// own raw score is in explain), k_pos the best rank any retriever gave it.
type Citation struct {
	N           int                    `json:"n"`
	DocID       string                 `json:"doc_id"`
	SectionID   string                 `json:"section_id"`
	SnippetID   string                 `json:"snippet_id"`
	SourceURL   string                 `json:"source_url"`
	Title       string                 `json:"title"`
	Path        string                 `json:"path"`
	Offsets     corpus.Offsets         `json:"offsets"`
	Tokens      int                    `json:"tokens"`
	Window      corpus.Window          `json:"window"`
	Page        int                    `json:"page,omitempty"`
	IndexHash   string                 `json:"index_hash"`
	Analyzer    string                 `json:"analyzer"`
	ScoreRaw    float64                `json:"score_raw"`
	ScoreNorm   float64                `json:"score_norm"`
	RerankScore *float64               `json:"rerank_score,omitempty"`
	KPos        int                    `json:"k_pos"`
	KFinal      int                    `json:"k_final"`
	Rev         string                 `json:"rev"`
	EmbedModel  string                 `json:"embed_model"`
	Source      string                 `json:"source"`
	CreatedAt   time.Time              `json:"created_at"`
	DataTier    int                    `json:"data_tier"`
	Stale       bool                   `json:"stale"` // the document changed since this passage was indexed
	Attribution provenance.Attribution `json:"attribution"`
	Explain     []search.Contribution  `json:"explain"`
	Text        string                 `json:"text"`
}

// CitationFromHit converts a search hit into a citation numbered n. The
// index identity (index_hash, analyzer) is stamped by the pipeline.
func CitationFromHit(n int, h search.Hit) Citation {
	c := Citation{
		N: n, DocID: h.DocID, SectionID: h.SectionID, SnippetID: h.SnippetID,
		SourceURL: FileURL(h.Path), Title: h.Title, Path: h.Path,
		Offsets: h.Offsets, Tokens: h.Tokens, Window: h.Window, Page: h.Page,
		ScoreRaw: h.RRF, ScoreNorm: h.ScoreNorm, RerankScore: h.RerankScore, KFinal: h.KFinal, Rev: h.Rev, EmbedModel: h.EmbedModel,
		Source: h.Source, CreatedAt: h.CreatedAt, DataTier: provenance.TierOf(h.Source),
		Explain: h.Explain, Text: h.Text,
	}
	c.Attribution = provenance.Attribution{Ranks: map[string]int{}, RRF: h.RRF, DataTier: c.DataTier, DataSource: h.Source}
	for _, e := range h.Explain {
		c.Attribution.Retrievers = append(c.Attribution.Retrievers, e.Retriever)
		c.Attribution.Ranks[e.Retriever] = e.KPos
		if c.KPos == 0 || e.KPos < c.KPos {
			c.KPos = e.KPos
		}
	}
	return c
}

// Payload is the part of c the validators check.
func (c Citation) Payload() provenance.Payload {
	return provenance.Payload{
		N: c.N, DocID: c.DocID, SectionID: c.SectionID, SnippetID: c.SnippetID, SourceURL: c.SourceURL,
		Offsets: c.Offsets, Tokens: c.Tokens, IndexHash: c.IndexHash, EmbedModel: c.EmbedModel,
		Analyzer: c.Analyzer, Rev: c.Rev, ScoreRaw: c.ScoreRaw, ScoreNorm: c.ScoreNorm,
		KPos: c.KPos, KFinal: c.KFinal, Source: c.Source, CreatedAt: c.CreatedAt,
	}
}

// Payloads converts citations for validation.
func Payloads(cs []Citation) []provenance.Payload {
	out := make([]provenance.Payload, len(cs))
	for i, c := range cs {
		out[i] = c.Payload()
	}
	return out
}

// CacheInfo discloses that an answer was served from the semantic cache.
type CacheInfo struct {
	Hit              bool      `json:"hit"`
	OriginalQuestion string    `json:"original_question"`
	OriginalID       string    `json:"original_id"`
	AnsweredAt       time.Time `json:"answered_at"`
	Similarity       float64   `json:"similarity"`
	Threshold        float64   `json:"threshold"`
	Policy           string    `json:"policy"` // the revalidation policy, in words
	// Matched records which of the cache's rules this hit met (none on
	// answers cached before the rules were recorded).
	Matched *CacheMatch `json:"matched,omitempty"`
}

// FileURL turns an absolute path into a file:// URI.
func FileURL(path string) string {
	if path == "" {
		return ""
	}
	return (&url.URL{Scheme: "file", Path: path}).String()
}

// RetrievalSummary records how the evidence was chosen.
type RetrievalSummary struct {
	Mode         string  `json:"mode"`
	K            int     `json:"k"`
	Gate         float64 `json:"gate"`
	TopScore     float64 `json:"top_score"`
	Returned     int     `json:"returned"`
	Used         int     `json:"used"`
	Budget       int     `json:"budget"`        // evidence token budget after the context window was accounted for
	PackedTokens int     `json:"packed_tokens"` // evidence tokens actually packed
}

// Generation records how the model was asked, so an answer can be repeated.
type Generation struct {
	Provider     string  `json:"provider"`
	Temperature  float64 `json:"temperature"`
	Seed         int     `json:"seed"`
	NumCtx       int     `json:"num_ctx"`       // context window requested (options.num_ctx)
	ModelContext int     `json:"model_context"` // the model's trained window; 0 when unknown
	PromptTokens int     `json:"prompt_tokens"` // estimate of rules + framing + question, before evidence

	// ContextWindow is the window the server used for this answer and
	// ContextSource where Footnote learned it (see plan).
	ContextWindow int    `json:"context_window"`
	ContextSource string `json:"context_source"`
}

// Usage is what the LLM reported in its final message, plus Footnote's own
// time to the first token.
type Usage struct {
	PromptTokens int    `json:"prompt_tokens"`
	AnswerTokens int    `json:"answer_tokens"`
	TotalNS      int64  `json:"total_ns"`
	LoadNS       int64  `json:"load_ns"`
	PromptEvalNS int64  `json:"prompt_eval_ns"`
	EvalNS       int64  `json:"eval_ns"`
	DoneReason   string `json:"done_reason"`
	FirstTokenMS int64  `json:"first_token_ms"` // request sent → first token, measured by Footnote
}

// Answer is the stored and returned result of one question.
type Answer struct {
	ID             string                `json:"id"`
	RequestID      string                `json:"request_id"`
	Question       string                `json:"question"`
	Answer         string                `json:"answer"`
	Grounded       bool                  `json:"grounded"`
	RefusalReason  *string               `json:"refusal_reason"`
	Citations      []Citation            `json:"citations"` // the packed passages the answer cites
	Evidence       []Citation            `json:"evidence"`  // every packed passage, numbered as in the prompt
	Nearest        []Citation            `json:"nearest,omitempty"`
	Model          string                `json:"model"`
	EmbedModel     string                `json:"embed_model"`
	PromptTemplate string                `json:"prompt_template_version"`
	Retrieval      RetrievalSummary      `json:"retrieval"`
	Generation     Generation            `json:"generation"`
	Usage          Usage                 `json:"usage"`
	Stopped        bool                  `json:"stopped"`
	Incomplete     bool                  `json:"incomplete"` // generation stopped or failed after some text arrived; that text is kept
	Error          string                `json:"error,omitempty"`
	DurationMS     int64                 `json:"duration_ms"`
	CreatedAt      time.Time             `json:"created_at"`  // question received
	FinishedAt     time.Time             `json:"finished_at"` // answer complete, refused, stopped or failed
	IndexHash      string                `json:"index_hash"`
	Provenance     provenance.Provenance `json:"provenance"`
	Validation     provenance.Report     `json:"validation"` // chain-boundary checks; failures are shown, never hidden
	Segments       []provenance.Segment  `json:"segments,omitempty"`
	Cache          *CacheInfo            `json:"cache,omitempty"` // set when served from the semantic cache
	// Claims are the answer's sentence-level segments with their verdicts
	// against the passages they cite; Verification counts them (verify.go).
	// Both are absent when verification is off or nothing was generated.
	Claims       []verify.ClaimResult `json:"claims,omitempty"`
	Verification *Verification        `json:"verification,omitempty"`
}

// RefusalValidation marks an answer whose citations failed the chain-boundary
// validators; Validation says which code and how to fix it.
const RefusalValidation = "validation_failed"

// Sink receives an answer as it forms. It must not block for long; a sink
// that has gone away (a closed window) must not stop generation.
type Sink interface {
	Evidence(requestID string, evidence []Citation)
	Token(requestID, token string)
}

// Retriever finds evidence.
type Retriever interface {
	Search(ctx context.Context, query string, opts search.Options) (search.Result, error)
}

// AnswerStore persists answers.
type AnswerStore interface {
	SaveAnswer(ctx context.Context, a store.AnswerRecord) error
}

// Pipeline answers questions from evidence only.
type Pipeline struct {
	Retriever     Retriever
	LLM           llm.LLM
	Store         AnswerStore
	Clock         clock.Clock
	Provider      string // recorded with the answer ("ollama", "openai")
	Model         string
	EmbedModel    string
	Mode          string
	TopK          int
	EvidenceK     int
	ContextTokens int // evidence budget setting
	ScoreGate     float64
	// NumCtx is the context window to request; it is capped at the model's
	// window and always sent, because Ollama silently truncates prompts
	// longer than its window. 0 sends none (the server's default applies).
	NumCtx        int
	AnswerReserve int // tokens kept free for the answer
	Seed          int // sent with temperature 0 so answers repeat
	// MaxAnswerTokens is the longest answer, sent as num_predict and
	// enforced while streaming (see generate); 0 sets no limit.
	MaxAnswerTokens int
	// ModelContext reports a model's trained context window (Ollama's
	// /api/show); nil, or an error, leaves NumCtx as configured.
	ModelContext func(ctx context.Context, model string) (int, error)
	// ServerWindow, when set, is the window a server fixed for itself (an
	// OpenAI-compatible request cannot ask for one): the evidence is packed
	// within it and NumCtx and ModelContext are not used.
	ServerWindow func(ctx context.Context, model string) (tokens int, source string)
	// CountTokens estimates prompt tokens; nil uses about 4 bytes a token.
	CountTokens func(string) int
	// Describe turns an LLM error into one user-facing sentence.
	Describe func(err error) string

	// IndexHash and Analyzer identify the index the evidence comes from
	// (Analyzer is the write-time analyzer recorded in the index); every
	// citation is stamped with them.
	IndexHash string
	Analyzer  string
	// Live is what citations are validated against at the chain boundary.
	Live provenance.Live
	// StoreName labels audit rows (the index file's name).
	StoreName string
	// Audit receives one row per question and per answer segment; nil
	// records nothing.
	Audit func(rows []provenance.TraceRow)

	// Verification is VerifyStrict (also when empty), VerifyWarn or
	// VerifyOff; Verifier checks the claims (nil: lexical signals only).
	Verification string
	Verifier     *verify.Verifier
}

// Request is one question.
type Request struct {
	ID       string
	Question string
}

// ErrEmptyQuestion is returned for blank questions.
var ErrEmptyQuestion = errors.New("the question is empty: type a question about your documents")

// Ask runs the whole pipeline. Cancelling ctx stops generation; the partial
// answer is still stored, marked stopped. The returned error is non-nil only
// when the answer could not be produced or stored; refusals are answers.
func (p *Pipeline) Ask(ctx context.Context, req Request, sink Sink) (Answer, error) {
	started := p.Clock.Now()
	ans := Answer{
		ID: "ans_" + req.ID, RequestID: req.ID, Question: strings.TrimSpace(req.Question),
		Model: p.Model, EmbedModel: p.EmbedModel, PromptTemplate: TemplateVersion,
		CreatedAt: started, Citations: []Citation{}, Evidence: []Citation{},
		Retrieval:  RetrievalSummary{Mode: p.Mode, K: p.TopK, Gate: p.ScoreGate},
		Generation: Generation{Provider: p.Provider, Temperature: 0, Seed: p.Seed},
	}
	if ans.Question == "" {
		return ans, ErrEmptyQuestion
	}
	res, err := p.evidence(ctx, &ans, started)
	if err != nil {
		return ans, err
	}
	if ans.RefusalReason != nil {
		return p.conclude(ans, started, res)
	}
	// The first passage is packed even when it alone exceeds the budget; grow
	// the window to hold it when the model allows, rather than let the
	// server cut the start of the prompt.
	if need := ans.Generation.PromptTokens + ans.Retrieval.PackedTokens + p.AnswerReserve; ans.Generation.NumCtx > 0 && need > ans.Generation.NumCtx {
		if mc := ans.Generation.ModelContext; mc == 0 || need <= mc {
			ans.Generation.NumCtx = need
		} else {
			ans.Generation.NumCtx = mc
		}
	}
	ans.Generation.ContextWindow = ans.Generation.NumCtx
	sink = guardSink(sink)
	sink.Evidence(req.ID, ans.Evidence)

	text, usage, genErr := p.generate(ctx, BuildMessages(ans.Question, ans.Evidence), ans.Generation, req.ID, sink)
	ans.Answer, ans.Usage = text, usage
	// Cut at the length limit, by Footnote or by the server: the answer is
	// kept as incomplete, like one that stalled, but nothing failed.
	cutShort := errors.Is(genErr, ErrAnswerTooLong) || (genErr == nil && usage.DoneReason == "length")
	claims := verify.Claims(text, ans.Question, evidenceTexts(ans.Evidence)...)
	if cutShort {
		verify.MarkUnfinished(claims) // the sentence the cut broke off states nothing to check
	}
	verdict := ValidateMarkers(ClaimMarkers(claims), len(ans.Evidence))
	for _, n := range verdict.Cited {
		ans.Citations = append(ans.Citations, ans.Evidence[n-1])
	}
	ans.Grounded = verdict.Grounded
	reason := verdict.RefusalReason
	if reason == "" && !p.accept(&ans, started, ClaimMarkers(claims)) {
		ans.Grounded, reason = false, RefusalValidation
	}
	if genErr == nil {
		reason = p.applyVerification(ctx, &ans, claims, reason)
	}
	switch {
	case genErr != nil && errors.Is(genErr, context.Canceled):
		ans.Stopped, ans.Grounded, reason = true, false, RefusalStopped
	case cutShort:
		ans.Grounded, reason = false, RefusalLLMError
		ans.Error = p.lengthNote()
	case genErr != nil:
		ans.Grounded, reason = false, RefusalLLMError
		ans.Error = p.describe(genErr)
	}
	ans.Incomplete = (genErr != nil || cutShort) && ans.Answer != ""
	if reason != "" {
		ans.RefusalReason = &reason
	}
	stored, err := p.conclude(ans, started, res)
	if err == nil && genErr != nil && !ans.Stopped && !cutShort {
		return stored, fmt.Errorf("%s", ans.Error)
	}
	return stored, err
}

// stamp adds the index identity and the stale flag to a citation.
func (p *Pipeline) stamp(c Citation, res search.Result) Citation {
	c.IndexHash, c.Analyzer = p.IndexHash, p.Analyzer
	c.Attribution.RetrievalMS = float64(res.Elapsed.Microseconds()) / 1000
	if p.Live.Rev != nil {
		rev, ok := p.Live.Rev(c.DocID)
		c.Stale = !ok || rev != c.Rev
	}
	return c
}

// accept runs the validators at the chain boundary, including the re-entry
// auditor's second pass over every packed passage; it reports whether the
// answer may be shown as grounded. Warnings are kept on a grounded answer.
func (p *Pipeline) accept(ans *Answer, started time.Time, cited []int) bool {
	live := p.Live
	live.AsOf = started
	ans.Segments = provenance.Segments(ans.Answer, ExtractMarkers)
	keepClaimMarkers(ans.Segments, cited)
	ans.Validation = provenance.Validate(Payloads(ans.Citations), ans.Segments, live)
	if extra := provenance.AuditEvidence(Payloads(ans.Evidence), started); len(extra) > 0 {
		ans.Validation.Issues = append(ans.Validation.Issues, extra...)
		ans.Validation.OK = false
	}
	return ans.Validation.OK
}

// conclude records provenance, writes the audit trail and stores the answer.
func (p *Pipeline) conclude(ans Answer, started time.Time, res search.Result) (Answer, error) {
	ans.IndexHash = p.IndexHash
	if ans.Validation.Issues == nil {
		ans.Validation.Issues = []provenance.Issue{}
		ans.Validation.OK = ans.Grounded
	}
	model := ""
	if ans.Retrieval.Used > 0 {
		model = p.Model // the LLM was called
	}
	in := provenance.Inputs{
		IndexHash: p.IndexHash, Retrievers: res.Retrievers, RRFK: res.RRFK, Reranker: res.Reranker,
		Provider: p.Provider, Model: model, TotalRetrieved: res.TotalRetrieved,
		TotalAfterFusion: res.TotalAfterFusion, Segments: ans.Segments, Grounded: ans.Grounded,
		Verifier: p.verifierStep(ans),
	}
	for _, c := range ans.Citations {
		in.Cited = append(in.Cited, provenance.Evidence{Source: c.Source, ScoreNorm: c.ScoreNorm, CreatedAt: c.CreatedAt})
	}
	ans.Provenance = provenance.Aggregate(in)
	stored, err := p.finish(ans, started)
	if p.Audit != nil {
		p.Audit(TraceRows(stored, p.StoreName))
	}
	return stored, err
}

// TraceRows renders an answer's audit trail: a question row, then one row
// per answer segment with the citations it uses.
func TraceRows(a Answer, storeName string) []provenance.TraceRow {
	base := provenance.TraceRow{TS: a.FinishedAt, QID: a.RequestID, Store: storeName, IndexHash: a.IndexHash, EmbedModel: a.EmbedModel}
	if a.Cache != nil {
		base.Store = "cache"
	}
	q := base
	q.Kind, q.Text, q.TS = "question", a.Question, a.CreatedAt
	rows := []provenance.TraceRow{q}
	byN := map[int]Citation{}
	for _, c := range a.Evidence {
		byN[c.N] = c
	}
	for i, seg := range a.Segments {
		r := base
		r.Kind, r.Seg, r.Text = "segment", i+1, seg.Text
		for _, n := range seg.Cites {
			c, ok := byN[n]
			if !ok {
				continue
			}
			r.Citations = append(r.Citations, c.SnippetID)
			r.Scores = append(r.Scores, c.ScoreNorm)
			r.KPos = append(r.KPos, c.KPos)
			r.KFinal = append(r.KFinal, c.KFinal)
			r.SectionIDs = append(r.SectionIDs, c.SectionID)
			r.Revs = append(r.Revs, c.Rev)
		}
		rows = append(rows, r)
	}
	return rows
}

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

func (p *Pipeline) describe(err error) string {
	if p.Describe != nil {
		return p.Describe(err)
	}
	return err.Error()
}

// finish stamps the duration and stores the answer. Storing uses its own
// context: a stopped question must still be recorded.
func (p *Pipeline) finish(ans Answer, started time.Time) (Answer, error) {
	ans.FinishedAt = p.Clock.Now()
	ans.DurationMS = ans.FinishedAt.Sub(started).Milliseconds()
	if p.Store == nil {
		return ans, nil
	}
	rec, err := Record(ans)
	if err != nil {
		return ans, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Store.SaveAnswer(ctx, rec); err != nil {
		return ans, fmt.Errorf("store answer: %w", err)
	}
	return ans, nil
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
}

// Record converts an answer into its stored form.
func Record(a Answer) (store.AnswerRecord, error) {
	cites, err := json.Marshal(a.Citations)
	if err != nil {
		return store.AnswerRecord{}, err
	}
	retrieval, err := json.Marshal(storedDetails{a.Retrieval, a.Evidence, a.Nearest, a.Generation, a.Usage, a.FinishedAt,
		a.IndexHash, a.Provenance, a.Validation, a.Segments, a.Cache, a.Claims, a.Verification})
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
		ID: r.ID, RequestID: r.RequestID, Question: r.Question, Answer: r.Answer,
		Grounded: r.Grounded, Stopped: r.Stopped, Model: r.Model, EmbedModel: r.EmbedModel,
		PromptTemplate: r.PromptTemplate, Error: r.Error, DurationMS: r.DurationMS, CreatedAt: r.CreatedAt,
	}
	if r.RefusalReason != "" {
		reason := r.RefusalReason
		a.RefusalReason = &reason
	}
	// Derived rather than stored: the partial text is kept with the reason.
	a.Incomplete = r.Answer != "" && (r.Stopped || r.RefusalReason == RefusalLLMError)
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
	a.Claims, a.Verification = d.Claims, d.Verification
	if a.Citations == nil {
		a.Citations = []Citation{}
	}
	if a.Evidence == nil {
		a.Evidence = []Citation{}
	}
	return a, nil
}

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
