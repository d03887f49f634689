// Package watch reports file changes under folders and single files while
// the app runs. It owns the operating-system watch (fsnotify), recursion into
// new subfolders, and debouncing: bursts of events (an editor's save, a copied
// folder) arrive as one batch of changed paths after a quiet period. It does
// not interpret changes; the caller re-checks each path.
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is the quiet period after the last event before a batch is
// reported.
const DefaultDebounce = 500 * time.Millisecond

// maxDelayFactor bounds how long steady activity can postpone a batch, in
// multiples of the debounce period.
const maxDelayFactor = 10

// Watcher watches roots and calls onChange with changed paths.
type Watcher struct {
	debounce time.Duration
	onChange func(paths []string)
	fsw      *fsnotify.Watcher

	mu        sync.Mutex
	dirRoots  map[string]bool // watched recursively
	fileRoots map[string]bool // single files (their folder is watched)
	pending   map[string]bool
	first     time.Time // when the oldest pending event arrived
	timer     *time.Timer
	closed    bool

	done chan struct{}
}

// New starts a watcher with no roots. onChange runs on the watcher's own
// goroutine, one batch at a time, with paths sorted; a path may be a file or
// folder that was created, written, removed or renamed (away or into place).
// When the system drops events, the batch holds the roots themselves so the
// caller re-checks everything.
func New(debounce time.Duration, onChange func(paths []string)) (*Watcher, error) {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("start watching folders: %w", err)
	}
	w := &Watcher{
		debounce: debounce, onChange: onChange, fsw: fsw,
		dirRoots: map[string]bool{}, fileRoots: map[string]bool{}, pending: map[string]bool{},
		done: make(chan struct{}),
	}
	go w.loop()
	return w, nil
}

// Add watches root: a folder recursively (hidden subfolders excluded), or a
// single file. Adding a root twice is harmless.
func (w *Watcher) Add(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("watch %s: %w", abs, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("the watcher is closed")
	}
	if !info.IsDir() {
		w.fileRoots[abs] = true
		if err := w.fsw.Add(filepath.Dir(abs)); err != nil {
			return fmt.Errorf("watch %s: %w", abs, err)
		}
		return nil
	}
	w.dirRoots[abs] = true
	return w.addTree(abs)
}

// addTree watches dir and its non-hidden subfolders. Folders that vanish
// or cannot be read while walking are left out rather than failing the
// whole tree. Callers hold w.mu.
func (w *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return fmt.Errorf("watch %s: %w", dir, err)
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := w.fsw.Add(path); err != nil {
			if path == dir {
				return fmt.Errorf("watch %s: %w", dir, err)
			}
			return nil
		}
		return nil
	})
}

// Close stops watching; no onChange call starts after Close returns.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	err := w.fsw.Close()
	<-w.done
	return err
}

func (w *Watcher) loop() {
	defer close(w.done)
	flush := make(chan struct{}, 1)
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handle(ev, flush)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			// Typically an event queue overflow: changes were lost, so ask
			// the caller to re-check every root.
			_ = err
			w.mu.Lock()
			for r := range w.dirRoots {
				w.pending[r] = true
			}
			for r := range w.fileRoots {
				w.pending[r] = true
			}
			w.schedule(flush)
			w.mu.Unlock()
		case <-flush:
			w.mu.Lock()
			if w.closed || len(w.pending) == 0 {
				w.mu.Unlock()
				continue
			}
			paths := make([]string, 0, len(w.pending))
			for p := range w.pending {
				paths = append(paths, p)
			}
			clear(w.pending)
			w.first = time.Time{}
			w.mu.Unlock()
			slices.Sort(paths)
			w.onChange(paths)
		}
	}
}

func (w *Watcher) handle(ev fsnotify.Event, flush chan struct{}) {
	if ev.Op == fsnotify.Chmod {
		return // permission or timestamp changes do not change content
	}
	path := filepath.Clean(ev.Name)
	if strings.HasPrefix(filepath.Base(path), ".") {
		return // editors' swap and temporary files
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || !w.relevant(path) {
		return
	}
	if ev.Has(fsnotify.Create) {
		// A new subfolder (created or moved in) must be watched too; its
		// files may already exist, so the folder itself is reported.
		if info, err := os.Stat(path); err == nil && info.IsDir() && w.underDirRoot(path) {
			_ = w.addTree(path)
		}
	}
	w.pending[path] = true
	w.schedule(flush)
}

// schedule (re)arms the debounce timer; callers hold w.mu.
func (w *Watcher) schedule(flush chan struct{}) {
	now := time.Now()
	if w.first.IsZero() {
		w.first = now
	}
	delay := w.debounce
	if wait := w.first.Add(maxDelayFactor * w.debounce).Sub(now); wait < delay {
		delay = max(wait, 0)
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = time.AfterFunc(delay, func() {
		select {
		case flush <- struct{}{}:
		default:
		}
	})
}

func (w *Watcher) relevant(path string) bool {
	return w.fileRoots[path] || w.underDirRoot(path)
}

func (w *Watcher) underDirRoot(path string) bool {
	for root := range w.dirRoots {
		if path == root || strings.HasPrefix(path, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
