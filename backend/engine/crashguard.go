package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/store"
)

// A file whose parsing kills the process (a fatal error no recover()
// catches) would otherwise stay queued and kill every later run, and the
// app at every start. So each parse is marked in the queue before it
// starts and unmarked when it returns; a mark left by a process that is gone
// counts as a crash of that file. A file that crashed once is read again
// alone, so the file blamed is the one that crashed; after a second crash
// it is skipped, and recorded so the library and `footnote doctor` show it,
// until its content changes. A file one of whose reading steps ran past its
// time budget (ingest.ErrTooSlow) is recorded the same way at once, so no
// file stalls ingest twice. Either kind of file is "set aside": listed with
// its reason (SetAsideFiles) and tried again when the user asks (Retry).

// RunExtractorIfChild must be the first call in main: in a process started
// to parse files for Footnote (a child of this executable, see
// ingest.RunExtractorIfChild) it serves them and exits; otherwise it returns
// at once, and untrusted rich formats are parsed in such children from then
// on.
func RunExtractorIfChild() { ingest.RunExtractorIfChild() }

// maxReaderCrashes is how many times a file may crash the process before
// it is skipped.
const maxReaderCrashes = 2

// ErrCrashedReader is the sentence a file that crashed the reader fails with.
var ErrCrashedReader = errors.New("this file crashed the reader twice, so it was skipped; re-save or convert it and scan again (Footnote tries it again once it changes, or when you ask to try it again)")

// parseOwner names this process in the queue's parse marks: its pid, for
// telling whether the process still runs, and a random part, so a later
// process given the same pid is not taken for this one.
var parseOwner = func() string {
	b := make([]byte, 6)
	rand.Read(b)
	return strconv.Itoa(os.Getpid()) + ":" + hex.EncodeToString(b)
}()

