package store

import (
	"context"
	"database/sql"
)

// The CJK bigram index: Han and Kana runs of every chunk, as overlapping
// character bigrams (see backend/lexical), in a contentless FTS5 table kept
// in step with chunks by triggers.

const (
	// createCJK is a contentless table: the bigrams are derived from
	// chunks.text by footnote_cjk_grams, so there is nothing worth storing.
	createCJK = `CREATE VIRTUAL TABLE chunks_cjk USING fts5(
		grams,
		content = '',
		contentless_delete = 1,
		tokenize = 'unicode61 remove_diacritics 2'
	)`
	createCJKTriggers = `
	CREATE TRIGGER chunks_cjk_ai AFTER INSERT ON chunks
	WHEN footnote_cjk_grams(new.text) != '' BEGIN
		INSERT INTO chunks_cjk(rowid, grams) VALUES (new.id, footnote_cjk_grams(new.text));
	END;
	CREATE TRIGGER chunks_cjk_ad AFTER DELETE ON chunks BEGIN
		DELETE FROM chunks_cjk WHERE rowid = old.id;
	END;
	CREATE TRIGGER chunks_cjk_au AFTER UPDATE OF text ON chunks BEGIN
		DELETE FROM chunks_cjk WHERE rowid = old.id;
		INSERT INTO chunks_cjk(rowid, grams)
			SELECT new.id, footnote_cjk_grams(new.text) WHERE footnote_cjk_grams(new.text) != '';
	END;`
)

// migrateRetrieval (schema version 2) adds the CJK bigram index and fills it
// from the chunks already indexed.
func migrateRetrieval(ctx context.Context, tx *sql.Tx) error {
	stmts := []string{
		createCJK,
		createCJKTriggers,
		`INSERT INTO chunks_cjk(rowid, grams)
			SELECT id, footnote_cjk_grams(text) FROM chunks WHERE footnote_cjk_grams(text) != ''`,
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, upsertMeta, metaAnalyzer, Analyzer)
	return err
}
