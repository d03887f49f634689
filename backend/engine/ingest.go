package engine

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/store"
)

// FileError is one file that could not be indexed.
type FileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Summary reports one ingest run.
type Summary struct {
	FilesSeen      int         `json:"files_seen"`
	FilesIndexed   int         `json:"files_indexed"`
	FilesUnchanged int         `json:"files_unchanged"`
	FilesSkipped   int         `json:"files_skipped"`
	FilesFailed    int         `json:"files_failed"`
	FilesDeleted   int         `json:"files_deleted"`
	ChunksEmbedded int         `json:"chunks_embedded"` // chunks sent to the model
	ChunksReused   int         `json:"chunks_reused"`   // chunks whose stored vector was reused
	Errors         []FileError `json:"errors"`
	Skipped        []FileError `json:"skipped"`
	DurationMS     int64       `json:"duration_ms"`

	// FilesKeptOut counts the files indexed this run but kept out of
	// evidence because their content looks like a chat or an answer.
	FilesKeptOut int `json:"files_kept_out"`

	// Notes are remarks on files that were indexed, such as the charset a
	// file not saved as UTF-8 was decoded from.
	Notes []FileError `json:"notes,omitempty"`
}

// Progress is emitted after every file.
type Progress struct {
	FilesDone   int     `json:"files_done"`
	FilesTotal  int     `json:"files_total"`
	Chunks      int     `json:"chunks"` // chunks embedded so far
	Current     string  `json:"current"`
	Done        bool    `json:"done"`
	FilesPerSec float64 `json:"files_per_sec"`
	ETAMS       int64   `json:"eta_ms"` // estimated time left; 0 when unknown or done
	Collection  string  `json:"collection"`
}

// Ingest indexes folders and files outside any collection and tracks them
// (as roots of the implicit collection), so this and later ingests, rescans,
// rebuilds and the folder watch notice edits, deletions and renames under
// them. Work goes through the persisted queue, so an interrupted ingest
// resumes at the next start. Unchanged files (same content hash) cost
// neither parsing nor embedding; each document is committed in one
// transaction, so a crash leaves every document either at its old or its new
// revision. A file that fails is reported and the rest continue; the error
// return is only for problems that stop the whole run (bad path, cancelled,
// index unusable).
func (e *Engine) Ingest(ctx context.Context, paths []string, progress func(Progress)) (Summary, error) {
	if len(paths) == 0 {
		return newSummary(), errors.New("nothing to ingest: give one or more folders or files")
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return newSummary(), fmt.Errorf("ingest %s: %w", p, err)
		}
		abs[i] = filepath.Clean(a)
	}
	return e.runLocked(ctx, "", progress, func(ctx context.Context, st *store.Store, sum *Summary) error {
		// Scan first: a path that cannot be scanned is not tracked.
		if err := e.enqueueScan(ctx, st, implicitCollection, abs, true, sum); err != nil {
			return err
		}
		return e.trackIngested(ctx, st, abs)
	})
}

func newSummary() Summary { return Summary{Errors: []FileError{}, Skipped: []FileError{}} }

// runLocked waits for the engine, takes the ingest lock, lets plan queue
// work, and drains the whole queue (including work left by an earlier run).
func (e *Engine) runLocked(ctx context.Context, collection string, progress func(Progress),
	plan func(ctx context.Context, st *store.Store, sum *Summary) error) (Summary, error) {
	start := time.Now()
	sum := newSummary()
	if err := e.Ready(ctx); err != nil {
		return sum, err
	}
	// Close cancels and waits for a running ingest, so no embedding or
	// write outlives the engine.
	ctx, done, err := e.track(ctx)
	if err != nil {
		return sum, err
	}
	defer done()
	e.ingestMu.Lock()
	defer e.ingestMu.Unlock()
	st := e.store
	if plan != nil {
		if err := plan(ctx, st, &sum); err != nil {
			return sum, err
		}
	}
	err = e.drain(ctx, st, collection, progress, &sum)
	if err == nil && sum.FilesIndexed+sum.FilesDeleted > 0 {
		// Ingest has gone idle: fold the text index's per-transaction
		// segments together so lexical queries stay fast. Failing here
		// loses nothing (the index is complete, only slower), so the run
		// still succeeds; the next idle moment tries again.
		if _, cerr := st.CompactTextIndex(ctx); cerr != nil && ctx.Err() == nil {
			log.Printf("compact text index: %v", cerr)
		}
	}
	if sum.ChunksEmbedded > 0 {
		// Embedding leaves hundreds of MB of freed activations that the
		// runtime would return to the OS only slowly; an idle app should
		// not keep them resident. The model's scratch buffers sit in
		// sync.Pools, which a collection only moves to a victim cache, so
		// the second pass is what frees them (idle RSS after a 128-chunk
		// ingest: 439 MB after one pass, 244 MB after two, MiniLM-L6).
		debug.FreeOSMemory()
		debug.FreeOSMemory()
	}
	sum.DurationMS = time.Since(start).Milliseconds()
	if err != nil {
		err = st.Explain(err)
	}
	return sum, err
}

// enqueueScan scans paths and queues every supported file for indexing in
// collection. With detectDeletes, documents indexed under those paths whose
// files are gone are queued for removal.
func (e *Engine) enqueueScan(ctx context.Context, st *store.Store, collection string, paths []string, detectDeletes bool, sum *Summary) error {
	files, skipped, err := ingest.Scan(paths, e.ingestOptions())
	if err != nil {
		return err
	}
	for _, s := range skipped {
		sum.Skipped = append(sum.Skipped, FileError{Path: s.Path, Error: s.Reason})
	}
	sum.FilesSeen += len(files) + len(skipped)
	sum.FilesSkipped += len(skipped)
	items := make([]store.QueueItem, 0, len(files))
	found := make(map[string]bool, len(files))
	for _, f := range files {
		found[f.Path] = true
		items = append(items, store.QueueItem{Path: f.Path, Collection: collection, Op: store.OpIndex})
	}
	if detectDeletes {
		for _, root := range paths {
			docs, err := st.DocumentsUnder(ctx, root)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if !found[d.Path] && (collection == "" || d.Collection == collection) {
					items = append(items, store.QueueItem{Path: d.Path, Collection: collection, Op: store.OpDelete})
				}
			}
		}
	}
	return st.Enqueue(ctx, items)
}
