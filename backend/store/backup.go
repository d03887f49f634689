package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/footnote-app/footnote/backend/atomicfile"
)

// backupBeforeMigration copies an existing index to "<file>.pre-v<N>.bak"
// before its schema is migrated, so a migration that goes wrong — or a user
// who needs the older app back — can return to the previous file. VACUUM
// INTO writes a consistent copy even while WAL frames are pending. The copy
// is written under a temporary name and flushed before it replaces an
// earlier backup of the same version, so a full disk or a crash half way
// keeps that earlier backup. It returns the backup's path ("" when no
// migration is due).
func (s *Store) backupBeforeMigration(ctx context.Context) (string, error) {
	var version int
	if err := s.w.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return "", fmt.Errorf("read schema version: %w", err)
	}
	if version == 0 || version >= SchemaVersion {
		return "", nil // a new file, or nothing to migrate (newer files are refused later)
	}
	backup := s.path + ".pre-v" + strconv.Itoa(version) + ".bak"
	// Leftovers of an interrupted attempt are ours to clear; VACUUM INTO
	// needs the name free. SQLite keeps a rollback journal beside the copy.
	tmp := backup + ".partial"
	for _, p := range []string{tmp, tmp + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("remove unfinished backup %s: %w", p, err)
		}
	}
	failed := func(err error) (string, error) {
		os.Remove(tmp)
		os.Remove(tmp + "-journal")
		return "", fmt.Errorf("back up %s before upgrading its schema from version %d: %w (free some disk space and start again; the index was not changed)", s.path, version, err)
	}
	if _, err := s.w.ExecContext(ctx, `VACUUM INTO '`+strings.ReplaceAll(tmp, "'", "''")+`'`); err != nil {
		return failed(err)
	}
	if err := atomicfile.Commit(tmp, backup); err != nil {
		return failed(err)
	}
	return backup, nil
}
