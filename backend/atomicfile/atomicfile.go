// Package atomicfile replaces files so that a crash or a power cut at any
// moment leaves either the complete old content or the complete new content
// under the name — never a mix, a truncated file or nothing. The new content
// goes to a temporary file in the same folder, is flushed to disk, renamed
// over the name, and the folder itself is flushed so the rename survives.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// stepHook, when set (only by this package's tests), is called after each
// step of a replacement, so a test can stop the process exactly there.
var stepHook func(step string)

func step(name string) {
	if stepHook != nil {
		stepHook(name)
	}
}

// WriteFile replaces path with data, as os.WriteFile would but atomically
// and durably (see the package comment). perm applies to the new file.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	step("written")
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	step("synced")
	if err := renameDurably(tmp.Name(), path); err != nil {
		return err
	}
	committed = true
	return nil
}

// Commit makes the finished file tmp the content of path: it flushes tmp to
// disk, renames it over path and flushes the folder. tmp must be in path's
// folder; it is for files another writer filled (SQLite's VACUUM INTO, a
// download). On error tmp is left for the caller to remove.
func Commit(tmp, path string) error {
	if err := SyncFile(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	step("synced")
	return renameDurably(tmp, path)
}

// renameDurably renames the flushed file tmp over path and flushes the folder.
func renameDurably(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	step("renamed")
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	step("dir synced")
	return nil
}

// SyncFile flushes the file at path to disk.
func SyncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
