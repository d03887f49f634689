// Package rag owns the grounded answer pipeline: retrieve → score gate →
// pack evidence within a token budget → prompt → stream from the LLM →
// extract strict [#n] markers → validate → persist. An answer is called
// grounded only when its citations check out against the packed evidence.
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
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

// Citation is a numbered piece of evidence as shown to the model, the UI and
// the CLI.
type Citation struct {
	N          int                   `json:"n"`
	DocID      string                `json:"doc_id"`
	SectionID  string                `json:"section_id"`
	SnippetID  string                `json:"snippet_id"`
	SourceURL  string                `json:"source_url"`
	Title      string                `json:"title"`
	Path       string                `json:"path"`
	Offsets    corpus.Offsets        `json:"offsets"`
	Tokens     int                   `json:"tokens"`
	Page       int                   `json:"page,omitempty"`
	ScoreNorm  float64               `json:"score_norm"`
	KFinal     int                   `json:"k_final"`
	Rev        string                `json:"rev"`
	EmbedModel string                `json:"embed_model"`
	Explain    []search.Contribution `json:"explain"`
	Text       string                `json:"text"`
}

// CitationFromHit converts a search hit into a citation numbered n.
func CitationFromHit(n int, h search.Hit) Citation {
	return Citation{
		N: n, DocID: h.DocID, SectionID: h.SectionID, SnippetID: h.SnippetID,
		SourceURL: FileURL(h.Path), Title: h.Title, Path: h.Path,
		Offsets: h.Offsets, Tokens: h.Tokens, Page: h.Page,
		ScoreNorm: h.ScoreNorm, KFinal: h.KFinal, Rev: h.Rev, EmbedModel: h.EmbedModel,
		Explain: h.Explain, Text: h.Text,
	}
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
	Mode     string  `json:"mode"`
	K        int     `json:"k"`
	Gate     float64 `json:"gate"`
	TopScore float64 `json:"top_score"`
	Returned int     `json:"returned"`
	Used     int     `json:"used"`
}

// Usage is what the LLM reported in its final message.
type Usage struct {
	PromptTokens int   `json:"prompt_tokens"`
	AnswerTokens int   `json:"answer_tokens"`
	EvalNS       int64 `json:"eval_ns"`
}

