package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrateLibrary adds what incremental, resumable ingest needs: named
// collections and their folders, the persisted ingest queue, and indexes for
// finding documents by content hash (rename reuse) and by collection.
func migrateLibrary(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	CREATE TABLE collections (
		name       TEXT PRIMARY KEY,
		created_at INTEGER NOT NULL -- unix nanoseconds
	);
	CREATE TABLE collection_paths (
		collection TEXT NOT NULL,
		path       TEXT NOT NULL, -- absolute folder or file
		added_at   INTEGER NOT NULL,
		PRIMARY KEY (collection, path)
	) WITHOUT ROWID;
	CREATE TABLE ingest_queue (
		path        TEXT PRIMARY KEY,
		collection  TEXT NOT NULL,
		op          TEXT NOT NULL, -- 'index' or 'delete'
		seq         INTEGER NOT NULL, -- bumped on every enqueue of path
		enqueued_at INTEGER NOT NULL
	);
	CREATE INDEX ingest_queue_seq ON ingest_queue(seq);
	CREATE INDEX documents_rev ON documents(rev);
	CREATE INDEX documents_collection ON documents(collection, path);`
	_, err := tx.ExecContext(ctx, ddl)
	return err
}

// Queue operations.
const (
	OpIndex  = "index"  // (re)index the file if its content changed
	OpDelete = "delete" // remove the document (and any under the path, for a folder)
)

// QueueItem is one pending ingest request for a path.
type QueueItem struct {
	Path       string `json:"path"`
	Collection string `json:"collection"`
	Op         string `json:"op"`
	Seq        int64  `json:"seq"`
	Crashes    int    `json:"crashes"` // times a process died while parsing it (readercrash.go)
}

// Enqueue records pending work in one transaction. A path already queued
// takes the newer request, and its sequence number moves on, so a worker
// finishing the older request does not drop the newer one.
func (s *Store) Enqueue(ctx context.Context, items []QueueItem) error {
	if len(items) == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM ingest_queue`).Scan(&seq); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO ingest_queue(path, collection, op, seq, enqueued_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(path) DO UPDATE SET collection = excluded.collection, op = excluded.op,
				seq = excluded.seq, enqueued_at = excluded.enqueued_at`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, it := range items {
			if it.Op != OpIndex && it.Op != OpDelete {
				return fmt.Errorf("unknown queue operation %q for %s", it.Op, it.Path)
			}
			seq++
			if _, err := stmt.ExecContext(ctx, it.Path, it.Collection, it.Op, seq, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("queue %d files for indexing: %w", len(items), err)
	}
	return nil
}

// QueueNext returns up to limit pending items, oldest request first.
func (s *Store) QueueNext(ctx context.Context, limit int) ([]QueueItem, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT path, collection, op, seq, crashes FROM ingest_queue ORDER BY seq LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("read the ingest queue: %w", err)
	}
	defer rows.Close()
	var out []QueueItem
	for rows.Next() {
		var it QueueItem
		if err := rows.Scan(&it.Path, &it.Collection, &it.Op, &it.Seq, &it.Crashes); err != nil {
			return nil, fmt.Errorf("read the ingest queue: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// QueueLen is the number of pending items.
func (s *Store) QueueLen(ctx context.Context) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM ingest_queue`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the ingest queue: %w", err)
	}
	return n, nil
}

// QueueDone removes item unless it was queued again since it was read.
func (s *Store) QueueDone(ctx context.Context, item QueueItem) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM ingest_queue WHERE path = ? AND seq = ?`, item.Path, item.Seq); err != nil {
		return fmt.Errorf("mark %s done in the ingest queue: %w", item.Path, s.Explain(err))
	}
	return nil
}
