// Package rag owns the grounded answer pipeline: retrieve → gates →
// pack evidence within a token budget → prompt → stream from the LLM →
// split the answer into claims (markers copied out of evidence or inside
// code are not citations) → validate the citations → verify each claim
// against the passage it cites (verify.go) → persist. An answer is called
// grounded only when its citations check out against the packed evidence
// and, under strict verification, every claim is cited and supported.
package rag

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/clock"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/verify"
	"github.com/footnote-app/footnote/backend/version"
)

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
	// WordMatchGate is the least word match (the weighted share of the
	// question's key words the best passage holds) to call the model
	// (gate.go).
	WordMatchGate float64
	// Answerability reads the question's words in the best passages by the
	// index's term statistics, for the score gate and the answerability
	// gate (answerability.go); nil reads nothing and no gate refuses on
	// words.
	Answerability *Answerability
	// Relevance measures ΔS (deltas.go); nil measures nothing. DeltaSGate
	// is the delta_s_gate setting: with a model that separates, a passage
	// nearer than this quantile of unrelated ones is evidence for the score
	// gate; 0 records ΔS only.
	Relevance  *Relevance
	DeltaSGate float64
	// Window is the one context window of a model on its server, decided
	// once (the engine: the Modelfile's num_ctx, the loaded model's, the
	// server's report, or a setting) and carried by every request to that
	// model as num_ctx, so Ollama never reloads it; the evidence and the
	// answer length fit within it. nil, or a zero window, falls back to
	// NumCtx.
	Window func(ctx context.Context, model string) llm.ContextWindow
	// NumCtx is the window sent when Window decides none; 0 sends none
	// (the server's default applies).
	NumCtx        int
	AnswerReserve int // tokens kept free for the answer
	Seed          int // sent with temperature 0 so answers repeat
	// MaxAnswerTokens is the longest answer, sent as num_predict (lowered
	// to what the window leaves) and enforced while streaming (see
	// generate); 0 sets no limit but the window's.
	MaxAnswerTokens int
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
	// Previous returns the last stored answer to a question (asked as
	// written), for the λ of a repeat (lambda.go); nil compares with none.
	Previous func(ctx context.Context, question string) (Answer, bool)

	// Verification is VerifyWarn (also when empty), VerifyStrict or
	// VerifyOff; Verifier checks the claims (nil: lexical signals only).
	Verification string
	Verifier     *verify.Verifier
}

// Request is one question.
type Request struct {
	ID       string
	Question string
	// History holds the thread's earlier questions, oldest first (never
	// their answers); with it Question is a follow-up (followup.go).
	History []Turn
	// Followup, when set, is the standalone question already decided (by
	// the engine before its cache lookup, or edited by the user).
	Followup *Followup
	// Prior are checks that failed on the way to this answer — a cached
	// answer to the question that did not revalidate — recorded on it as
	// warnings, so they are shown and logged, never silent.
	Prior []provenance.Issue
}

// ErrEmptyQuestion is returned for blank questions.
var ErrEmptyQuestion = errors.New("the question is empty: type a question about your documents")

// Ask runs the whole pipeline. Cancelling ctx stops generation; the partial
// answer is still stored, marked stopped. The returned error is non-nil only
// when the answer could not be produced or stored; refusals are answers.
func (p *Pipeline) Ask(ctx context.Context, req Request, sink Sink) (Answer, error) {
	started := p.Clock.Now()
	ans := Answer{
		Schema: AnswerSchema, TraceID: NewTraceID(),
		ID: "ans_" + req.ID, RequestID: req.ID, Question: strings.TrimSpace(req.Question),
		Model: p.Model, EmbedModel: p.EmbedModel, PromptTemplate: TemplateVersion, Version: version.String(),
		CreatedAt: started, Citations: []Citation{}, Evidence: []Citation{},
		Retrieval:  RetrievalSummary{Mode: p.Mode, K: p.TopK, Gate: p.WordMatchGate},
		Generation: Generation{Provider: p.Provider, Temperature: 0, Seed: p.Seed},
	}
	if ans.Question == "" {
		return ans, ErrEmptyQuestion
	}
	ans.Followup = p.resolveFollowup(ctx, req)
	res, err := p.evidence(ctx, &ans, started, req.History)
	if err != nil {
		return ans, err
	}
	if ans.RefusalReason == nil {
		p.checkEvidence(&ans, started)
	}
	if ans.RefusalReason != nil {
		return p.conclude(ans, started, res, req.Prior)
	}
	// The window is fixed (a new num_ctx would reload the model): the answer
	// length is cut to what it leaves, and a question whose first passage
	// leaves too little is not sent, rather than let the server cut the
	// start of the prompt.
	msgs := ans.messages(req.History)
	numPredict, used, fits := p.answerLength(ans.Generation.ContextWindow, msgs)
	ans.Generation.NumPredict = numPredict
	if !fits {
		reason := RefusalContextWindow
		ans.RefusalReason, ans.Grounded = &reason, false
		ans.Error = windowTooSmall(ans.Generation, p.Model, used)
		stored, err := p.conclude(ans, started, res, req.Prior)
		if err == nil {
			err = &llm.DescribedError{Sentence: ans.Error, Err: ErrWindowTooSmall}
		}
		return stored, err
	}
	sink = guardSink(sink)
	sink.Evidence(req.ID, ans.Evidence)

	text, usage, genErr := p.generate(ctx, msgs, ans.Generation, req.ID, sink)
	var noModel error // set when no model could answer: the passages are the answer (passages.go)
	if genErr != nil && text == "" && noAnswerModel(genErr) {
		if t := passagesText(ans.Question, ans.Evidence); t != "" {
			noModel, genErr, text = genErr, nil, t
		}
	}
	ans.Answer, ans.Usage = text, usage
	// Cut at the length limit, by Footnote or by the server: the answer is
	// kept as incomplete, like one that stalled, but nothing failed.
	cutShort := errors.Is(genErr, ErrAnswerTooLong) || (genErr == nil && usage.DoneReason == "length")
	claims := verify.Claims(text, ans.Question, evidenceTexts(ans.Evidence)...)
	if cutShort {
		verify.MarkUnfinished(claims) // the sentence the cut broke off states nothing to check
	}
	ans.Segments = segmentsOf(claims)
	verdict := ValidateMarkers(ClaimMarkers(claims), len(ans.Evidence))
	for _, n := range verdict.Cited {
		ans.Citations = append(ans.Citations, ans.Evidence[n-1])
	}
	ans.Grounded = verdict.Grounded
	reason := verdict.RefusalReason
	// Every answer the model finished (or that was cut at the length
	// limit) is validated, so an uncited one shows empty_citations; the
	// finer refusal reason stays. A refusal in words needs no citation.
	if (genErr == nil || cutShort) && !IsRefusalText(text) && !p.accept(&ans, started) && reason == "" {
		ans.Grounded, reason = false, RefusalValidation
	}
	if genErr == nil {
		reason = p.applyVerification(ctx, &ans, claims, reason)
	}
	switch {
	case genErr != nil && errors.Is(genErr, context.Canceled):
		ans.Stopped, ans.Grounded, reason = true, false, RefusalStopped
	case cutShort:
		ans.Grounded, reason = false, RefusalLengthLimit
		ans.Error = p.lengthNote(ans.Generation, usage)
	case genErr != nil:
		ans.Grounded, reason = false, RefusalLLMError
		ans.Error = p.describe(genErr)
	}
	ans.Incomplete = (genErr != nil || cutShort) && ans.Answer != ""
	if noModel != nil {
		ans.Grounded, reason = false, RefusalNoModel
		ans.Error = NoModelNotice + " " + p.describe(noModel)
	}
	if reason != "" {
		ans.RefusalReason = &reason
	}
	stored, err := p.conclude(ans, started, res, req.Prior)
	if err == nil && genErr != nil && !ans.Stopped && !cutShort {
		return stored, &llm.DescribedError{Sentence: ans.Error, Err: genErr} // the sentence stored, the cause kept
	}
	return stored, err
}