// ownerAlive reports whether the process that made a parse mark still runs.
func ownerAlive(owner string) bool {
	if owner == parseOwner {
		return true
	}
	pidText, _, _ := strings.Cut(owner, ":")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		p.Release()
		return true // FindProcess found it running
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// crashGuard decides, before a queued file is parsed, whether it may be:
// not when it crashed the reader at this content before, nor when this is
// its third try after the process died reading it.
func (e *Engine) crashGuard(ctx context.Context, st *store.Store, it store.QueueItem, rev string) error {
	rec, found, err := st.ReaderCrashAt(ctx, it.Path)
	if err != nil {
		return err
	}
	if found && rec.Rev == rev {
		return errors.New(rec.Error)
	}
	if it.Crashes >= maxReaderCrashes {
		err := st.RecordReaderCrash(ctx, store.ReaderCrash{Path: it.Path, Rev: rev, Error: ErrCrashedReader.Error(), CrashedAt: e.clock.Now()})
		if err != nil {
			return err
		}
		return ErrCrashedReader
	}
	if found {
		return st.ForgetReaderCrash(ctx, it.Path) // changed since: it gets another try
	}
	return nil
}

// guardedParse runs parse with the queue item marked as being parsed by
// this process.
func guardedParse[T any](ctx context.Context, st *store.Store, it store.QueueItem, parse func() (T, error)) (T, error) {
	var zero T
	if err := st.QueueMarkParsing(ctx, it, parseOwner); err != nil {
		return zero, err
	}
	v, err := parse()
	// Unmark even when cancelled meanwhile: a mark left behind would count
	// as a crash at the next start.
	if uerr := st.QueueUnmarkParsing(context.WithoutCancel(ctx), it, parseOwner); uerr != nil && err == nil {
		return zero, uerr
	}
	return v, err
}

// readerCrashFailures lists the recorded crashes as library failures; they
// outlive the session that saw them.
func (e *Engine) readerCrashFailures() map[string]FileFailure {
	out := map[string]FileFailure{}
	st := e.index()
	if st == nil {
		return out
	}
	crashes, err := st.ReaderCrashes(context.Background())
	if err != nil {
		return out
	}
	for _, c := range crashes {
		out[c.Path] = FileFailure{Path: c.Path, Error: c.Error, At: c.CrashedAt, SetAside: true}
	}
	return out
}

// checkReaderCrashes is the doctor's line for files skipped because they
// crashed the reader; none, no line.
func (e *Engine) checkReaderCrashes(ctx context.Context) []Check {
	crashes, err := e.store.ReaderCrashes(ctx)
	if err != nil {
		return []Check{{Name: "files that crashed the reader", Detail: err.Error()}}
	}
	if len(crashes) == 0 {
		return nil
	}
	paths := make([]string, len(crashes))
	for i, c := range crashes {
		paths[i] = c.Path
	}
	return []Check{{
		Name:   "files that crashed the reader",
		Detail: fmt.Sprintf("%d skipped because reading them crashed Footnote twice: %s", len(crashes), strings.Join(paths, ", ")),
		Fix:    "re-save or convert them (e.g. print a PDF to a new PDF) and scan again; Footnote tries a file again once it changes",
	}}
}

// errSetAside ends the sentence of a file set aside for taking too long.
const errSetAside = "; Footnote has set it aside and tries it again once it changes, or when you ask to try it again"

// setAside records that the file at path, at content hash rev, failed with
// a step past its time budget (cause), so later runs skip it until it
// changes or Retry; it returns the error the file fails with now.
func (e *Engine) setAside(ctx context.Context, st *store.Store, path, rev string, cause error) error {
	reason := strings.TrimPrefix(cause.Error(), "load "+path+": ") + errSetAside
	if err := st.RecordReaderCrash(ctx, store.ReaderCrash{Path: path, Rev: rev, Error: reason, CrashedAt: e.clock.Now()}); err != nil {
		return err
	}
	return errors.New(reason)
}

// SetAsideFile is a file ingest skips until it changes: reading it crashed
// Footnote twice, or took longer than a step's time budget.
type SetAsideFile struct {
	Path   string    `json:"path"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// SetAsideFiles lists the files set aside, by path.
func (e *Engine) SetAsideFiles(ctx context.Context) ([]SetAsideFile, error) {
	if err := e.Ready(ctx); err != nil {
		return nil, err
	}
	recs, err := e.index().ReaderCrashes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SetAsideFile, 0, len(recs))
	for _, r := range recs {
		out = append(out, SetAsideFile{Path: r.Path, Reason: r.Error, At: r.CrashedAt})
	}
	return out, nil
}

// ErrNotSetAside is Retry's error for a file that is not set aside.
var ErrNotSetAside = errors.New("file is not set aside")

// Retry forgets that the file at path was set aside and indexes it now,
// in the collection whose folder holds it. It may be set aside again.
func (e *Engine) Retry(ctx context.Context, path string, progress func(Progress)) (Summary, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return newSummary(), fmt.Errorf("try %s again: %w", path, err)
	}
	abs = filepath.Clean(abs)
	collection := ""
	if cols, err := e.Collections(ctx); err == nil {
		root := ""
		for _, c := range cols {
			for _, p := range c.Paths {
				if under(abs, []string{p}) && len(p) > len(root) {
					root, collection = p, c.Name
				}
			}
		}
	}
	return e.runLocked(ctx, "", progress, func(ctx context.Context, st *store.Store, sum *Summary) error {
		if _, found, err := st.ReaderCrashAt(ctx, abs); err != nil {
			return err
		} else if !found {
			return fmt.Errorf("%s: %w; `footnote library set-aside` lists the files that are", abs, ErrNotSetAside)
		}
		if err := st.ForgetReaderCrash(ctx, abs); err != nil {
			return err
		}
		e.forgetFailure(abs)
		return st.Enqueue(ctx, []store.QueueItem{{Path: abs, Collection: collection, Op: store.OpIndex}})
	})
}
