package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AnswerByID returns the stored answer with id; found is false when there
// is none.
func (s *Store) AnswerByID(ctx context.Context, id string) (a AnswerRecord, found bool, err error) {
	var created int64
	err = s.r.QueryRowContext(ctx, `SELECT id, request_id, question, answer, grounded, stopped,
		refusal_reason, citations_json, model, embed_model, prompt_template, retrieval_json,
		prompt_tokens, answer_tokens, duration_ms, error, created_at
		FROM answers WHERE id = ?`, id).Scan(&a.ID, &a.RequestID, &a.Question, &a.Answer, &a.Grounded, &a.Stopped,
		&a.RefusalReason, &a.CitationsJSON, &a.Model, &a.EmbedModel, &a.PromptTemplate, &a.RetrievalJSON,
		&a.PromptTokens, &a.AnswerTokens, &a.DurationMS, &a.Error, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return AnswerRecord{}, false, nil
	}
	if err != nil {
		return AnswerRecord{}, false, fmt.Errorf("load answer %s: %w", id, err)
	}
	a.CreatedAt = time.Unix(0, created).UTC()
	return a, true, nil
}
