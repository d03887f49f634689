package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// Storage conditions a person can fix; match them with errors.Is.
var (
	// ErrDiskFull: the disk holding the data folder has no room left (or the
	// user's quota is used up). Nothing written in the failed transaction
	// is kept; the index stays as it was.
	ErrDiskFull = errors.New("the disk holding the data folder is full")
	// ErrReadOnly: the data folder or the index file cannot be written.
	ErrReadOnly = errors.New("the data folder is read-only")
	// ErrClosed: the index was closed (the app is shutting down).
	ErrClosed = errors.New("the index is closed")
)

// StorageError is a write that failed because of where the index lives,
// not because of what was written. Its message is one sentence naming the
// data folder and what to do; errors.Is matches its Kind and the SQLite or
// system error underneath.
type StorageError struct {
	Kind error  // ErrDiskFull, ErrReadOnly or ErrClosed
	Dir  string // the data folder
	Err  error  // what SQLite or the system reported
}

func (e *StorageError) Error() string {
	switch e.Kind {
	case ErrDiskFull:
		return fmt.Sprintf("The disk holding the data folder %s is full: free some space there and Footnote will continue where it stopped.", e.Dir)
	case ErrReadOnly:
		return fmt.Sprintf("The data folder %s is read-only: make it writable (or choose another data folder) and Footnote will continue where it stopped.", e.Dir)
	default:
		return "The index is closed because Footnote is shutting down; start it again to continue."
	}
}

func (e *StorageError) Unwrap() []error { return []error{e.Kind, e.Err} }

// storageKind recognises the failures StorageError covers. With raw false
// only SQLite's own reports count (and the errno SQLite attaches to them);
// with raw true bare system errors count too, which is right only for
// errors of data-folder writes: a document that cannot be read, or a
// refused connection to a model server, must not read as a read-only
// data folder.
func storageKind(err error, raw bool) error {
	var se sqlite3.Error
	var explained *StorageError
	switch {
	case errors.As(err, &explained):
		return explained.Kind
	case errors.As(err, &se):
		switch {
		case se.Code == sqlite3.ErrFull:
			return ErrDiskFull
		case se.Code == sqlite3.ErrReadonly || se.Code == sqlite3.ErrPerm:
			return ErrReadOnly
		}
		// An I/O error carries the system's reason (a failed write(2)).
		err = se.SystemErrno
	case errors.Is(err, sql.ErrConnDone) || (err != nil && err.Error() == "sql: database is closed"):
		return ErrClosed
	case !raw:
		return nil
	}
	switch {
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		return ErrDiskFull
	case errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM):
		return ErrReadOnly
	}
	return nil
}

// ExplainStorage returns err as a *StorageError for the data folder dir when
// it is a full disk, a read-only folder or a closed index, and err unchanged
// otherwise (nil stays nil). Use it on errors of writes into the data folder
// (the index, the audit log, settings): bare ENOSPC, EDQUOT, EROFS, EACCES
// and EPERM count.
func ExplainStorage(dir string, err error) error { return explain(dir, err, true) }

// Explain is ExplainStorage for this index's folder that trusts only what
// SQLite reports, so it is safe on any error: callers at the app's boundary
// pass errors through it and a storage problem reaches the user as one
// sentence, whatever context was wrapped around it.
func (s *Store) Explain(err error) error { return explain(filepath.Dir(s.path), err, false) }

func explain(dir string, err error, raw bool) error {
	if err == nil {
		return nil
	}
	var se *StorageError
	if errors.As(err, &se) {
		return se // already explained; drop the context wrapped around it
	}
	if kind := storageKind(err, raw); kind != nil {
		return &StorageError{Kind: kind, Dir: dir, Err: err}
	}
	return err
}

// explainWrite is Explain for a failed write transaction. Some failures
// hide a full disk behind a generic message — sqlite-vec reports a full
// page cache spill as "out of memory" — so an unexplained SQLite error is
// checked against the disk: the file at SQLite's page cap, or no room for
// a small file next to it, means the disk is full.
func (s *Store) explainWrite(ctx context.Context, err error) error {
	explained := s.Explain(err)
	var se sqlite3.Error
	if _, ok := explained.(*StorageError); ok || !errors.As(err, &se) || ctx.Err() != nil {
		return explained
	}
	if s.atPageCap(ctx) || !roomFor(filepath.Dir(s.path), 64<<10) {
		return &StorageError{Kind: ErrDiskFull, Dir: filepath.Dir(s.path), Err: err}
	}
	return explained
}

func (s *Store) atPageCap(ctx context.Context) bool {
	var pages, maxPages int64
	if s.w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages) != nil ||
		s.w.QueryRowContext(ctx, `PRAGMA max_page_count`).Scan(&maxPages) != nil {
		return false
	}
	return pages >= maxPages
}

// roomFor reports whether n bytes can still be written in dir.
func roomFor(dir string, n int) bool {
	f, err := os.CreateTemp(dir, ".footnote-space-check-*")
	if err != nil {
		return !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EDQUOT)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	_, err = f.Write(make([]byte, n))
	return !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EDQUOT)
}

// Fault is a storage failure SimulateFault can put the index into.
type Fault int

const (
	// FaultNone lifts a simulated fault.
	FaultNone Fault = iota
	// FaultDiskFull caps the file at its current size (PRAGMA
	// max_page_count on the writer), so any write that needs a new page
	// fails with SQLITE_FULL — the code SQLite returns on ENOSPC.
	FaultDiskFull
	// FaultReadOnly makes the writer refuse writes (PRAGMA query_only),
	// failing them with SQLITE_READONLY as a read-only file does.
	FaultReadOnly
)

// noPageCap is SQLite's largest max_page_count; asking for it restores
// the default (the pragma clamps to the compiled-in limit).
const noPageCap = 4294967294

// SimulateFault puts the writer connection into a storage fault until
// called again with FaultNone. It exists for fault-injection tests and
// drills: a full disk needs a small filesystem and a read-only folder needs
// a remount, neither available without root, and for root file permissions
// do not stop writes. Readers are not affected, as with the real faults.
func (s *Store) SimulateFault(ctx context.Context, f Fault) error {
	var stmts []string
	switch f {
	case FaultNone:
		stmts = []string{"PRAGMA query_only = 0", fmt.Sprintf("PRAGMA max_page_count = %d", noPageCap)}
	case FaultDiskFull:
		// Setting a cap below the current size leaves it at the current size.
		stmts = []string{"PRAGMA max_page_count = 1"}
	case FaultReadOnly:
		stmts = []string{"PRAGMA query_only = 1"}
	default:
		return fmt.Errorf("unknown storage fault %d", f)
	}
	for _, q := range stmts {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("simulate storage fault: %s: %w", q, err)
		}
	}
	return nil
}
