package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestBackupBeforeMigration rolls an index back one schema version (undoing
// the last migration by hand), reopens it, and checks that the old file was
// copied aside before the upgrade and that both files are sound.
func TestBackupBeforeMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "footnote.db")
	s, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveAnswer(ctx, AnswerRecord{ID: "a1", Question: "q", Answer: "kept"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	old := rollBackOneVersion(t, path)

	s, err = Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatalf("open after rollback: %v", err)
	}
	if got, _ := s.Answers(ctx, 0); len(got) != 1 || got[0].Answer != "kept" {
		t.Fatalf("data lost in migration: %+v", got)
	}

	backup := fmt.Sprintf("%s.pre-v%d.bak", path, old)
	if _, err := os.Stat(backup); err != nil {
		t.Fatalf("no backup before migration: %v", err)
	}
	b, err := sql.Open(driverName, backup)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var version int
	var check, answer string
	if err := b.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != old {
		t.Fatalf("backup schema version = %d (%v), want %d", version, err, old)
	}
	if err := b.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("backup integrity: %q %v", check, err)
	}
	if err := b.QueryRow(`SELECT answer FROM answers WHERE id = 'a1'`).Scan(&answer); err != nil || answer != "kept" {
		t.Fatalf("backup lacks the data: %q %v", answer, err)
	}

	// Opening an up-to-date index takes no new backup.
	s.Close()
	os.Remove(backup)
	s2, err := Open(path, Options{Dim: testDim})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if _, err := os.Stat(backup); !os.IsNotExist(err) {
		t.Fatalf("a backup was taken although no migration was due: %v", err)
	}
}

// analyzerV12 is lexical.Analyzer as schema version 12 recorded it.
const analyzerV12 = "fts5:porter(unicode61(remove_diacritics=2));casefold;en:stopwords-query;ko:stem-prefix;cjk:bigram"

// undoMigration holds, per schema version, the statements that undo its
// migration by hand, so tests can make an index look as an older app left it.
var undoMigration = map[int][]string{
	6: {`DROP TABLE document_sources`, `DROP TABLE evidence_overrides`}, // migrateDocSources
	7: {`DROP INDEX rag_traces_trace_id`, `ALTER TABLE rag_traces DROP COLUMN trace_id`, // migrateTraceIDs
		`ALTER TABLE rag_traces DROP COLUMN k`},
	// migratePorterFTS: the word index as version 7 wrote it, filled from
	// the stored chunks.
	8: {
		dropFTS,
		`CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content = 'chunks', content_rowid = 'id',
			tokenize = 'unicode61 remove_diacritics 2')`,
		createFTSTriggersV1,
		`INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')`,
	},
	9:  {`DROP TABLE thread_turns`, `DROP TABLE threads`}, // migrateThreads
	10: {`DROP TABLE document_ocr`},                       // migrateDocumentOCR
	11: {`ALTER TABLE rag_traces DROP COLUMN deltaS`, `ALTER TABLE rag_traces DROP COLUMN lambda_state`, // migrateTraceDeltaS
		`ALTER TABLE rag_traces DROP COLUMN analyzer`},
	12: {`ALTER TABLE documents DROP COLUMN charset`}, // migrateDocumentCharset
	// migrateChunkContext: the word index of plain chunk text, as version 12
	// wrote it.
	13: {
		dropFTSTriggers,
		`INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')`,
		`ALTER TABLE chunks DROP COLUMN context`,
		createFTSTriggersV1,
		`INSERT INTO chunks_fts(rowid, text) SELECT id, text FROM chunks`,
		`UPDATE meta SET value = '` + analyzerV12 + `' WHERE key = 'analyzer'`,
	},
}

// rollBackOneVersion undoes the last migration of the closed index at path
// by hand and returns the schema version it is left at.
func rollBackOneVersion(t *testing.T, path string) int {
	t.Helper()
	return rollBackTo(t, path, SchemaVersion-1)
}

// rollBackTo undoes the migrations after version of the closed index at
// path, newest first, and returns version.
func rollBackTo(t *testing.T, path string, version int) int {
	t.Helper()
	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for v := SchemaVersion; v > version; v-- {
		stmts, ok := undoMigration[v]
		if !ok {
			t.Fatalf("no undo statements for schema version %d: add them to undoMigration", v)
		}
		for _, stmt := range append(stmts, fmt.Sprintf(`PRAGMA user_version = %d`, v-1)) {
			if _, err := raw.Exec(stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
	}
	return version
}
