//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"
)

// SyncDir flushes a folder's entries — files created, renamed or removed in
// it — to disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	if err := errors.Join(d.Sync(), d.Close()); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
