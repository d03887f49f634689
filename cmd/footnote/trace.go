package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/footnote-app/footnote/backend/engine"
	"io"
	"os"
	"slices"
)

// traceChunk is one passage the pipeline retrieved for a question; ID is
// its conventional id, at the level chosen with --ids.
type traceChunk struct {
	ID        string   `json:"id"`
	N         int      `json:"n"`
	SnippetID string   `json:"snippet_id"`
	SectionID string   `json:"section_id"`
	DocID     string   `json:"doc_id"`
	Source    string   `json:"source"`
	ScoreNorm float64  `json:"score_norm"`
	KFinal    int      `json:"k_final"`
	DeltaS    *float64 `json:"deltaS,omitempty"`
	Text      string   `json:"text"`
}

// traceLine is one question in trace.jsonl: the conventional keys first —
// ts, q, answer (the refusal token "not in context" for a refusal, so any
// conventional scorer sees one), citations (the cited ids at the --ids
// level), chunks ([{id}] of the packed evidence), ok (grounded) — then
// Footnote's full record: the answer as Footnote gave it, the schema tag
// and retrieval trace id, the cited passages with their provenance under
// "cited", and the rest.
type traceLine struct {
	TS        string       `json:"ts"`
	Q         string       `json:"q"`
	Answer    string       `json:"answer"`
	Citations []string     `json:"citations"`
	Chunks    []traceChunk `json:"chunks"`
	OK        bool         `json:"ok"`
	// FootnoteAnswer is the answer's text as Footnote showed it: for a
	// refusal, Footnote's sentence or the refused model text.
	FootnoteAnswer string `json:"footnote_answer"`
	// IDs is the level of the ids in citations and chunks: snippet,
	// section or doc.
	IDs string `json:"ids"`
	// DeltaS is the best passage's ΔS and Lambda the answer's λ state, as
	// on the audit log line (null and "-" when not measured).
	DeltaS        *float64 `json:"deltaS"`
	Lambda        string   `json:"lambda"`
	Schema        string   `json:"schema"`
	TraceID       string   `json:"trace_id"`
	QID           string   `json:"qid"`
	Question      string   `json:"question"`
	Grounded      bool     `json:"grounded"`
	RefusalReason *string  `json:"refusal_reason"`
	// RefusedBy is the gate signal that refused the question before the
	// model was called, with its value and threshold.
	RefusedBy  *engine.GateRefusal     `json:"refused_by,omitempty"`
	Cited      []engine.Citation       `json:"cited"`
	IndexHash  string                  `json:"index_hash"`
	Model      string                  `json:"model"`
	EmbedModel string                  `json:"embed_model"`
	Provenance engine.Provenance       `json:"provenance"`
	Validation engine.ValidationReport `json:"validation"`
	Cached     bool                    `json:"cached"`
	CreatedAt  string                  `json:"created_at"`
	// Claims and their verdicts, spans and signals; absent when
	// verification was off.
	Claims       []engine.ClaimResult `json:"claims,omitempty"`
	Verification *engine.Verification `json:"verification,omitempty"`
}

// Id levels of trace export --ids.
const (
	idsSnippet = "snippet"
	idsSection = "section"
	idsDoc     = "doc"
)

func cmdTrace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "export" {
		return usageError{"use: footnote trace export [--out trace.jsonl] [-n N] [--ids snippet|section|doc]"}
	}
	fs := newFlags("trace export", stderr)
	out := fs.String("out", "trace.jsonl", `file to write ("-" for standard output)`)
	n := fs.Int("n", 0, "only the N most recent answers (0 = all)")
	ids := fs.String("ids", idsSnippet, "the level of the ids in citations and chunks, to match your gold set's: snippet (snip_…), section (e.g. install/linux) or doc (doc_…)")
	if _, err := parseInterspersed(fs, args[1:]); err != nil {
		return err
	}
	if *ids != idsSnippet && *ids != idsSection && *ids != idsDoc {
		return usageError{fmt.Sprintf("--ids %q: use snippet, section or doc, the level your gold set's ids name", *ids)}
	}
	en, err := openReadyEngine(ctx)
	if err != nil {
		return err
	}
	defer en.Close()
	recs, err := en.Answers(ctx, *n)
	if err != nil {
		return err
	}
	slices.Reverse(recs) // oldest first, the order questions were asked
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("create %s: %w", *out, err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, r := range recs {
		a, err := engine.DecodeAnswer(r)
		if err != nil {
			return err
		}
		if err := enc.Encode(toTraceLine(a, *ids)); err != nil {
			return fmt.Errorf("write trace: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	if *out != "-" {
		fmt.Fprintf(stdout, "wrote %d questions to %s\n", len(recs), *out)
	}
	return nil
}

// toTraceLine writes a as a trace line with ids at the given level.
func toTraceLine(a engine.Answer, ids string) traceLine {
	created := a.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	answer := a.Answer
	if a.Refused() {
		answer = engine.RefusalToken // Footnote's own text stays under footnote_answer
	}
	t := traceLine{TS: created, Q: a.Question, Answer: answer, FootnoteAnswer: a.Answer, IDs: ids, Citations: []string{}, OK: a.Grounded,
		Schema: engine.AnswerSchema, TraceID: a.TraceID, QID: a.RequestID, Question: a.Question, Grounded: a.Grounded,
		RefusalReason: a.RefusalReason, Cited: a.Citations, Chunks: []traceChunk{}, IndexHash: a.IndexHash,
		Model: a.Model, EmbedModel: a.EmbedModel, Provenance: a.Provenance, Validation: a.Validation,
		Cached: a.Cache != nil, CreatedAt: created, Claims: a.Claims, Verification: a.Verification,
		DeltaS: a.Retrieval.DeltaS, Lambda: a.Lambda, RefusedBy: a.Retrieval.RefusedBy}
	for _, c := range a.Citations {
		if id := idAt(c, ids); !slices.Contains(t.Citations, id) {
			t.Citations = append(t.Citations, id) // two passages of one section are one section id
		}
	}
	chunks := a.Evidence
	if len(chunks) == 0 {
		chunks = a.Nearest // a refusal still shows what was found
	}
	for _, c := range chunks {
		t.Chunks = append(t.Chunks, traceChunk{ID: idAt(c, ids), N: c.N, SnippetID: c.SnippetID, SectionID: c.SectionID, DocID: c.DocID,
			Source: c.Source, ScoreNorm: c.ScoreNorm, KFinal: c.KFinal, DeltaS: c.DeltaS, Text: c.Text})
	}
	if t.Cited == nil {
		t.Cited = []engine.Citation{}
	}
	return t
}

// idAt is a citation's id at a level.
func idAt(c engine.Citation, level string) string {
	switch level {
	case idsSection:
		return c.SectionID
	case idsDoc:
		return c.DocID
	default:
		return c.SnippetID
	}
}
