package engine

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

// When the embedding model or the chunking settings change, the settings
// identity (settings_hash) changes and every document must be indexed again.
// The new index is built in a second file next to the live one while the
// old index keeps answering; when it is complete the files are swapped
// (a rename), so search is never empty. An interrupted rebuild resumes from
// the second file at the next start.

// rebuildState is held in library.
type rebuildState struct {
	active      bool
	done        chan struct{} // closed when the rebuild ends
	cancel      context.CancelFunc
	lexicalOnly bool // the live index's vectors come from another model
	err         error
}

func (e *Engine) rebuildPath() string { return e.cfg.DBPath() + ".rebuild" }

// metaSettingsHash is the meta key of the settings identity. Indexes
// written before it had its own name kept it under "index_hash", which is
// read in its place.
const metaSettingsHash = "settings_hash"

// storedSettingsHash returns the settings identity an index was built with.
func storedSettingsHash(ctx context.Context, st *store.Store) (string, bool, error) {
	h, found, err := st.Meta(ctx, metaSettingsHash)
	if err != nil || found {
		return h, found, err
	}
	return st.Meta(ctx, "index_hash")
}

// reconcileIndexHash compares the live index's settings identity with the
// wanted one; on a change it starts a background rebuild and keeps the old
// index.
func (e *Engine) reconcileIndexHash(ctx context.Context, vectorsStale bool) error {
	old, found, err := storedSettingsHash(ctx, e.store)
	if err != nil {
		return err
	}
	if found && old == e.hash && !vectorsStale {
		if _, named, _ := e.store.Meta(ctx, metaSettingsHash); !named {
			return e.store.SetMeta(ctx, metaSettingsHash, e.hash) // an index from before the name
		}
		os.Remove(e.rebuildPath()) // a rebuild for settings no longer wanted
		return nil                 // opening an unchanged index writes nothing
	}
	if found && !vectorsStale && e.onlyModelDiffers(ctx, old) {
		// Built without a model, or opened without one: the chunks stay.
		// Without a model nothing changes; with one, the chunks lacking a
		// vector get one in the background (startFill).
		if e.absentModel() != nil {
			return nil
		}
		for k, v := range map[string]string{metaSettingsHash: e.hash, "embed_model": e.EmbedModel()} {
			if err := e.store.SetMeta(ctx, k, v); err != nil {
				return err
			}
		}
		return nil
	}
	docs, _, err := e.store.Counts(ctx)
	if err != nil {
		return err
	}
	if docs == 0 {
		// Nothing to keep serving: reset in place.
		if found || vectorsStale {
			if err := e.store.Reset(ctx, e.embedder.Info().Dim); err != nil {
				return fmt.Errorf("reset index after a model or chunking change: %w", err)
			}
		}
		for k, v := range map[string]string{metaSettingsHash: e.hash, "analyzer": store.Analyzer, "embed_model": e.EmbedModel()} {
			if err := e.store.SetMeta(ctx, k, v); err != nil {
				return err
			}
		}
		return nil
	}
	oldModel := ""
	if m, ok, _ := e.store.Meta(ctx, "embed_model"); ok {
		oldModel = m
	}
	rctx, cancel := context.WithCancel(context.Background())
	e.lib.mu.Lock()
	e.lib.rebuild = rebuildState{
		active: true, done: make(chan struct{}), cancel: cancel,
		// Vectors from another model (or of another length) cannot be
		// compared with this model's queries: serve lexical results until
		// the rebuilt index is in place.
		lexicalOnly: vectorsStale || oldModel != e.EmbedModel(),
	}
	done := e.lib.rebuild.done
	e.lib.mu.Unlock()
	go func() {
		err := e.rebuild(rctx)
		if err != nil && rctx.Err() == nil {
			log.Printf("rebuild index: %v", err)
		}
		e.lib.mu.Lock()
		e.lib.rebuild.active = err != nil && e.lib.rebuild.active
		e.lib.rebuild.err = err
		e.lib.mu.Unlock()
		close(done)
	}()
	return nil
}

