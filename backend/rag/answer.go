package rag

import (
	"net/url"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
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
	// Context is the title, heading path and table header row the passage
	// was indexed and embedded with; it is not part of Text or Offsets.
	Context string `json:"context,omitempty"`
	// OCR is set when the passage's page was a scan read by OCR, so its
	// words may hold recognition errors.
	OCR bool `json:"ocr,omitempty"`
	// DeltaS is 1 − cos(question, passage) by the embedding model
	// (deltas.go); nil when it was not measured.
	DeltaS *float64 `json:"delta_s,omitempty"`
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
		Explain: h.Explain, Text: h.Text, Context: h.Context, OCR: h.OCR,
	}
	c.Attribution = provenance.Attribution{Ranks: map[string]int{}, RRF: h.RRF, DataTier: c.DataTier, DataSource: h.Source,
		Collection: h.Collection}
	for _, e := range h.Explain {
		c.Attribution.Retrievers = append(c.Attribution.Retrievers, e.Retriever)
		c.Attribution.Ranks[e.Retriever] = e.KPos
		if c.KPos == 0 || e.KPos < c.KPos {
			c.KPos = e.KPos
		}
		if e.Retriever == search.Vector {
			// The vector retriever's raw score is the L2 distance of unit
			// vectors: cos = 1 − d²/2.
			sim := 1 - e.ScoreRaw*e.ScoreRaw/2
			c.Attribution.VectorSimilarity = &sim
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
	Gate         float64 `json:"gate"`      // the score gate: the least word match (WordMatch) to call the model
	TopScore     float64 `json:"top_score"` // the first hit's score_norm
	Returned     int     `json:"returned"`
	Used         int     `json:"used"`
	Budget       int     `json:"budget"`        // evidence token budget after the context window was accounted for
	PackedTokens int     `json:"packed_tokens"` // evidence tokens actually packed
	// WordMatch is what the score gate reads (gate.go): the share of the
	// question's KeyWords, weighted by how rare each is in the library,
	// that the best passage holds (MatchedKeyWords). RareTermShare is what
	// the answerability gate reads: the share of RareTerms, the question's
	// rare words, the best passage holds. Nil and empty when the index is
	// too small to judge by its term statistics or the question has no key
	// word.
	WordMatch       *float64 `json:"word_match,omitempty"`
	KeyWords        []string `json:"key_words,omitempty"`
	MatchedKeyWords []string `json:"matched_key_words,omitempty"`
	RareTermShare   *float64 `json:"rare_term_share,omitempty"`
	RareTerms       []string `json:"rare_terms,omitempty"`
	// RefusedBy is what refused the question before the model was called
	// (gate.go): the signal, its value and threshold, and why in words;
	// nil when no gate refused it.
	RefusedBy *GateRefusal `json:"refused_by,omitempty"`
	// DeltaS is the best passage's ΔS, DeltaSBackground the question's
	// median ΔS to the library, DeltaSGate what ΔS did for the score gate and why
	// (deltas.go); absent when ΔS was not measured.
	DeltaS           *float64 `json:"delta_s,omitempty"`
	DeltaSBackground *float64 `json:"delta_s_background,omitempty"`
	DeltaSGate       string   `json:"delta_s_gate,omitempty"`
	// RetrievedAt is when retrieval ran; every citation's attribution and
	// the answer's source timestamp carry it.
	RetrievedAt time.Time `json:"retrieved_at"`
}

// Generation records how the model was asked, so an answer can be repeated.
type Generation struct {
	Provider     string  `json:"provider"`
	Temperature  float64 `json:"temperature"`
	Seed         int     `json:"seed"`
	NumCtx       int     `json:"num_ctx"`       // context window requested (options.num_ctx; an OpenAI-compatible server is not sent it)
	ModelContext int     `json:"model_context"` // the model's trained window; 0 when unknown
	PromptTokens int     `json:"prompt_tokens"` // estimate of rules + framing + question, before evidence

	// ContextWindow is the window the server used for this answer and
	// ContextSource where Footnote learned it (see plan): one per model
	// and server, the same for every request to it.
	ContextWindow int    `json:"context_window"`
	ContextSource string `json:"context_source"`
	// NumPredict is the answer length asked for (num_predict, max_tokens):
	// max_answer_tokens, or what the window leaves after the prompt when
	// that is less; 0 when no limit was sent.
	NumPredict int `json:"num_predict"`
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
	// Schema is AnswerSchema on every answer Footnote returns or stores.
	Schema string `json:"schema"`
	// TraceID names this answer's retrieval in its audit log lines and
	// rag_traces rows (NewTraceID); a cached answer gets its own.
	TraceID        string                `json:"trace_id"`
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
	// EvidenceSourceCounts counts the packed passages by source
	// ({"corpus": 3}); anything but corpus would mean model or chat text
	// reached the prompt.
	EvidenceSourceCounts map[string]int `json:"evidence_source_counts"`
	// Followup is set on a question asked in a thread after its first:
	// the standalone question searched for and the earlier turns used.
	Followup *Followup `json:"followup,omitempty"`
	// Lambda is the answer's λ state (lambda.go): for a question asked
	// before, convergent when this answer makes the same call from a
	// section the last one cited too; otherwise, by ΔS, convergent when
	// every cited passage is near the question; "-" when it cannot be told.
	Lambda string `json:"lambda_state"`
	// LambdaBasis says what Lambda was judged on (lambda.go): a repeat of
	// the question compared with its last answer, or ΔS; nil when "-".
	LambdaBasis *LambdaBasis `json:"lambda_basis,omitempty"`
	// Version is the Footnote build that produced this answer record
	// (backend/version); empty on answers stored before it was recorded.
	Version string `json:"footnote_version"`

	measure *DeltaS // the ΔS measurement of this question, for λ
}

// RefusalValidation marks an answer whose citations failed the chain-boundary
// validators; Validation says which code and how to fix it.
const RefusalValidation = "validation_failed"