// Answer is the stored and returned result of one question.
type Answer struct {
	ID             string           `json:"id"`
	RequestID      string           `json:"request_id"`
	Question       string           `json:"question"`
	Answer         string           `json:"answer"`
	Grounded       bool             `json:"grounded"`
	RefusalReason  *string          `json:"refusal_reason"`
	Citations      []Citation       `json:"citations"` // the packed passages the answer cites
	Evidence       []Citation       `json:"evidence"`  // every packed passage, numbered as in the prompt
	Nearest        []Citation       `json:"nearest,omitempty"`
	Model          string           `json:"model"`
	EmbedModel     string           `json:"embed_model"`
	PromptTemplate string           `json:"prompt_template_version"`
	Retrieval      RetrievalSummary `json:"retrieval"`
	Usage          Usage            `json:"usage"`
	Stopped        bool             `json:"stopped"`
	Error          string           `json:"error,omitempty"`
	DurationMS     int64            `json:"duration_ms"`
	CreatedAt      time.Time        `json:"created_at"`
}

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
	Model         string
	EmbedModel    string
	Mode          string
	TopK          int
	EvidenceK     int
	ContextTokens int
	ScoreGate     float64
	// Describe turns an LLM error into one user-facing sentence.
	Describe func(err error) string
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
		Retrieval: RetrievalSummary{Mode: p.Mode, K: p.TopK, Gate: p.ScoreGate},
	}
	if ans.Question == "" {
		return ans, ErrEmptyQuestion
	}
	res, err := p.Retriever.Search(ctx, ans.Question, search.Options{Mode: p.Mode, TopK: p.TopK, AsOf: started})
	if err != nil {
		return ans, fmt.Errorf("retrieve evidence: %w", err)
	}
	ans.Retrieval.Returned = len(res.Hits)
	if len(res.Hits) > 0 {
		ans.Retrieval.TopScore = res.Hits[0].ScoreNorm
	}

	if refusal := Gate(res.Hits, p.ScoreGate); refusal != "" {
		ans.RefusalReason = &refusal
		ans.Answer = RefusalSentence
		for i, h := range res.Hits {
			if i == 3 {
				break
			}
			ans.Nearest = append(ans.Nearest, CitationFromHit(i+1, h))
		}
		return p.finish(ans, started)
	}

	ans.Evidence = Pack(res.Hits, p.EvidenceK, p.ContextTokens)
	ans.Retrieval.Used = len(ans.Evidence)
	if sink != nil {
		sink.Evidence(req.ID, ans.Evidence)
	}

	text, usage, genErr := p.generate(ctx, BuildMessages(ans.Question, ans.Evidence), req.ID, sink)
	ans.Answer, ans.Usage = text, usage
	verdict := Validate(text, len(ans.Evidence))
	for _, n := range verdict.Cited {
		ans.Citations = append(ans.Citations, ans.Evidence[n-1])
	}
	ans.Grounded = verdict.Grounded
	reason := verdict.RefusalReason
	switch {
	case genErr != nil && errors.Is(genErr, context.Canceled):
		ans.Stopped, ans.Grounded, reason = true, false, RefusalStopped
	case genErr != nil:
		ans.Grounded, reason = false, RefusalLLMError
		ans.Error = p.describe(genErr)
	}
	if reason != "" {
		ans.RefusalReason = &reason
	}
	stored, err := p.finish(ans, started)
	if err == nil && genErr != nil && !ans.Stopped {
		return stored, fmt.Errorf("%s", ans.Error)
	}
	return stored, err
}

func (p *Pipeline) describe(err error) string {
	if p.Describe != nil {
		return p.Describe(err)
	}
	return err.Error()
}

func (p *Pipeline) generate(ctx context.Context, msgs []llm.Message, requestID string, sink Sink) (string, Usage, error) {
	var b strings.Builder
	var usage Usage
	stream := true
	req := &llm.ChatRequest{Model: p.Model, Messages: msgs, Stream: &stream, Options: map[string]any{"temperature": 0}}
	err := p.LLM.Chat(ctx, req, func(r llm.ChatResponse) error {
		if r.Message.Content != "" {
			b.WriteString(r.Message.Content)
			if sink != nil {
				sink.Token(requestID, r.Message.Content)
			}
		}
		if r.Done {
			usage = Usage{PromptTokens: r.PromptEvalCount, AnswerTokens: r.EvalCount, EvalNS: int64(r.EvalDuration)}
		}
		return nil
	})
	return b.String(), usage, err
}

// finish stamps the duration and stores the answer. Storing uses its own
// context: a stopped question must still be recorded.
func (p *Pipeline) finish(ans Answer, started time.Time) (Answer, error) {
	ans.DurationMS = p.Clock.Now().Sub(started).Milliseconds()
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

// Record converts an answer into its stored form.
func Record(a Answer) (store.AnswerRecord, error) {
	cites, err := json.Marshal(a.Citations)
	if err != nil {
		return store.AnswerRecord{}, err
	}
	retrieval, err := json.Marshal(struct {
		RetrievalSummary
		Evidence []Citation `json:"evidence"`
		Nearest  []Citation `json:"nearest,omitempty"`
	}{a.Retrieval, a.Evidence, a.Nearest})
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

// Gate refuses before any LLM call when there is no evidence or the best
// evidence scores below the gate. It returns the refusal reason or "".
func Gate(hits []search.Hit, gate float64) string {
	if len(hits) == 0 {
		return RefusalNoChunks
	}
	if hits[0].ScoreNorm < gate {
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
