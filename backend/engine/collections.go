package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/watch"
)

// library is the engine's live-library state: the folder watcher and the
// signal that wakes the background queue runner.
type library struct {
	mu       sync.Mutex
	watcher  *watch.Watcher
	roots    map[string]string // watched root -> collection
	kick     chan struct{}
	running  bool
	lastErr  string
	debounce time.Duration

	swapMu          sync.RWMutex // write-held while an index rebuild swaps files
	rebuild         rebuildState // guarded by mu
	fill            fillState    // vectors added to chunks indexed without a model; guarded by mu
	rebuildProgress func(Progress)

	failures map[string]FileFailure // path -> last failure this session; guarded by mu

}

// FileFailure is a file the latest attempt could not index, and why.
type FileFailure struct {
	Path  string    `json:"path"`
	Error string    `json:"error"`
	At    time.Time `json:"at"`
	// SetAside: ingest skips the file until it changes or Retry.
	SetAside bool `json:"set_aside,omitempty"`
}

// noteFailures remembers the files a run could not index, so the library
// screen can say why a file is missing. A run that rescanned roots first
// forgets the old failures under them: those files were tried again.
func (e *Engine) noteFailures(roots []string, sum Summary) {
	now := e.clock.Now()
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	if e.lib.failures == nil {
		e.lib.failures = map[string]FileFailure{}
	}
	for p := range e.lib.failures {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
				delete(e.lib.failures, p)
				break
			}
		}
	}
	for _, fe := range sum.Errors {
		e.lib.failures[fe.Path] = FileFailure{Path: fe.Path, Error: fe.Error, At: now}
	}
}

// FileFailures lists the files that failed to index in this session and
// were not indexed since, and the files skipped for crashing the reader,
// by path.
func (e *Engine) FileFailures() map[string]FileFailure {
	out := e.readerCrashFailures() // recorded, so they outlive the session
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	for p, f := range e.lib.failures {
		f.SetAside = out[p].SetAside
		out[p] = f
	}
	return out
}

// forgetFailure drops this session's failure of path (it is tried again).
func (e *Engine) forgetFailure(path string) {
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	delete(e.lib.failures, path)
}

// collectionRoots lists the folders and files of the named collection
// (every collection when name is "").
func (e *Engine) collectionRoots(ctx context.Context, name string) []string {
	cols, err := e.index().Collections(ctx)
	if err != nil {
		return nil
	}
	var roots []string
	for _, c := range cols {
		if name == "" || c.Name == name {
			roots = append(roots, c.Paths...)
		}
	}
	return roots
}

// WatchState describes the folder watch for the UI.
type WatchState struct {
	Watching bool     `json:"watching"`
	Roots    []string `json:"roots"`
	Pending  int      `json:"pending"` // queued files not yet indexed
	Error    string   `json:"error"`   // last problem, "" when none
}

// CollectionNamePattern explains which names a collection may have.
const CollectionNamePattern = "1–64 characters, no slashes or control characters"

