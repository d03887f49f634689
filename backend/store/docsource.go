package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Documents whose content looks model-made (a saved chat, an exported
// answer) are indexed with a non-corpus source, so they are never evidence.
// document_sources records what the detection said and why, for the
// Library; evidence_overrides holds the files the user said to treat as
// documents anyway. Overrides are keyed by path, not by document, so they
// survive a re-index, a rescan, the file being deleted and restored, and an
// index rebuild (which copies the table).

func migrateDocSources(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	CREATE TABLE document_sources (
		doc_id TEXT PRIMARY KEY,
		source TEXT NOT NULL, -- what the content looks like: model or user
		reason TEXT NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE evidence_overrides (
		path       TEXT PRIMARY KEY,
		created_at INTEGER NOT NULL -- unix nanoseconds
	) WITHOUT ROWID;
	-- Documents indexed before their content was checked may be saved chats
	-- indexed as evidence: clearing their revision makes the next ingest or
	-- rescan read each file once more (reusing its vectors) and check it.
	UPDATE documents SET rev = '';`
	_, err := tx.ExecContext(ctx, ddl)
	return err
}

// EvidenceOverridesTable is the table an index rebuild copies so the
// user's "treat as a document" choices carry over.
const EvidenceOverridesTable = "evidence_overrides"

func insertDocumentSource(ctx context.Context, tx *sql.Tx, doc corpus.Document) error {
	if doc.DetectedSource == "" || doc.DetectedSource == corpus.SourceCorpus {
		return nil
	}
	if doc.DetectedReason == "" {
		return fmt.Errorf("document detected as %s has no reason", doc.DetectedSource)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO document_sources (doc_id, source, reason) VALUES (?, ?, ?)`,
		doc.DocID, doc.DetectedSource, doc.DetectedReason); err != nil {
		return fmt.Errorf("record the source of %s: %w", doc.Path, err)
	}
	return nil
}

// DocumentSource is a document whose content was found to be model-made or
// the user's side of a chat.
type DocumentSource struct {
	DocID  string `json:"doc_id"`
	Path   string `json:"path"`
	Source string `json:"source"` // detected: model or user
	Reason string `json:"reason"`
	// Overridden is true when the user said to treat the file as a
	// document: its chunks are then indexed as corpus.
	Overridden bool `json:"overridden"`
}

// DocumentSources lists the indexed documents detected as not being
// ordinary documents, by path.
func (s *Store) DocumentSources(ctx context.Context) ([]DocumentSource, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT d.doc_id, d.path, ds.source, ds.reason,
		EXISTS (SELECT 1 FROM evidence_overrides o WHERE o.path = d.path)
		FROM document_sources ds JOIN documents d ON d.doc_id = ds.doc_id ORDER BY d.path`)
	if err != nil {
		return nil, fmt.Errorf("list documents kept out of evidence: %w", err)
	}
	defer rows.Close()
	var out []DocumentSource
	for rows.Next() {
		var d DocumentSource
		if err := rows.Scan(&d.DocID, &d.Path, &d.Source, &d.Reason, &d.Overridden); err != nil {
			return nil, fmt.Errorf("list documents kept out of evidence: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// EvidenceOverride reports whether the user said to treat the file at path
// as a document whatever its content looks like.
func (s *Store) EvidenceOverride(ctx context.Context, path string) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM evidence_overrides WHERE path = ?`, path).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the evidence override of %s: %w", path, err)
	}
	return true, nil
}

// SetEvidenceOverride records (on) or removes (off) the user's choice to
// treat the file at path as a document, and marks its document for
// re-indexing: its stored revision is cleared, so the next index of the
// path parses it again (reusing its vectors) and applies the choice.
func (s *Store) SetEvidenceOverride(ctx context.Context, path string, on bool, now time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		if on {
			_, err = tx.ExecContext(ctx, `INSERT INTO evidence_overrides (path, created_at) VALUES (?, ?)
				ON CONFLICT(path) DO NOTHING`, path, now.UnixNano())
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM evidence_overrides WHERE path = ?`, path)
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE documents SET rev = '' WHERE path = ?`, path)
		return err
	})
	if err != nil {
		return fmt.Errorf("set the evidence override of %s: %w", path, s.Explain(err))
	}
	return nil
}

// AnswersStamp changes whenever an answer is stored or replaced, so the
// ingest-time check against stored answers can keep its hashed copy until
// then.
func (s *Store) AnswersStamp(ctx context.Context) (string, error) {
	var n, newest, size int64
	err := s.r.QueryRowContext(ctx, `SELECT count(*), coalesce(max(created_at), 0), coalesce(sum(length(answer)), 0) FROM answers`).
		Scan(&n, &newest, &size)
	if err != nil {
		return "", fmt.Errorf("read the stored answers' stamp: %w", err)
	}
	return fmt.Sprintf("%d/%d/%d", n, newest, size), nil
}