// rebuild indexes every document of the live index into the second file,
// then swaps the files. It holds the ingest lock throughout, so other
// ingest waits and then lands in the new index.
func (e *Engine) rebuild(ctx context.Context) error {
	e.ingestMu.Lock()
	defer e.ingestMu.Unlock()
	live := e.store
	dim := e.embedder.Info().Dim
	next, err := store.Open(e.rebuildPath(), store.Options{Dim: dim, ResetOnDimensionChange: true})
	if err != nil {
		return err
	}
	closeNext := true
	defer func() {
		if closeNext {
			next.Close()
		}
	}()
	if h, found, err := storedSettingsHash(ctx, next); err != nil {
		return err
	} else if found && h != e.hash {
		if err := next.Reset(ctx, dim); err != nil { // a leftover for other settings
			return err
		}
	}
	for k, v := range map[string]string{metaSettingsHash: e.hash, "analyzer": store.Analyzer, "embed_model": e.EmbedModel()} {
		if err := next.SetMeta(ctx, k, v); err != nil {
			return err
		}
	}
	// Plan: rescan every tracked root into the new index rather than copy
	// the stored paths, so files deleted, replaced by links leading out of
	// their folder or no longer accepted since they were indexed stay out.
	// Documents no scanned root holds (indexed before ingested folders were
	// tracked, or under a root that cannot be read now) are checked one by
	// one. Work queued in the live index carries over. Resuming an
	// interrupted rebuild plans again: what is already in the new index
	// costs a hash, and what was deleted since leaves it.
	cols, err := live.Collections(ctx)
	if err != nil {
		return err
	}
	for _, c := range cols {
		for _, p := range c.Paths {
			if err := next.AddCollectionPath(ctx, c.Name, p); err != nil {
				return err
			}
		}
	}
	sum := newSummary()
	var scanned []string
	for _, c := range cols {
		for _, p := range c.Paths {
			if _, err := os.Stat(p); err != nil {
				continue // gone: its documents are re-checked one by one below, and drop out
			}
			if err := e.enqueueScan(ctx, next, c.Name, []string{p}, true, &sum); err != nil {
				if ctx.Err() != nil {
					return err
				}
				log.Printf("rebuild index: %v; its documents are checked one by one", err)
				continue
			}
			scanned = append(scanned, p)
		}
	}
	if err := e.enqueueUntracked(ctx, live, next, scanned, &sum); err != nil {
		return err
	}
	if err := next.CopyRowsFrom(ctx, live.Path(), "ingest_queue", "reader_crashes", store.EvidenceOverridesTable); err != nil {
		return err
	}
	if err := e.drain(ctx, next, "", e.lib.rebuildProgress, &sum); err != nil {
		return err
	}
	return e.swapIndex(ctx, live, next, &closeNext)
}

// swapIndex makes next the live index. Queries wait on swapMu for the few
// milliseconds the files take to close, rename and reopen.
func (e *Engine) swapIndex(ctx context.Context, live, next *store.Store, closeNext *bool) error {
	e.lib.swapMu.Lock()
	defer e.lib.swapMu.Unlock()
	// Answers given, work queued and files found to crash the reader while
	// the rebuild ran.
	if err := next.CopyRowsFrom(ctx, live.Path(), "answers", "ingest_queue", "reader_crashes", "threads", "thread_turns"); err != nil {
		return err
	}
	*closeNext = false
	// Both must be closed (WAL checkpointed and removed) before the rename,
	// or the new file would meet the old file's -wal.
	errs := errors.Join(next.Close(), live.Close())
	if errs == nil {
		errs = os.Rename(e.rebuildPath(), e.cfg.DBPath())
	}
	st, err := store.Open(e.cfg.DBPath(), store.Options{Dim: e.embedder.Info().Dim})
	if err != nil {
		return errors.Join(errs, err)
	}
	e.store = st
	e.lib.mu.Lock()
	e.lib.rebuild.active = false
	e.lib.rebuild.lexicalOnly = false
	e.lib.mu.Unlock()
	return errs
}

// searchMode is the retrieval mode the live index supports right now for a
// search that wants want ("" = the engine's retrieval mode).
func (e *Engine) searchMode(want string) string {
	if want == "" {
		want = e.RetrievalMode()
	}
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	if e.lib.rebuild.active && e.lib.rebuild.lexicalOnly {
		return search.ModeLexical
	}
	if e.absentModel() != nil || e.lib.fill.active {
		return search.ModeLexical // no model, or vectors still being added (lexicalonly.go)
	}
	return want
}

// RebuildState reports an index rebuild: whether one runs, and the channel
// that closes when it ends (nil when none started).
func (e *Engine) RebuildState() (active bool, done <-chan struct{}) {
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	return e.lib.rebuild.active, e.lib.rebuild.done
}

// WithRebuildProgress reports the progress of an index rebuild.
func WithRebuildProgress(fn func(Progress)) Option {
	return func(en *Engine) { en.lib.rebuildProgress = fn }
}

// stopRebuild cancels a rebuild in flight and waits for it; it resumes at
// the next start.
func (e *Engine) stopRebuild() {
	e.lib.mu.Lock()
	r := e.lib.rebuild
	e.lib.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
		<-r.done
	}
}
