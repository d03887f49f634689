package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// migrations[i] moves a database from schema version i to i+1. Never edit a
// released step; append a new one and bump SchemaVersion.
var migrations = []func(ctx context.Context, tx *sql.Tx) error{
	migrateV1,
	migrateRetrieval,       // version 2: CJK bigram index (cjkindex.go)
	migrateLibrary,         // version 3: collections, ingest queue
	migrateTraces,          // version 4: audit traces, semantic answer cache (traces.go)
	migrateReaderCrashes,   // version 5: crash guard of the ingest queue (readercrash.go)
	migrateDocSources,      // version 6: documents kept out of evidence by content, overrides (docsource.go)
	migrateTraceIDs,        // version 7: retrieval trace id and top-k on rag_traces (traceid.go)
	migratePorterFTS,       // version 8: English stemming in the word index (porterindex.go)
	migrateThreads,         // version 9: conversation threads and their turns (threads.go)
	migrateDocumentOCR,     // version 10: pages read by OCR (dococr.go)
	migrateTraceDeltaS,     // version 11: ΔS, λ state and analyzer on rag_traces (tracedeltas.go)
	migrateDocumentCharset, // version 12: the charset a document was decoded from (doccharset.go)
	migrateChunkContext,    // version 13: chunks indexed with their title and heading context (chunkcontext.go)
}

func init() {
	if len(migrations) != SchemaVersion {
		panic("store: SchemaVersion does not match the migration list")
	}
}

// The FTS table and its triggers are kept apart from migrateV1 because Reset
// recreates them.
const (
	createFTS = `CREATE VIRTUAL TABLE chunks_fts USING fts5(
		text,
		content = 'chunks',
		content_rowid = 'id',
		tokenize = 'porter unicode61 remove_diacritics 2'
	)`
	// External-content FTS5 tables are not maintained by SQLite; these
	// triggers keep the index in step with chunks. The word index holds
	// footnote_index_text(context, text) (chunkcontext.go): the chunk's
	// title and heading context, then its text, compatibility-folded.
	createFTSTriggers = `
	CREATE TRIGGER chunks_fts_ai AFTER INSERT ON chunks BEGIN
		INSERT INTO chunks_fts(rowid, text) VALUES (new.id, footnote_index_text(new.context, new.text));
	END;
	CREATE TRIGGER chunks_fts_ad AFTER DELETE ON chunks BEGIN
		INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, footnote_index_text(old.context, old.text));
	END;
	CREATE TRIGGER chunks_fts_au AFTER UPDATE OF text, context ON chunks BEGIN
		INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, footnote_index_text(old.context, old.text));
		INSERT INTO chunks_fts(rowid, text) VALUES (new.id, footnote_index_text(new.context, new.text));
	END;`
	// createFTSTriggersV1 are the triggers schema versions 1 to 12 used,
	// kept for their migrations (never edit a released step).
	createFTSTriggersV1 = `
	CREATE TRIGGER chunks_fts_ai AFTER INSERT ON chunks BEGIN
		INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
	END;
	CREATE TRIGGER chunks_fts_ad AFTER DELETE ON chunks BEGIN
		INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
	END;
	CREATE TRIGGER chunks_fts_au AFTER UPDATE OF text ON chunks BEGIN
		INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
		INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
	END;`
	dropFTSTriggers = `
	DROP TRIGGER IF EXISTS chunks_fts_ai;
	DROP TRIGGER IF EXISTS chunks_fts_ad;
	DROP TRIGGER IF EXISTS chunks_fts_au;`
	dropFTS = `
	DROP TRIGGER IF EXISTS chunks_fts_ai;
	DROP TRIGGER IF EXISTS chunks_fts_ad;
	DROP TRIGGER IF EXISTS chunks_fts_au;
	DROP TABLE IF EXISTS chunks_fts;`
)

func migrateV1(ctx context.Context, tx *sql.Tx) error {
	const ddl = `
	CREATE TABLE meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);
	CREATE TABLE documents (
		doc_id     TEXT PRIMARY KEY,
		path       TEXT NOT NULL,
		title      TEXT NOT NULL,
		format     TEXT NOT NULL,
		rev        TEXT NOT NULL,
		size       INTEGER NOT NULL,
		mod_time   INTEGER NOT NULL, -- unix nanoseconds
		collection TEXT NOT NULL,
		text       TEXT NOT NULL,
		indexed_at INTEGER NOT NULL  -- unix nanoseconds
	);
	CREATE TABLE sections (
		doc_id     TEXT NOT NULL,
		section_id TEXT NOT NULL,
		title      TEXT NOT NULL,
		level      INTEGER NOT NULL,
		char_start INTEGER NOT NULL,
		char_end   INTEGER NOT NULL,
		PRIMARY KEY (doc_id, section_id)
	) WITHOUT ROWID;
	CREATE TABLE chunks (
		id          INTEGER PRIMARY KEY, -- rowid shared with chunks_fts and chunks_vec
		snippet_id  TEXT NOT NULL UNIQUE,
		doc_id      TEXT NOT NULL,
		section_id  TEXT NOT NULL,
		ordinal     INTEGER NOT NULL,
		text        TEXT NOT NULL,
		char_start  INTEGER NOT NULL,
		char_end    INTEGER NOT NULL,
		unit        TEXT NOT NULL,
		tokens      INTEGER NOT NULL,
		pre         INTEGER NOT NULL,
		post        INTEGER NOT NULL,
		page        INTEGER NOT NULL,
		source      TEXT NOT NULL,
		created_at  INTEGER NOT NULL, -- unix nanoseconds
		embed_model TEXT NOT NULL
	);
	CREATE INDEX chunks_doc ON chunks(doc_id, ordinal);
	CREATE TABLE answers (
		id              TEXT PRIMARY KEY,
		request_id      TEXT NOT NULL,
		question        TEXT NOT NULL,
		answer          TEXT NOT NULL,
		grounded        INTEGER NOT NULL,
		stopped         INTEGER NOT NULL,
		refusal_reason  TEXT NOT NULL,
		citations_json  TEXT NOT NULL,
		model           TEXT NOT NULL,
		embed_model     TEXT NOT NULL,
		prompt_template TEXT NOT NULL,
		retrieval_json  TEXT NOT NULL,
		prompt_tokens   INTEGER NOT NULL,
		answer_tokens   INTEGER NOT NULL,
		duration_ms     INTEGER NOT NULL,
		error           TEXT NOT NULL,
		created_at      INTEGER NOT NULL -- unix nanoseconds
	);
	CREATE INDEX answers_created ON answers(created_at);`
	for _, stmt := range []string{ddl, createFTS, createFTSTriggersV1} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, upsertMeta, metaAnalyzer, Analyzer)
	return err
}

