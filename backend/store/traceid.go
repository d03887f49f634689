package store

import (
	"context"
	"database/sql"
)

// migrateTraceIDs (schema version 7) gives every audit row the retrieval
// trace id of its answer, so one answer can be followed from its record to
// its rag_traces rows, and the top-k its retrieval used. Rows written
// before have no trace id (”) and k 0.
func migrateTraceIDs(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	ALTER TABLE rag_traces ADD COLUMN k INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE rag_traces ADD COLUMN trace_id TEXT NOT NULL DEFAULT '';
	CREATE INDEX rag_traces_trace_id ON rag_traces(trace_id);`
	_, err := tx.ExecContext(ctx, ddl)
	return err
}
