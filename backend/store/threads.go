package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Threads are conversations: questions asked one after another, each turn
// linked to the answer it got. A turn stores the question as asked and the
// standalone question that was searched for; the answer text stays in the
// answers table and is never read back into a later turn's prompt.

// migrateThreads (schema version 9) adds threads and their turns.
func migrateThreads(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	CREATE TABLE threads (
		id         TEXT PRIMARY KEY,
		title      TEXT NOT NULL,
		created_at INTEGER NOT NULL, -- unix nanoseconds
		updated_at INTEGER NOT NULL  -- unix nanoseconds
	) WITHOUT ROWID;
	CREATE TABLE thread_turns (
		thread_id  TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
		seq        INTEGER NOT NULL, -- 1-based position in the thread
		answer_id  TEXT NOT NULL,    -- answers.id
		question   TEXT NOT NULL,
		standalone TEXT NOT NULL,
		PRIMARY KEY (thread_id, seq)
	) WITHOUT ROWID;
	CREATE INDEX threads_updated ON threads(updated_at);`
	_, err := tx.ExecContext(ctx, ddl)
	return err
}

// Thread is one conversation.
type Thread struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Turns     int       `json:"turns"`
}

// ThreadTurn is one question of a thread and the answer it got.
type ThreadTurn struct {
	Seq        int    `json:"seq"`
	AnswerID   string `json:"answer_id"`
	Question   string `json:"question"`
	Standalone string `json:"standalone"`
}

// ErrNoThread is returned for a thread id that does not exist.
var ErrNoThread = errors.New("no such thread")

// CreateThread stores a new, empty thread.
func (s *Store) CreateThread(ctx context.Context, id, title string, now time.Time) (Thread, error) {
	if id == "" {
		return Thread{}, errors.New("create thread: the thread has no id")
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO threads (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)`,
		id, title, now.UnixNano(), now.UnixNano())
	if err != nil {
		return Thread{}, fmt.Errorf("create thread %s: %w", id, err)
	}
	return Thread{ID: id, Title: title, CreatedAt: now.UTC(), UpdatedAt: now.UTC()}, nil
}

// Threads lists threads, most recently updated first.
func (s *Store) Threads(ctx context.Context) ([]Thread, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT t.id, t.title, t.created_at, t.updated_at,
		(SELECT count(*) FROM thread_turns WHERE thread_id = t.id)
		FROM threads t ORDER BY t.updated_at DESC, t.id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	defer rows.Close()
	out := []Thread{}
	for rows.Next() {
		var t Thread
		var created, updated int64
		if err := rows.Scan(&t.ID, &t.Title, &created, &updated, &t.Turns); err != nil {
			return nil, fmt.Errorf("list threads: %w", err)
		}
		t.CreatedAt, t.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	return out, nil
}

// ThreadByID returns one thread; ErrNoThread when it does not exist.
func (s *Store) ThreadByID(ctx context.Context, id string) (Thread, error) {
	var t Thread
	var created, updated int64
	err := s.r.QueryRowContext(ctx, `SELECT id, title, created_at, updated_at,
		(SELECT count(*) FROM thread_turns WHERE thread_id = threads.id) FROM threads WHERE id = ?`, id).
		Scan(&t.ID, &t.Title, &created, &updated, &t.Turns)
	if errors.Is(err, sql.ErrNoRows) {
		return Thread{}, fmt.Errorf("thread %q: %w", id, ErrNoThread)
	}
	if err != nil {
		return Thread{}, fmt.Errorf("thread %q: %w", id, err)
	}
	t.CreatedAt, t.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	return t, nil
}

// RenameThread changes a thread's title.
func (s *Store) RenameThread(ctx context.Context, id, title string) error {
	res, err := s.w.ExecContext(ctx, `UPDATE threads SET title = ? WHERE id = ?`, title, id)
	return s.oneThread(res, err, "rename", id)
}

// DeleteThread removes a thread and its turns; the answers stay in history.
func (s *Store) DeleteThread(ctx context.Context, id string) error {
	var res sql.Result
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM thread_turns WHERE thread_id = ?`, id); err != nil {
			return err
		}
		var err error
		res, err = tx.ExecContext(ctx, `DELETE FROM threads WHERE id = ?`, id)
		return err
	})
	return s.oneThread(res, err, "delete", id)
}

func (s *Store) oneThread(res sql.Result, err error, verb, id string) error {
	if err != nil {
		return fmt.Errorf("%s thread %q: %w", verb, id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("%s thread %q: %w", verb, id, ErrNoThread)
	}
	return nil
}

// AddTurn appends a turn to a thread and marks the thread updated.
func (s *Store) AddTurn(ctx context.Context, threadID string, t ThreadTurn, now time.Time) (ThreadTurn, error) {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE threads SET updated_at = ? WHERE id = ?`, now.UnixNano(), threadID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNoThread
		}
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM thread_turns WHERE thread_id = ?`,
			threadID).Scan(&t.Seq); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO thread_turns (thread_id, seq, answer_id, question, standalone)
			VALUES (?, ?, ?, ?, ?)`, threadID, t.Seq, t.AnswerID, t.Question, t.Standalone)
		return err
	})
	if err != nil {
		return ThreadTurn{}, fmt.Errorf("add a turn to thread %q: %w", threadID, err)
	}
	return t, nil
}

// ThreadTurns returns a thread's turns in order.
func (s *Store) ThreadTurns(ctx context.Context, threadID string) ([]ThreadTurn, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, answer_id, question, standalone FROM thread_turns
		WHERE thread_id = ? ORDER BY seq`, threadID)
	if err != nil {
		return nil, fmt.Errorf("turns of thread %q: %w", threadID, err)
	}
	defer rows.Close()
	out := []ThreadTurn{}
	for rows.Next() {
		var t ThreadTurn
		if err := rows.Scan(&t.Seq, &t.AnswerID, &t.Question, &t.Standalone); err != nil {
			return nil, fmt.Errorf("turns of thread %q: %w", threadID, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("turns of thread %q: %w", threadID, err)
	}
	return out, nil
}
