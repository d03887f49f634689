package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// backupBeforeMigration copies an existing index to "<file>.pre-v<N>.bak"
// before its schema is migrated, so a migration that goes wrong — or a user
// who needs the older app back — can return to the previous file. VACUUM
// INTO writes a consistent copy even while WAL frames are pending. It returns
// the backup's path ("" when no migration is due).
func (s *Store) backupBeforeMigration(ctx context.Context) (string, error) {
	var version int
	if err := s.w.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return "", fmt.Errorf("read schema version: %w", err)
	}
	if version == 0 || version >= SchemaVersion {
		return "", nil // a new file, or nothing to migrate (newer files are refused later)
	}
	backup := s.path + ".pre-v" + strconv.Itoa(version) + ".bak"
	if err := os.Remove(backup); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("replace old backup %s: %w", backup, err)
	}
	if _, err := s.w.ExecContext(ctx, `VACUUM INTO '`+strings.ReplaceAll(backup, "'", "''")+`'`); err != nil {
		os.Remove(backup)
		return "", fmt.Errorf("back up %s before upgrading its schema from version %d: %w (free some disk space and start again; the index was not changed)", s.path, version, err)
	}
	return backup, nil
}
