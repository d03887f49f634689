package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AnswerRecord is one answered (or refused, stopped, failed) question with
// what is needed to audit it later.
type AnswerRecord struct {
	ID             string    `json:"id"`
	RequestID      string    `json:"request_id"`
	Question       string    `json:"question"`
	Answer         string    `json:"answer"`
	Grounded       bool      `json:"grounded"`
	Stopped        bool      `json:"stopped"`
	RefusalReason  string    `json:"refusal_reason"`
	CitationsJSON  string    `json:"citations_json"`
	Model          string    `json:"model"`
	EmbedModel     string    `json:"embed_model"`
	PromptTemplate string    `json:"prompt_template_version"`
	RetrievalJSON  string    `json:"retrieval_json"`
	PromptTokens   int       `json:"prompt_tokens"`
	AnswerTokens   int       `json:"answer_tokens"`
	DurationMS     int64     `json:"duration_ms"`
	Error          string    `json:"error"`
	CreatedAt      time.Time `json:"created_at"`
}

// SaveAnswer stores a; saving the same ID again replaces the record, so a
// caller may save a partial answer and later its final state.
func (s *Store) SaveAnswer(ctx context.Context, a AnswerRecord) error {
	if a.ID == "" {
		return errors.New("save answer: the answer has no id")
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now().UTC()
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO answers
		(id, request_id, question, answer, grounded, stopped, refusal_reason, citations_json,
		 model, embed_model, prompt_template, retrieval_json, prompt_tokens, answer_tokens,
		 duration_ms, error, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET
		 request_id = excluded.request_id, question = excluded.question, answer = excluded.answer,
		 grounded = excluded.grounded, stopped = excluded.stopped,
		 refusal_reason = excluded.refusal_reason, citations_json = excluded.citations_json,
		 model = excluded.model, embed_model = excluded.embed_model,
		 prompt_template = excluded.prompt_template, retrieval_json = excluded.retrieval_json,
		 prompt_tokens = excluded.prompt_tokens, answer_tokens = excluded.answer_tokens,
		 duration_ms = excluded.duration_ms, error = excluded.error, created_at = excluded.created_at`,
		a.ID, a.RequestID, a.Question, a.Answer, a.Grounded, a.Stopped, a.RefusalReason, a.CitationsJSON,
		a.Model, a.EmbedModel, a.PromptTemplate, a.RetrievalJSON, a.PromptTokens, a.AnswerTokens,
		a.DurationMS, a.Error, a.CreatedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("save answer %s: %w", a.ID, err)
	}
	return nil
}

// Answers returns the most recent answers, newest first; limit <= 0 means all.
func (s *Store) Answers(ctx context.Context, limit int) ([]AnswerRecord, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, request_id, question, answer, grounded, stopped,
		refusal_reason, citations_json, model, embed_model, prompt_template, retrieval_json,
		prompt_tokens, answer_tokens, duration_ms, error, created_at
		FROM answers ORDER BY created_at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list answers: %w", err)
	}
	defer rows.Close()
	var out []AnswerRecord
	for rows.Next() {
		var a AnswerRecord
		var created int64
		if err := rows.Scan(&a.ID, &a.RequestID, &a.Question, &a.Answer, &a.Grounded, &a.Stopped,
			&a.RefusalReason, &a.CitationsJSON, &a.Model, &a.EmbedModel, &a.PromptTemplate, &a.RetrievalJSON,
			&a.PromptTokens, &a.AnswerTokens, &a.DurationMS, &a.Error, &created); err != nil {
			return nil, fmt.Errorf("list answers: %w", err)
		}
		a.CreatedAt = time.Unix(0, created).UTC()
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list answers: %w", err)
	}
	return out, nil
}
