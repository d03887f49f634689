package store

import (
	"context"
	"database/sql"
)

// migrateDocumentCharset (schema version 12) records the legacy charset a
// document's text was decoded from (ingest/encoding.go), so the Library can
// say a file was read as EUC-KR or Windows-1252 after the ingest report is
// gone. Documents indexed before have "" until they are read again.
func migrateDocumentCharset(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `ALTER TABLE documents ADD COLUMN charset TEXT NOT NULL DEFAULT ''`)
	return err
}
