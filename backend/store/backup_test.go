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

// rollBackOneVersion undoes the last migration of the closed index at path
// by hand and returns the schema version it is left at.
func rollBackOneVersion(t *testing.T, path string) int {
	t.Helper()
	return rollBackTo(t, path, SchemaVersion-1)
}

// undoMigration[v] undoes the migration to schema version v.
var undoMigration = map[int][]string{
	7: {`DROP TABLE thread_turns`, `DROP TABLE threads`},                // migrateThreads
	6: {`DROP TABLE document_sources`, `DROP TABLE evidence_overrides`}, // migrateDocSources
}

// rollBackTo undoes migrations of the closed index at path down to schema
// version target and returns it.
func rollBackTo(t *testing.T, path string, target int) int {
	t.Helper()
	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var stmts []string
	for v := SchemaVersion; v > target; v-- {
		undo, ok := undoMigration[v]
		if !ok {
			t.Fatalf("no undo step for schema version %d", v)
		}
		stmts = append(stmts, undo...)
	}
	stmts = append(stmts, fmt.Sprintf(`PRAGMA user_version = %d`, target))
	for _, stmt := range stmts {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return target
}
