package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// migrateTraces adds the audit trail (one row per question and per answer
// segment) and the semantic answer cache. Neither holds evidence: cached
// answers live outside the chunk indexes, so they can never be retrieved.
func migrateTraces(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	CREATE TABLE rag_traces (
		id          INTEGER PRIMARY KEY,
		ts          INTEGER NOT NULL, -- unix nanoseconds
		qid         TEXT NOT NULL,
		seg         INTEGER NOT NULL, -- 0 = the question, 1.. = answer segments
		kind        TEXT NOT NULL,
		store       TEXT NOT NULL,
		index_hash  TEXT NOT NULL,
		embed_model TEXT NOT NULL,
		citations   TEXT NOT NULL,    -- JSON arrays from here on
		scores      TEXT NOT NULL,
		k_pos       TEXT NOT NULL,
		k_final     TEXT NOT NULL,
		section_id  TEXT NOT NULL,
		rev         TEXT NOT NULL,
		text        TEXT NOT NULL
	);
	CREATE INDEX rag_traces_qid ON rag_traces(qid, seg);
	CREATE TABLE answer_cache (
		answer_id   TEXT PRIMARY KEY,
		question    TEXT NOT NULL,
		embedding   BLOB NOT NULL,    -- little-endian float32
		index_hash  TEXT NOT NULL,
		model       TEXT NOT NULL,
		template    TEXT NOT NULL,
		revs_json   TEXT NOT NULL,    -- {doc_id: rev} of every cited document
		created_at  INTEGER NOT NULL  -- unix nanoseconds
	);
	CREATE INDEX answer_cache_key ON answer_cache(index_hash, model, template);`
	_, err := tx.ExecContext(ctx, ddl)
	return err
}

// TraceRecord is one rag_traces row.
type TraceRecord struct {
	TS         time.Time
	QID        string
	Seg        int
	Kind       string
	K          int      // top-k of the retrieval (column k, schema version 7)
	TraceID    string   // the answer's retrieval trace id (column trace_id, schema version 7)
	DeltaS     *float64 // ΔS of the row's best passage; nil when not measured (schema version 11)
	Lambda     string   // λ state: convergent, divergent or "-" (column lambda_state)
	Analyzer   string   // the index's analyzer the evidence was found with
	Store      string
	IndexHash  string
	EmbedModel string
	Citations  []string
	Scores     []float64
	KPos       []int
	KFinal     []int
	SectionIDs []string
	Revs       []string
	Text       string
}

// AddTraces stores rows in one transaction.
func (s *Store) AddTraces(ctx context.Context, rows []TraceRecord) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		for _, r := range rows {
			js := func(v any) string {
				b, _ := json.Marshal(v)
				if string(b) == "null" {
					return "[]"
				}
				return string(b)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO rag_traces
				(ts, qid, seg, kind, k, trace_id, deltaS, lambda_state, analyzer, store, index_hash, embed_model, citations, scores, k_pos, k_final, section_id, rev, text)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				r.TS.UnixNano(), r.QID, r.Seg, r.Kind, r.K, r.TraceID, r.DeltaS, lambdaOrDash(r.Lambda), r.Analyzer, r.Store, r.IndexHash, r.EmbedModel,
				js(r.Citations), js(r.Scores), js(r.KPos), js(r.KFinal), js(r.SectionIDs), js(r.Revs), r.Text); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save audit traces: %w", err)
	}
	return nil
}

// Traces returns the rows of one question (qid "" = all), in order.
func (s *Store) Traces(ctx context.Context, qid string) ([]TraceRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT ts, qid, seg, kind, k, trace_id, deltaS, lambda_state, analyzer, store, index_hash, embed_model,
		citations, scores, k_pos, k_final, section_id, rev, text FROM rag_traces
		WHERE ? = '' OR qid = ? ORDER BY id`, qid, qid)
	if err != nil {
		return nil, fmt.Errorf("list audit traces: %w", err)
	}
	defer rows.Close()
	var out []TraceRecord
	for rows.Next() {
		var r TraceRecord
		var ts int64
		var cites, scores, kpos, kfinal, sections, revs string
		var deltaS sql.NullFloat64
		if err := rows.Scan(&ts, &r.QID, &r.Seg, &r.Kind, &r.K, &r.TraceID, &deltaS, &r.Lambda, &r.Analyzer, &r.Store, &r.IndexHash, &r.EmbedModel,
			&cites, &scores, &kpos, &kfinal, &sections, &revs, &r.Text); err != nil {
			return nil, fmt.Errorf("list audit traces: %w", err)
		}
		r.TS = time.Unix(0, ts).UTC()
		if deltaS.Valid {
			r.DeltaS = &deltaS.Float64
		}
		for _, f := range []struct {
			raw string
			dst any
		}{{cites, &r.Citations}, {scores, &r.Scores}, {kpos, &r.KPos}, {kfinal, &r.KFinal}, {sections, &r.SectionIDs}, {revs, &r.Revs}} {
			if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
				return nil, fmt.Errorf("audit trace %s/%d: %w", r.QID, r.Seg, err)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func lambdaOrDash(l string) string {
	if l == "" {
		return "-"
	}
	return l
}
