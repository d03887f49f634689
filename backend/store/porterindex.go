package store

import (
	"context"
	"database/sql"
)

// migratePorterFTS (schema version 8) rebuilds the word index with FTS5's
// porter stemmer wrapped around unicode61, so "installing" finds "installs".
// FTS5 runs the same tokenizer over MATCH strings, so queries are stemmed the
// same way without a change on the query side. Korean stems and the CJK
// bigram table are untouched: porter leaves non-ASCII tokens as they are.
// The index is refilled from the stored chunk text inside the migration's
// transaction, so a crash leaves the old index in place.
func migratePorterFTS(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		dropFTS,
		createFTS,
		createFTSTriggersV1,
		`INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, upsertMeta, metaAnalyzer, Analyzer)
	return err
}
