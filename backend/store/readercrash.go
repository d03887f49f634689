package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// migrateReaderCrashes lets the ingest queue survive a file that kills the
// process while it is parsed: a queued file is marked with the process
// parsing it, a mark left by a process that died counts as a crash, and a
// file that crashed the reader twice is recorded in reader_crashes (with the
// content hash it had) and skipped until it changes.
func migrateReaderCrashes(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	ALTER TABLE ingest_queue ADD COLUMN parsing TEXT NOT NULL DEFAULT ''; -- owner of a parse in flight, '' when none
	ALTER TABLE ingest_queue ADD COLUMN crashes INTEGER NOT NULL DEFAULT 0; -- times a process died while parsing it
	CREATE TABLE reader_crashes (
		path       TEXT PRIMARY KEY,
		rev        TEXT NOT NULL, -- content hash of the file that crashed the reader
		error      TEXT NOT NULL,
		crashed_at INTEGER NOT NULL -- unix nanoseconds
	);`
	_, err := tx.ExecContext(ctx, ddl)
	return err
}

// QueueMarkParsing records, before a queued file is parsed, that owner (one
// running process) is parsing it. The mark is what survives when the parse
// kills the process.
func (s *Store) QueueMarkParsing(ctx context.Context, item QueueItem, owner string) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE ingest_queue SET parsing = ? WHERE path = ? AND seq = ?`, owner, item.Path, item.Seq); err != nil {
		return fmt.Errorf("mark %s as being read: %w", item.Path, s.Explain(err))
	}
	return nil
}

// QueueUnmarkParsing removes owner's mark once the parse has returned,
// whatever its outcome: only a mark left behind by a process that died
// counts as a crash.
func (s *Store) QueueUnmarkParsing(ctx context.Context, item QueueItem, owner string) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE ingest_queue SET parsing = '' WHERE path = ? AND parsing = ?`, item.Path, owner); err != nil {
		return fmt.Errorf("mark %s as read: %w", item.Path, s.Explain(err))
	}
	return nil
}

// QueueCountCrashes turns the marks of processes that are gone into one more
// crash for each marked file. alive tells whether a mark's owner still runs
// (another Footnote process may be parsing the same queue right now).
func (s *Store) QueueCountCrashes(ctx context.Context, alive func(owner string) bool) (int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT parsing FROM ingest_queue WHERE parsing != ''`)
	if err != nil {
		return 0, fmt.Errorf("read the ingest queue's read marks: %w", err)
	}
	var dead []string
	for rows.Next() {
		var owner string
		if err := rows.Scan(&owner); err != nil {
			rows.Close()
			return 0, fmt.Errorf("read the ingest queue's read marks: %w", err)
		}
		if !alive(owner) {
			dead = append(dead, owner)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read the ingest queue's read marks: %w", err)
	}
	n := 0
	for _, owner := range dead {
		res, err := s.w.ExecContext(ctx, `UPDATE ingest_queue SET crashes = crashes + 1, parsing = '' WHERE parsing = ?`, owner)
		if err != nil {
			return n, fmt.Errorf("count crashes in the ingest queue: %w", s.Explain(err))
		}
		k, _ := res.RowsAffected()
		n += int(k)
	}
	return n, nil
}

// ReaderCrash is a file skipped because reading it crashed Footnote twice.
type ReaderCrash struct {
	Path      string    `json:"path"`
	Rev       string    `json:"rev"`
	Error     string    `json:"error"`
	CrashedAt time.Time `json:"crashed_at"`
}

// RecordReaderCrash remembers that the file at path, with content hash rev,
// crashed the reader, so it is skipped until its content changes.
func (s *Store) RecordReaderCrash(ctx context.Context, c ReaderCrash) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO reader_crashes(path, rev, error, crashed_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET rev = excluded.rev, error = excluded.error, crashed_at = excluded.crashed_at`,
		c.Path, c.Rev, c.Error, c.CrashedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("record that %s crashed the reader: %w", c.Path, s.Explain(err))
	}
	return nil
}

// ReaderCrashAt returns the crash recorded for path; found is false when
// there is none.
func (s *Store) ReaderCrashAt(ctx context.Context, path string) (c ReaderCrash, found bool, err error) {
	var at int64
	err = s.r.QueryRowContext(ctx, `SELECT path, rev, error, crashed_at FROM reader_crashes WHERE path = ?`, path).
		Scan(&c.Path, &c.Rev, &c.Error, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return ReaderCrash{}, false, nil
	}
	if err != nil {
		return ReaderCrash{}, false, fmt.Errorf("read the crash record of %s: %w", path, err)
	}
	c.CrashedAt = fromUnixNano(at)
	return c, true, nil
}

// ReaderCrashes lists every recorded crash, by path.
func (s *Store) ReaderCrashes(ctx context.Context) ([]ReaderCrash, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT path, rev, error, crashed_at FROM reader_crashes ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("list files that crashed the reader: %w", err)
	}
	defer rows.Close()
	var out []ReaderCrash
	for rows.Next() {
		var c ReaderCrash
		var at int64
		if err := rows.Scan(&c.Path, &c.Rev, &c.Error, &at); err != nil {
			return nil, fmt.Errorf("list files that crashed the reader: %w", err)
		}
		c.CrashedAt = fromUnixNano(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// ForgetReaderCrash drops the crash record of path (its content changed, so
// it gets another try).
func (s *Store) ForgetReaderCrash(ctx context.Context, path string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM reader_crashes WHERE path = ?`, path); err != nil {
		return fmt.Errorf("forget the crash record of %s: %w", path, s.Explain(err))
	}
	return nil
}
