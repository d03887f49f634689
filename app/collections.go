package app

import (
	"context"
	"errors"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
)

// watchKey is the running-task key of the folder watch, so Shutdown stops
// it with the answers in flight.
const watchKey = "library:watch"

// rescanKey is the running-task key of a rescan the app starts by itself.
const rescanKey = "library:rescan"

// The library screen's shapes; the engine builds them.
type (
	CollectionInfo = engine.CollectionInfo
	FileStatus     = engine.FileStatus
)

// File states on the library screen.
const (
	FileIndexed = engine.FileIndexed
	FilePending = engine.FilePending
	FileFailed  = engine.FileFailed
	FileSkipped = engine.FileSkipped
)

// progressEvery limits ingest:progress events to a few per second; the
// final event of a run is always sent.
const progressEvery = 100 * time.Millisecond

// progressEmitter forwards ingest progress as throttled events.
func (a *App) progressEmitter() func(engine.Progress) {
	var mu sync.Mutex
	var last time.Time
	return func(p engine.Progress) {
		mu.Lock()
		send := p.Done || p.FilesDone == p.FilesTotal || time.Since(last) >= progressEvery
		if send {
			last = time.Now()
		}
		mu.Unlock()
		if send {
			a.emit(EventIngestProgress, p)
		}
	}
}

// startLibrary resumes the persisted ingest queue, rescans every collection
// and watches their folders until the app shuts down.
func (a *App) startLibrary() {
	a.goCancellable(watchKey, func(ctx context.Context) {
		if err := a.engine.Ready(ctx); err != nil {
			return // Status shows the load error; DownloadModel restarts the app's work
		}
		if err := a.engine.Watch(ctx, a.progressEmitter()); err != nil && ctx.Err() == nil {
			log.Printf("folder watch: %v", err)
		}
	})
}

// AddFolder adds a folder or file to the named collection (created if new)
// and indexes it, emitting ingest:progress; the watch covers it from then on.
func (a *App) AddFolder(collection, path string) (engine.Summary, error) {
	return a.AddPaths(collection, []string{path})
}

// AddPaths adds folders and files to the named collection (created if new)
// and indexes them, emitting ingest:progress.
func (a *App) AddPaths(collection string, paths []string) (engine.Summary, error) {
	clean := make([]string, 0, len(paths))
	for _, p := range paths {
		if p = strings.TrimSpace(p); p != "" {
			clean = append(clean, p)
		}
	}
	return a.engine.AddToCollection(context.Background(), strings.TrimSpace(collection), clean, a.progressEmitter())
}

// PickFiles opens the native dialog for choosing documents; none when cancelled.
func (a *App) PickFiles() ([]string, error) {
	if a.dialogs == nil || a.ctx == nil {
		return nil, errors.New("the file dialog is not available; type the path instead")
	}
	return a.dialogs.PickFiles(a.ctx, "Choose documents to index")
}

// Collections lists collections with their folders, counts, last indexed
// time and watch state.
func (a *App) Collections() ([]engine.CollectionInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return a.engine.CollectionOverview(ctx)
}

// CollectionFiles lists every file of a collection with its state: indexed,
// pending, failed (with the reason) or skipped (with the reason), sorted by
// path. The folders are scanned now, so files added since the last run show
// as pending.
func (a *App) CollectionFiles(name string) ([]engine.FileStatus, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return a.engine.CollectionFiles(ctx, name)
}

// Rescan re-checks a collection ("" for all) and indexes what changed.
func (a *App) Rescan(name string) (engine.Summary, error) {
	return a.engine.Rescan(context.Background(), name, a.progressEmitter())
}

// RemoveCollection removes a collection and its documents from the index.
func (a *App) RemoveCollection(name string) error {
	return a.engine.RemoveCollection(context.Background(), name)
}

// WatchState reports the folder watch and the queued work.
func (a *App) WatchState() engine.WatchState {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return a.engine.WatchState(ctx)
}