func validCollectionName(name string) error {
	if name == "" || len(name) > 64 || strings.ContainsAny(name, `/\`) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("collection name %q is not valid: use %s", name, CollectionNamePattern)
	}
	return nil
}

// AddToCollection adds folders and files to the named collection (creating
// it) and indexes them. Later rescans and the folder watch cover them.
func (e *Engine) AddToCollection(ctx context.Context, name string, paths []string, progress func(Progress)) (Summary, error) {
	if err := validCollectionName(name); err != nil {
		return newSummary(), err
	}
	if len(paths) == 0 {
		return newSummary(), errors.New("nothing to add: give one or more folders or files")
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return newSummary(), fmt.Errorf("add %s: %w", p, err)
		}
		if _, err := os.Stat(a); err != nil {
			return newSummary(), fmt.Errorf("%s cannot be added: %w; check the path and try again", a, err)
		}
		abs[i] = filepath.Clean(a)
	}
	sum, err := e.runLocked(ctx, name, progress, func(ctx context.Context, st *store.Store, sum *Summary) error {
		for _, p := range abs {
			if err := e.dropImplicitRootsUnder(ctx, st, p); err != nil {
				return err
			}
			if err := st.AddCollectionPath(ctx, name, p); err != nil {
				return err
			}
			e.watchRoot(p, name)
		}
		return e.enqueueScan(ctx, st, name, abs, true, sum)
	})
	e.noteFailures(abs, sum)
	return sum, err
}

// Collections lists the collections with their paths and counts.
func (e *Engine) Collections(ctx context.Context) ([]store.Collection, error) {
	if err := e.Ready(ctx); err != nil {
		return nil, err
	}
	return e.index().Collections(ctx)
}

// Rescan re-checks the named collection (every collection and ingested
// folder when name is "") against the disk: new and changed files are
// indexed, deleted ones removed, unchanged ones cost a hash and nothing else.
func (e *Engine) Rescan(ctx context.Context, name string, progress func(Progress)) (Summary, error) {
	sum, err := e.runLocked(ctx, name, progress, func(ctx context.Context, st *store.Store, sum *Summary) error {
		return e.enqueueRescan(ctx, st, name, sum)
	})
	if err == nil {
		e.noteFailures(e.collectionRoots(ctx, name), sum)
	} else {
		e.noteFailures(nil, sum)
	}
	return sum, err
}

func (e *Engine) enqueueRescan(ctx context.Context, st *store.Store, name string, sum *Summary) error {
	cols, err := st.Collections(ctx)
	if err != nil {
		return err
	}
	matched := false
	var roots []string
	for _, c := range cols {
		roots = append(roots, c.Paths...)
		if name != "" && c.Name != name {
			continue
		}
		matched = true
		var present []string
		for _, p := range c.Paths {
			if _, err := os.Stat(p); err == nil {
				present = append(present, p)
				continue
			}
			// The whole root is gone (unmounted drive, deleted folder):
			// its documents leave the index.
			if err := st.Enqueue(ctx, []store.QueueItem{{Path: p, Collection: c.Name, Op: store.OpDelete}}); err != nil {
				return err
			}
		}
		if len(present) > 0 {
			if err := e.enqueueScan(ctx, st, c.Name, present, true, sum); err != nil {
				return err
			}
		}
	}
	if name != "" && !matched {
		return fmt.Errorf("there is no collection named %q; list them with `footnote collection list`", name)
	}
	if name == "" {
		// Documents indexed before ingested folders were tracked are
		// checked one by one, so deleted ones leave the index too.
		return e.enqueueUntracked(ctx, st, st, roots, sum)
	}
	return nil
}

// ResumeQueue finishes work left in the queue by an earlier run.
func (e *Engine) ResumeQueue(ctx context.Context, progress func(Progress)) (Summary, error) {
	sum, err := e.runLocked(ctx, "", progress, nil)
	e.noteFailures(nil, sum)
	return sum, err
}

// RemoveCollection removes the collection and its documents from the index
// (the files are not touched).
func (e *Engine) RemoveCollection(ctx context.Context, name string) error {
	if err := e.Ready(ctx); err != nil {
		return err
	}
	e.ingestMu.Lock()
	defer e.ingestMu.Unlock()
	st := e.store
	if _, err := st.Collection(ctx, name); err != nil {
		return fmt.Errorf("there is no collection named %q; list them with `footnote collection list`", name)
	}
	docs, err := st.DocumentsInCollection(ctx, name)
	if err != nil {
		return err
	}
	// Documents go first: if this is interrupted, the collection is still
	// listed and removing it again finishes the job.
	for _, d := range docs {
		if err := st.DeleteDocument(ctx, d.DocID); err != nil {
			return err
		}
	}
	if err := st.RemoveCollection(ctx, name); err != nil {
		return err
	}
	e.lib.mu.Lock()
	for root, c := range e.lib.roots {
		if c == name {
			delete(e.lib.roots, root) // the OS watch stays until restart; its events now map to no collection
		}
	}
	e.lib.mu.Unlock()
	return nil
}

// Watch resumes the queue, rescans every collection and ingested folder
// (catching changes made while the app was closed), then watches their
// folders and indexes changes as they happen, until ctx ends. Progress is reported for
// every batch of work.
func (e *Engine) Watch(ctx context.Context, progress func(Progress)) error {
	if err := e.Ready(ctx); err != nil {
		return err
	}
	e.lib.mu.Lock()
	if e.lib.running {
		e.lib.mu.Unlock()
		return errors.New("the folder watch is already running")
	}
	debounce := e.lib.debounce
	e.lib.running = true
	e.lib.kick = make(chan struct{}, 1)
	e.lib.roots = map[string]string{}
	kick := e.lib.kick
	e.lib.mu.Unlock()
	defer func() {
		e.lib.mu.Lock()
		if e.lib.watcher != nil {
			e.lib.watcher.Close()
			e.lib.watcher = nil
		}
		e.lib.running = false
		e.lib.mu.Unlock()
	}()

	w, err := watch.New(debounce, func(paths []string) { e.onChanges(ctx, paths) })
	if err != nil {
		return err
	}
	e.lib.mu.Lock()
	e.lib.watcher = w
	e.lib.mu.Unlock()
	cols, err := e.index().Collections(ctx)
	if err != nil {
		return err
	}
	for _, c := range cols {
		for _, p := range c.Paths {
			e.watchRoot(p, c.Name)
		}
	}
	if _, err := e.Rescan(ctx, "", progress); err != nil && ctx.Err() == nil {
		e.setWatchError(err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-kick:
			if _, err := e.ResumeQueue(ctx, progress); err != nil && ctx.Err() == nil {
				e.setWatchError(err)
			}
		}
	}
}

// watchRoot adds a collection root to a running watch.
func (e *Engine) watchRoot(path, collection string) {
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	if e.lib.watcher == nil {
		return
	}
	e.lib.roots[path] = collection
	if err := e.lib.watcher.Add(path); err != nil {
		e.lib.lastErr = err.Error()
	}
}

func (e *Engine) setWatchError(err error) {
	e.lib.mu.Lock()
	e.lib.lastErr = err.Error()
	e.lib.mu.Unlock()
}

// unwatchRoot stops mapping changes under path to a collection (the OS
// watch stays until restart; a covering root still maps them).
func (e *Engine) unwatchRoot(path string) {
	e.lib.mu.Lock()
	delete(e.lib.roots, path)
	e.lib.mu.Unlock()
}

// watchedRootOf maps a changed path to the closest watched root and its
// collection.
func (e *Engine) watchedRootOf(path string) (root, collection string, ok bool) {
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	for r, c := range e.lib.roots {
		if underRoot(path, r) && len(r) > len(root) {
			root, collection, ok = r, c, true
		}
	}
	return root, collection, ok
}

// onChanges queues the watcher's changed paths and wakes the runner. Each
// path is scanned under its root's rules, as a rescan would scan it.
func (e *Engine) onChanges(ctx context.Context, paths []string) {
	var items []store.QueueItem
	opts := e.ingestOptions()
	for _, p := range paths {
		root, col, ok := e.watchedRootOf(p)
		if !ok {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			items = append(items, store.QueueItem{Path: p, Collection: col, Op: store.OpDelete})
			continue
		}
		// A folder (new or moved in) is scanned whole; a single file is
		// checked the same way, so unsupported files are ignored here.
		files, _, err := ingest.ScanWithin(root, []string{p}, opts)
		if err != nil {
			continue // vanished meanwhile; its own remove event follows
		}
		if len(files) == 0 {
			// Not indexable (any more), e.g. replaced by a link leading out
			// of the folder: whatever was indexed at p leaves the index.
			items = append(items, store.QueueItem{Path: p, Collection: col, Op: store.OpDelete})
			continue
		}
		for _, f := range files {
			items = append(items, store.QueueItem{Path: f.Path, Collection: col, Op: store.OpIndex})
		}
	}
	if len(items) == 0 {
		return
	}
	if err := e.index().Enqueue(ctx, items); err != nil {
		e.setWatchError(err)
		return
	}
	e.lib.mu.Lock()
	kick := e.lib.kick
	e.lib.mu.Unlock()
	select {
	case kick <- struct{}{}:
	default:
	}
}

// WatchState reports whether the folder watch runs, what it covers and how
// much work is queued.
func (e *Engine) WatchState(ctx context.Context) WatchState {
	e.lib.mu.Lock()
	ws := WatchState{Watching: e.lib.running, Error: e.lib.lastErr, Roots: []string{}}
	for r := range e.lib.roots {
		ws.Roots = append(ws.Roots, r)
	}
	slices.Sort(ws.Roots)
	e.lib.mu.Unlock()
	if done, err := e.Loaded(); done && err == nil {
		ws.Pending, _ = e.index().QueueLen(ctx)
	}
	return ws
}

// WithWatchDebounce sets the folder watch's quiet period (tests use a short one).
func WithWatchDebounce(d time.Duration) Option { return func(en *Engine) { en.lib.debounce = d } }