// stamp adds the index identity, when and how fast it was retrieved, and
// the stale flag to a citation.
func (p *Pipeline) stamp(c Citation, res search.Result, retrievedAt time.Time) Citation {
	c.IndexHash, c.Analyzer = p.IndexHash, p.Analyzer
	c.Attribution.RetrievedAt = retrievedAt
	c.Attribution.RetrievalMS = float64(res.Elapsed.Microseconds()) / 1000
	if p.Live.Rev != nil {
		rev, ok := p.Live.Rev(c.DocID)
		c.Stale = !ok || rev != c.Rev
	}
	return c
}

// checkEvidence runs the checks that fail fast, before the model is
// called, on the packed passages: analyzer parity (the index was written
// with the analyzer queries are tokenized with) and the re-entry auditor.
// On an error the question is refused (validation_failed) with the report.
func (p *Pipeline) checkEvidence(ans *Answer, started time.Time) {
	live := p.Live
	live.AsOf = started
	issues := provenance.CheckEvidence(Payloads(ans.Evidence), live)
	if len(issues) == 0 {
		return
	}
	ans.Validation = provenance.Report{Issues: issues}
	reason := RefusalValidation
	ans.RefusalReason, ans.Answer = &reason, RefusalSentence
	ans.Nearest, ans.Evidence, ans.Retrieval.Used, ans.Retrieval.PackedTokens = ans.Evidence, []Citation{}, 0, 0
}

// accept runs the validators at the chain boundary, including the re-entry
// auditor's second pass over every packed passage; it reports whether the
// answer may be shown as grounded. Warnings are kept on a grounded answer.
func (p *Pipeline) accept(ans *Answer, started time.Time) bool {
	live := p.Live
	live.AsOf = started
	ans.Validation = provenance.Validate(Payloads(ans.Citations), ans.Segments, live)
	if extra := provenance.AuditEvidence(Payloads(ans.Evidence), started); len(extra) > 0 {
		ans.Validation.Issues = append(ans.Validation.Issues, extra...)
		ans.Validation.OK = false
	}
	return ans.Validation.OK
}

// conclude records provenance, writes the audit trail and stores the
// answer; prior are earlier checks' issues, recorded as warnings.
func (p *Pipeline) conclude(ans Answer, started time.Time, res search.Result, prior []provenance.Issue) (Answer, error) {
	ans.IndexHash = p.IndexHash
	if ans.Segments == nil && ans.Answer != "" {
		// Footnote's own text (a refusal before any model call) is
		// segmented too, so every answer has its rows in the audit trail.
		ans.Segments = segmentsOf(verify.Claims(ans.Answer, ans.Question))
	}
	p.judgeLambda(&ans)
	if ans.Validation.Issues == nil {
		ans.Validation.Issues = []provenance.Issue{}
		ans.Validation.OK = ans.Grounded
	}
	for _, is := range prior {
		is.Severity = provenance.SeverityWarning
		ans.Validation.Issues = append(ans.Validation.Issues, is)
	}
	model := ""
	if ans.Retrieval.Used > 0 {
		model = p.Model // the LLM was called
	}
	in := provenance.Inputs{
		IndexHash: p.IndexHash, RetrievedAt: ans.Retrieval.RetrievedAt, Retrievers: res.Retrievers, RRFK: res.RRFK, Reranker: res.Reranker,
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
	ans.EvidenceSourceCounts = CountEvidenceSources(ans.Evidence)
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
