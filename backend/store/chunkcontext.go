package store

import (
	"context"
	"database/sql"

	"golang.org/x/text/unicode/norm"

	"github.com/footnote-app/footnote/backend/corpus"
)

// The word index holds more than a chunk's text: its context (the document
// title and heading path, a table's header row; corpus.Chunk.Context) comes
// first, so a question naming the document or section finds the passages
// under it, and the whole is compatibility-normalised (NFKC), so "Mansfield"
// finds a PDF's "Mansﬁeld" (the ﬁ ligature) and "ABC" finds full-width
// "ＡＢＣ". The stored text is untouched: offsets and highlights point
// into it, and the context is never part of a citation.

// indexText is the SQL function footnote_index_text(context, text): what the
// word index holds for a chunk. It must stay deterministic — FTS5 deletes
// an external-content row by re-tokenising the value it was given.
func indexText(context, text string) string {
	return norm.NFKC.String(corpus.IndexText(context, text))
}

// migrateChunkContext (schema version 13) adds chunks.context and refills
// the word index with footnote_index_text, inside the migration's
// transaction, so a crash leaves the old index in place. Chunks already
// indexed have no context until their files are re-read (the splitter
// version changed too, so the engine rebuilds the index).
func migrateChunkContext(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		`ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT ''`,
		dropFTSTriggers,
		`INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')`,
		`INSERT INTO chunks_fts(rowid, text) SELECT id, footnote_index_text(context, text) FROM chunks`,
		createFTSTriggers,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, upsertMeta, metaAnalyzer, Analyzer)
	return err
}
