package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// The content hash is a write-time identity of what the index holds: it
// starts from a random seed when the index is created (so two indexes,
// empty or not, never share one) and moves on, in the same transaction,
// with every document written or removed and every reset. So it is never
// out of step with the content after a crash, and costs one meta row
// update per write. Citations carry it (index_hash) to say which state of
// the index served them.

const metaContentHash = "content_hash"

// ContentHash returns the identity of the index's current content.
func (s *Store) ContentHash() string {
	if h, ok := s.content.Load().(string); ok {
		return h
	}
	return ""
}

// loadContentHash reads the content hash at open, seeding it for an index
// that has none (new, or written before it was kept). Opening an index
// that has one writes nothing: other processes (the CLI beside the app)
// open it too, and a write at every open would contend for its lock.
func (s *Store) loadContentHash(ctx context.Context) error {
	var h string
	err := s.w.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaContentHash).Scan(&h)
	if err == nil {
		s.content.Store(h)
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read the index's content hash: %w", err)
	}
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		seed, err := readContentHash(ctx, tx) // a fresh seed, unless another process just wrote one
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key, value) VALUES(?, ?)`, metaContentHash, seed); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaContentHash).Scan(&h)
	})
	if err != nil {
		return fmt.Errorf("seed the index's content hash: %w", err)
	}
	s.content.Store(h)
	return nil
}

func readContentHash(ctx context.Context, tx *sql.Tx) (string, error) {
	var h string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaContentHash).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		seed := make([]byte, 8)
		if _, err := rand.Read(seed); err != nil {
			return "", err
		}
		return hex.EncodeToString(seed), nil
	}
	return h, err
}

// advanceContentHash moves the content hash on by one write (op "put" or
// "delete" of docID at rev, or "reset") inside tx and returns the new one,
// for the caller to publish with publishContentHash after the commit.
func advanceContentHash(ctx context.Context, tx *sql.Tx, op, docID, rev string) (string, error) {
	old, err := readContentHash(ctx, tx)
	if err != nil {
		return "", fmt.Errorf("advance the content hash: %w", err)
	}
	sum := sha256.Sum256([]byte(old + "\x00" + op + "\x00" + docID + "\x00" + rev))
	next := hex.EncodeToString(sum[:8])
	if _, err := tx.ExecContext(ctx, upsertMeta, metaContentHash, next); err != nil {
		return "", fmt.Errorf("advance the content hash: %w", err)
	}
	return next, nil
}

func (s *Store) publishContentHash(h string) {
	if h != "" {
		s.content.Store(h)
	}
}

// LiveContentHash reads the content hash from the index file, which
// another process (the CLI beside the app, a watcher) may have moved on
// since this one last wrote, and remembers it; on a read error it returns
// the last one known.
func (s *Store) LiveContentHash(ctx context.Context) string {
	var h string
	if err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaContentHash).Scan(&h); err != nil {
		return s.ContentHash()
	}
	s.publishContentHash(h)
	return h
}
