package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/footnote-app/footnote/backend/ingest"
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
	ChunksEmbedded int         `json:"chunks_embedded"`
	Errors         []FileError `json:"errors"`
	Skipped        []FileError `json:"skipped"`
	DurationMS     int64       `json:"duration_ms"`
}

// Progress is emitted after every file.
type Progress struct {
	FilesDone  int    `json:"files_done"`
	FilesTotal int    `json:"files_total"`
	Chunks     int    `json:"chunks"`
	Current    string `json:"current"`
	Done       bool   `json:"done"`
}

// Ingest indexes folders and files. Unchanged files (same content hash) cost
// no embedding work. Each document is committed in one transaction, so a
// crash leaves every document either at its old or its new revision. A file
// that fails is reported and the rest continue; the error return is only for
// problems that stop the whole run (bad path, cancelled, index unusable).
func (e *Engine) Ingest(ctx context.Context, paths []string, progress func(Progress)) (Summary, error) {
	start := time.Now()
	sum := Summary{Errors: []FileError{}, Skipped: []FileError{}}
	if len(paths) == 0 {
		return sum, errors.New("nothing to ingest: give one or more folders or files")
	}
	if err := e.Ready(ctx); err != nil {
		return sum, err
	}
	e.ingestMu.Lock()
	defer e.ingestMu.Unlock()

	opts := e.ingestOptions()
	files, skipped, err := ingest.Scan(paths, opts)
	if err != nil {
		return sum, err
	}
	for _, s := range skipped {
		sum.Skipped = append(sum.Skipped, FileError{Path: s.Path, Error: s.Reason})
	}
	sum.FilesSeen = len(files) + len(skipped)
	sum.FilesSkipped = len(skipped)
	report := func(current string, done bool) {
		if progress != nil {
			progress(Progress{FilesDone: sum.FilesIndexed + sum.FilesUnchanged + sum.FilesFailed, FilesTotal: len(files),
				Chunks: sum.ChunksEmbedded, Current: current, Done: done})
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return sum, fmt.Errorf("ingest cancelled: %w", err)
		}
		report(f.Path, false)
		indexed, chunks, err := e.ingestFile(ctx, f, opts)
		switch {
		case err != nil && ctx.Err() != nil:
			return sum, fmt.Errorf("ingest cancelled: %w", ctx.Err())
		case err != nil:
			sum.FilesFailed++
			sum.Errors = append(sum.Errors, FileError{Path: f.Path, Error: err.Error()})
		case indexed:
			sum.FilesIndexed++
			sum.ChunksEmbedded += chunks
		default:
			sum.FilesUnchanged++
		}
	}
	sum.DurationMS = time.Since(start).Milliseconds()
	report("", true)
	return sum, nil
}

func (e *Engine) ingestFile(ctx context.Context, f ingest.File, opts ingest.Options) (indexed bool, chunks int, err error) {
	doc, err := ingest.Load(f, e.embedder, opts, e.clock.Now())
	if err != nil {
		return false, 0, err
	}
	rev, found, err := e.store.DocumentRev(ctx, doc.DocID)
	if err != nil {
		return false, 0, err
	}
	if found && rev == doc.Rev {
		return false, 0, nil
	}
	texts := make([]string, len(doc.Chunks))
	for i, c := range doc.Chunks {
		texts[i] = c.Text
	}
	vectors, err := e.embedder.EmbedPassages(ctx, texts)
	if err != nil {
		return false, 0, fmt.Errorf("embed %s: %w", f.Path, err)
	}
	if err := e.store.PutDocument(ctx, doc, vectors, e.EmbedModel()); err != nil {
		return false, 0, fmt.Errorf("store %s: %w", f.Path, err)
	}
	return true, len(doc.Chunks), nil
}
