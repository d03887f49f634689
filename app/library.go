package app

import (
	"context"
	"log"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/store"
)

// watchKey is the running-task key of the folder watch, so Shutdown stops
// it with the answers in flight.
const watchKey = "library:watch"

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
	return a.engine.AddToCollection(context.Background(), collection, []string{path}, a.progressEmitter())
}

// Collections lists collections with their folders and counts.
func (a *App) Collections() ([]store.Collection, error) {
	return a.engine.Collections(context.Background())
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