// migrate brings the schema to SchemaVersion, refusing files from the future.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.backupBeforeMigration(ctx); err != nil {
		return err
	}
	return s.withTx(ctx, func(tx *sql.Tx) error {
		var version int
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			return err
		}
		if version > SchemaVersion {
			return fmt.Errorf("%w (file schema %d, this app knows %d)", ErrNewerSchema, version, SchemaVersion)
		}
		for v := version; v < SchemaVersion; v++ {
			if err := migrations[v](ctx, tx); err != nil {
				return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
			}
		}
		if version != SchemaVersion {
			// PRAGMA takes no bound parameters; the value is our own integer.
			if _, err := tx.ExecContext(ctx, `PRAGMA user_version = `+strconv.Itoa(SchemaVersion)); err != nil {
				return err
			}
		}
		return nil
	})
}

func createVecSQL(dim int) string {
	// source is a vec0 metadata column so KNN can skip non-evidence rows
	// before choosing the k nearest.
	return fmt.Sprintf(`CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[%d], source text)`, dim)
}

// prepareVectors makes sure chunks_vec exists with the wanted dimension.
func (s *Store) prepareVectors(ctx context.Context, opts Options) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		stored := 0
		var raw string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaVectorDim).Scan(&raw)
		switch {
		case err == sql.ErrNoRows:
		case err != nil:
			return err
		default:
			if stored, err = strconv.Atoi(raw); err != nil || stored <= 0 {
				return fmt.Errorf("the index records an invalid vector dimension %q", raw)
			}
		}
		want := opts.Dim
		if want == 0 {
			if stored == 0 {
				return fmt.Errorf("the index has no vector dimension yet; pass the embedding model's dimension")
			}
			want = stored
		}
		s.dim.Store(int64(want))
		if stored == want {
			return nil
		}
		if stored != 0 {
			var chunks, vectors int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&chunks); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks_vec`).Scan(&vectors); err != nil {
				return err
			}
			if chunks > 0 && vectors == 0 {
				// Indexed without an embedding model (pendingvectors.go):
				// the first model's length is taken, the text kept.
				return adoptDimension(ctx, tx, want)
			}
			if chunks > 0 && !opts.ResetOnDimensionChange {
				return fmt.Errorf("%w (index has %d, model has %d); rebuild the index", ErrDimensionMismatch, stored, want)
			}
		}
		return resetContent(ctx, tx, want)
	})
}

// resetContent drops every indexed document and recreates the chunk indexes,
// the vector table with dimension dim. Answers and other metadata stay.
func resetContent(ctx context.Context, tx *sql.Tx, dim int) error {
	stmts := []string{
		dropFTS,
		`DROP TABLE IF EXISTS chunks_vec`,
		`DELETE FROM chunks`,
		`DELETE FROM sections`,
		`DELETE FROM documents`,
		`DELETE FROM document_ocr`,
		createFTS,
		createFTSTriggers,
		createVecSQL(dim),
		dropQuantTables, // rebuilt by the next PutDocument
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("reset index: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, upsertMeta, metaVectorDim, strconv.Itoa(dim)); err != nil {
		return err
	}
	_, err := advanceContentHash(ctx, tx, "reset", "", "")
	return err
}

// Reset drops all indexed content and recreates the vector index for dim,
// for an index rebuild. Stored answers and metadata other than the vector
// dimension are kept.
func (s *Store) Reset(ctx context.Context, dim int) error {
	if dim <= 0 {
		return fmt.Errorf("reset index: invalid vector dimension %d", dim)
	}
	err := s.withTx(ctx, func(tx *sql.Tx) error { return resetContent(ctx, tx, dim) })
	if err != nil {
		return err
	}
	if s.r != nil { // after Open: publish the reset's hash (Open loads it itself)
		if h, ok, err := s.Meta(ctx, metaContentHash); err == nil && ok {
			s.publishContentHash(h)
		}
	}
	s.dim.Store(int64(dim))
	s.quant.Store(nil) // resetContent dropped the quantised copy
	return nil
}
