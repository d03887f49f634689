package store

import (
	"context"
	"database/sql"
)

// migrateTraceDeltaS (schema version 11) gives every audit row the
// answerability signals of its question or segment — ΔS, the λ state —
// and the analyzer the evidence was found with, so the table holds what
// the audit log line says. Rows written before have NULL ΔS, λ "-" and no
// analyzer.
func migrateTraceDeltaS(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	ALTER TABLE rag_traces ADD COLUMN deltaS REAL;
	ALTER TABLE rag_traces ADD COLUMN lambda_state TEXT NOT NULL DEFAULT '-';
	ALTER TABLE rag_traces ADD COLUMN analyzer TEXT NOT NULL DEFAULT '';`
	_, err := tx.ExecContext(ctx, ddl)
	return err
}
