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

// LatestAnswerTo returns the most recent stored answer to question (as
// asked, ignoring case and surrounding space) that was not stopped; found
// is false when there is none. The answers table has no index on the
// question: one scan, which stays in milliseconds for tens of thousands of
// answers.
func (s *Store) LatestAnswerTo(ctx context.Context, question string) (a AnswerRecord, found bool, err error) {
	var id string
	err = s.r.QueryRowContext(ctx, `SELECT id FROM answers WHERE lower(trim(question)) = lower(trim(?)) AND stopped = 0
		ORDER BY created_at DESC, id DESC LIMIT 1`, question).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return AnswerRecord{}, false, nil
	}
	if err != nil {
		return AnswerRecord{}, false, fmt.Errorf("find the last answer to %q: %w", question, err)
	}
	return s.AnswerByID(ctx, id)
}
