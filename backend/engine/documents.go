package engine

// What the index holds, as the UI and the CLI read it: documents, one
// document's stored text, counts, and the answer history.

import (
	"context"
	"fmt"
	"log"
	"strings"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// ErrNotFound matches the error of a document or answer no longer in the
// index.
var ErrNotFound = store.ErrNotFound

// DocumentView is an indexed document as the source viewer shows it. Text is
// the stored text citation offsets point into (Unicode code points).
type DocumentView struct {
	DocumentInfo
	Text  string `json:"text"`
	Chars int    `json:"chars"` // length of Text in code points
}

// Documents lists the indexed documents.
func (e *Engine) Documents(ctx context.Context) ([]DocumentInfo, error) {
	if err := e.Ready(ctx); err != nil {
		return nil, err
	}
	return e.index().Documents(ctx)
}

// Document returns an indexed document with its stored text; the error
// matches ErrNotFound when the index no longer holds it.
func (e *Engine) Document(ctx context.Context, docID string) (DocumentView, error) {
	if err := e.Ready(ctx); err != nil {
		return DocumentView{}, err
	}
	info, text, err := e.index().Document(ctx, docID)
	if err != nil {
		return DocumentView{}, fmt.Errorf("document %s: %w", docID, err)
	}
	return DocumentView{DocumentInfo: info, Text: text, Chars: utf8.RuneCountInString(text)}, nil
}

// Counts returns how many documents and chunks the index holds.
func (e *Engine) Counts(ctx context.Context) (docs, chunks int, err error) {
	if err := e.Ready(ctx); err != nil {
		return 0, 0, err
	}
	return e.index().Counts(ctx)
}

// Answers returns stored answers as recorded, newest first (limit ≤ 0: all).
func (e *Engine) Answers(ctx context.Context, limit int) ([]AnswerRecord, error) {
	if err := e.Ready(ctx); err != nil {
		return nil, err
	}
	return e.index().Answers(ctx, limit)
}

// AnswerByID returns one stored answer as recorded.
func (e *Engine) AnswerByID(ctx context.Context, id string) (AnswerRecord, bool, error) {
	if err := e.Ready(ctx); err != nil {
		return AnswerRecord{}, false, err
	}
	return e.index().AnswerByID(ctx, id)
}

// History returns past answers, newest first, whose question or answer
// contains query (case-insensitive; "" matches all), at most limit (100
// when limit is out of 1..500).
func (e *Engine) History(ctx context.Context, query string, limit int) ([]Answer, error) {
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	recs, err := e.Answers(ctx, 0)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(query))
	out := []Answer{}
	for _, r := range recs {
		if len(out) == limit {
			break
		}
		if q != "" && !strings.Contains(strings.ToLower(r.Question), q) && !strings.Contains(strings.ToLower(r.Answer), q) {
			continue
		}
		out = append(out, AnswerFromRecord(r))
	}
	return out, nil
}

// AnswerFromRecord rebuilds an answer from its stored form; a record whose
// details cannot be read still shows its question and text.
func AnswerFromRecord(r AnswerRecord) Answer {
	a, err := rag.FromRecord(r)
	if err != nil {
		log.Printf("history: %v", err)
		return rag.Answer{ID: r.ID, RequestID: r.RequestID, Question: r.Question, Answer: r.Answer,
			Model: r.Model, Stopped: r.Stopped, DurationMS: r.DurationMS, CreatedAt: r.CreatedAt, Citations: []rag.Citation{}}
	}
	return a
}
