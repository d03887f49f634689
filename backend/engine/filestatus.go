package engine

// The library screen's view of collections: counts, last indexed time,
// watch state, and every file of a collection with its state and, when it
// is not indexed, why. Built from the index, the queue, this session's
// failures and a fresh scan of the folders, so the CLI can show it too.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/store"
)

// File states on the library screen.
const (
	FileIndexed = "indexed"
	FilePending = "pending" // queued, or new since the last scan
	FileFailed  = "failed"  // the last attempt failed; Reason says why
	FileSkipped = "skipped" // not indexable (binary, too large, a broken link…); Reason says why
)

// CollectionInfo is a collection as the library screen shows it. The
// collection named "" holds the folders and documents indexed outside any
// collection.
type CollectionInfo struct {
	Collection
	LastIndexedAt *time.Time `json:"last_indexed_at"` // newest document's indexed time; null when none
	Pending       int        `json:"pending"`         // files queued for indexing
	Failed        int        `json:"failed"`          // files whose last attempt failed
	Watched       bool       `json:"watched"`         // the folder watch covers its folders
}

// CollectionOverview lists collections with their folders, counts, last
// indexed time and watch state.
func (e *Engine) CollectionOverview(ctx context.Context) ([]CollectionInfo, error) {
	cols, err := e.Collections(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := e.index().Documents(ctx)
	if err != nil {
		return nil, err
	}
	queue, err := e.index().QueueNext(ctx, 1<<30)
	if err != nil {
		return nil, err
	}
	failures := e.FileFailures()
	watched := map[string]bool{}
	for _, r := range e.WatchState(ctx).Roots {
		watched[r] = true
	}
	out := make([]CollectionInfo, 0, len(cols)+1)
	known := map[string]bool{}
	for _, c := range cols {
		known[c.Name] = true
		info := CollectionInfo{Collection: c, Watched: len(c.Paths) > 0}
		for _, p := range c.Paths {
			info.Watched = info.Watched && watched[p]
		}
		for _, it := range queue {
			if it.Op == store.OpIndex && inCollection(it.Path, it.Collection, c) {
				info.Pending++
			}
		}
		for p := range failures {
			if under(p, c.Paths) {
				info.Failed++
			}
		}
		out = append(out, info)
	}
	// Folders ingested outside any collection (e.g. by `footnote ingest`)
	// are tracked by the collection named ""; documents of no listed
	// collection (indexed before those folders were tracked) count there too.
	loose := CollectionInfo{Collection: store.Collection{Paths: []string{}}}
	for _, d := range docs {
		if !known[d.Collection] {
			loose.Documents++
			loose.Chunks += d.Chunks
		}
	}
	if i := slices.IndexFunc(out, func(c CollectionInfo) bool { return c.Name == "" }); i >= 0 {
		out[i].Documents += loose.Documents
		out[i].Chunks += loose.Chunks
	} else if loose.Documents > 0 {
		out = append(out, loose)
	}
	for i := range out {
		for _, d := range docs {
			if d.Collection == out[i].Name || (out[i].Name == "" && !known[d.Collection]) {
				if t := d.IndexedAt; out[i].LastIndexedAt == nil || t.After(*out[i].LastIndexedAt) {
					out[i].LastIndexedAt = &t
				}
			}
		}
	}
	return out, nil
}

// FileStatus is one file of a collection on the library screen.
type FileStatus struct {
	Path      string     `json:"path"`
	Status    string     `json:"status"` // indexed, pending, failed or skipped
	Reason    string     `json:"reason,omitempty"`
	DocID     string     `json:"doc_id,omitempty"` // set when indexed
	Title     string     `json:"title,omitempty"`
	Format    string     `json:"format,omitempty"`
	Chunks    int        `json:"chunks"`
	IndexedAt *time.Time `json:"indexed_at,omitempty"`
	// ContentCheck is set when the file's content looks like a chat or an
	// answer (evidence.go).
	ContentCheck *ContentCheck `json:"content_check,omitempty"`
	// OCRPages are the scanned pages whose text was recognised by OCR.
	OCRPages []int `json:"ocr_pages,omitempty"`
	// Charset is the legacy charset the file was decoded from ("" for UTF-8).
	Charset string `json:"charset,omitempty"`
	// SetAside: a failed file that ingest skips until it changes, because
	// reading it crashed Footnote or took too long; Retry tries it again.
	SetAside bool `json:"set_aside,omitempty"`
}

// ErrNoSuchCollection matches CollectionFiles' error for a collection that
// does not exist.
var ErrNoSuchCollection = errors.New("this collection no longer exists; it may have been removed")

// CollectionFiles lists every file of a collection with its state: indexed,
// pending, failed (with the reason) or skipped (with the reason), sorted by
// path. The folders are scanned now, so files added since the last run show
// as pending.
func (e *Engine) CollectionFiles(ctx context.Context, name string) ([]FileStatus, error) {
	cols, err := e.Collections(ctx)
	if err != nil {
		return nil, err
	}
	var col store.Collection
	known := map[string]bool{}
	for _, c := range cols {
		known[c.Name] = true
		if c.Name == name {
			col = c
		}
	}
	if name != "" && col.Name != name {
		return nil, ErrNoSuchCollection
	}
	docs, err := e.index().Documents(ctx)
	if err != nil {
		return nil, err
	}
	files := map[string]*FileStatus{}
	for _, d := range docs {
		if d.Collection == name || (name == "" && !known[d.Collection]) {
			t := d.IndexedAt
			files[d.Path] = &FileStatus{Path: d.Path, Status: FileIndexed, DocID: d.DocID, Title: d.Title,
				Format: d.Format, Chunks: d.Chunks, IndexedAt: &t, OCRPages: d.OCRPages, Charset: d.Charset}
		}
	}
	if err := e.markContentChecks(ctx, files); err != nil {
		return nil, err
	}
	if len(col.Paths) > 0 {
		if err := e.addScanned(ctx, col, files); err != nil {
			return nil, err
		}
	}
	out := make([]FileStatus, 0, len(files))
	for _, f := range files {
		out = append(out, *f)
	}
	slices.SortFunc(out, func(x, y FileStatus) int { return strings.Compare(x.Path, y.Path) })
	return out, nil
}

// addScanned merges what is on disk under the collection's folders, the
// queue and this session's failures into files.
func (e *Engine) addScanned(ctx context.Context, col store.Collection, files map[string]*FileStatus) error {
	var present []string
	for _, p := range col.Paths {
		if _, err := os.Stat(p); err == nil {
			present = append(present, p)
		}
	}
	// Scan options only bound the file size, which the engine leaves at
	// its default too, and say whether links leading out of a folder count.
	found, skipped, err := ingest.Scan(present, ingest.Options{FollowOutsideLinks: e.FollowOutsideLinks()})
	if err != nil {
		return err
	}
	for _, s := range skipped {
		files[s.Path] = &FileStatus{Path: s.Path, Status: FileSkipped, Reason: s.Reason}
	}
	for _, f := range found {
		if _, ok := files[f.Path]; !ok {
			files[f.Path] = &FileStatus{Path: f.Path, Status: FilePending, Format: f.Format, Reason: "not indexed yet; re-scan to index it"}
		}
	}
	queue, err := e.index().QueueNext(ctx, 1<<30)
	if err != nil {
		return err
	}
	for _, it := range queue {
		if it.Op != store.OpIndex || !inCollection(it.Path, it.Collection, col) {
			continue
		}
		f, ok := files[it.Path]
		if !ok {
			f = &FileStatus{Path: it.Path}
			files[it.Path] = f
		}
		f.Status, f.Reason = FilePending, "queued for indexing"
	}
	for p, fail := range e.FileFailures() {
		f, ok := files[p]
		if !ok || !under(p, col.Paths) || f.Status == FileSkipped {
			continue
		}
		// A document indexed after the failure is the newer outcome.
		if f.Status == FileIndexed && f.IndexedAt != nil && f.IndexedAt.After(fail.At) {
			continue
		}
		// The row already names the file; keep only what went wrong.
		f.Status, f.Reason, f.SetAside = FileFailed, strings.TrimPrefix(fail.Error, "load "+p+": "), fail.SetAside
		if f.DocID != "" {
			f.Reason += " (the previously indexed version is still searchable)"
		}
	}
	return nil
}

// inCollection reports whether a queued path belongs to the collection.
func inCollection(path, queuedFor string, c store.Collection) bool {
	if queuedFor != "" {
		return queuedFor == c.Name
	}
	return under(path, c.Paths)
}

// under reports whether path is one of roots or inside one of them.
func under(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
