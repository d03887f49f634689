package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// CacheRecord is one answer_cache row: the question that was answered, its
// embedding, the identity it was answered under and the revisions of the
// documents it cited.
type CacheRecord struct {
	AnswerID  string
	Question  string
	Embedding []float32
	IndexHash string
	Model     string
	Template  string
	Revs      map[string]string // doc_id → rev
	CreatedAt time.Time
}

// PutCache stores (or replaces) a cache entry.
func (s *Store) PutCache(ctx context.Context, c CacheRecord) error {
	revs, err := json.Marshal(c.Revs)
	if err != nil {
		return fmt.Errorf("cache answer %s: %w", c.AnswerID, err)
	}
	_, err = s.w.ExecContext(ctx, `INSERT OR REPLACE INTO answer_cache
		(answer_id, question, embedding, index_hash, model, template, revs_json, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		c.AnswerID, c.Question, encodeVector(c.Embedding), c.IndexHash, c.Model, c.Template, string(revs), c.CreatedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("cache answer %s: %w", c.AnswerID, err)
	}
	return nil
}

// CacheCandidates returns the entries answered under the same index,
// model and prompt template — the only ones a question may be served from.
func (s *Store) CacheCandidates(ctx context.Context, indexHash, model, template string) ([]CacheRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT answer_id, question, embedding, index_hash, model, template,
		revs_json, created_at FROM answer_cache WHERE index_hash = ? AND model = ? AND template = ?
		ORDER BY created_at DESC`, indexHash, model, template)
	if err != nil {
		return nil, fmt.Errorf("read answer cache: %w", err)
	}
	defer rows.Close()
	var out []CacheRecord
	for rows.Next() {
		var c CacheRecord
		var blob []byte
		var revs string
		var created int64
		if err := rows.Scan(&c.AnswerID, &c.Question, &blob, &c.IndexHash, &c.Model, &c.Template, &revs, &created); err != nil {
			return nil, fmt.Errorf("read answer cache: %w", err)
		}
		c.Embedding = decodeVector(blob)
		if err := json.Unmarshal([]byte(revs), &c.Revs); err != nil {
			return nil, fmt.Errorf("answer cache %s: %w", c.AnswerID, err)
		}
		c.CreatedAt = time.Unix(0, created).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeleteCache removes entries by answer id; no ids clears the whole cache.
func (s *Store) DeleteCache(ctx context.Context, answerIDs ...string) error {
	var err error
	if len(answerIDs) == 0 {
		_, err = s.w.ExecContext(ctx, `DELETE FROM answer_cache`)
	} else {
		args := make([]any, len(answerIDs))
		for i, id := range answerIDs {
			args[i] = id
		}
		_, err = s.w.ExecContext(ctx, `DELETE FROM answer_cache WHERE answer_id IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...)
	}
	if err != nil {
		return fmt.Errorf("clear answer cache: %w", err)
	}
	return nil
}
