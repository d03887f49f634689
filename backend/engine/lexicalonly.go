package engine

// Lexical-only mode. Without a loadable embedding model (not downloaded
// yet, a broken folder) the engine still opens: files are parsed, chunked
// (embed.Absent counts tokens) and indexed for lexical search, questions
// are answered from lexical retrieval, and doctor and the app say what is
// missing. When a model arrives — downloaded from the app (Reload), or
// present at the next start — the chunks stored without a vector are
// embedded from the index's own text in the background (fillVectors),
// without reading a file again, and hybrid retrieval switches on when the
// fill ends. A fill cut short (Close, a crash) resumes at the next start:
// what is missing is whatever has no vector.

import (
	"context"
	"fmt"
	"log"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/store"
)

// noModelName is the embedding model an index built without one records.
var noModelName = (&embed.Absent{}).Info().Name()

// fillBatch is how many stored chunks one model call embeds during a fill.
const fillBatch = 64

// fillState is a running vector fill; guarded by library.mu.
type fillState struct {
	active      bool
	done, total int
	finished    chan struct{} // closed when the fill ends
}

// ModelMissing is why no embedding model is loaded while the engine runs
// lexical-only; nil when a model is loaded (or before loading).
func (e *Engine) ModelMissing() error {
	if a := e.absentModel(); a != nil {
		return a.Cause()
	}
	return nil
}

// absentModel is the stand-in embedder when no model is loaded, else nil.
// It reads no lock, so it can be asked under swapMu.
func (e *Engine) absentModel() *embed.Absent { return e.absent.Load() }

// loadEmbedder loads the configured model folder, or stands in for it.
func (e *Engine) loadEmbedder(ctx context.Context) (embed.Embedder, error) {
	emb, err := embed.Load(ctx, e.cfg.Settings.EmbedModelDir)
	if err == nil {
		return rememberQueries(emb), nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	return embed.NewAbsent(e.cfg.Settings.EmbedModelDir, err), nil
}

// openOptions are the store options for the embedder: an index opened
// without a model keeps whatever vectors it has (and gets the default
// model's length when it has none yet).
func (e *Engine) openOptions() store.Options {
	if e.absentModel() != nil {
		if st, err := store.Open(e.cfg.DBPath(), store.Options{}); err == nil {
			dim := st.Dim()
			st.Close()
			return store.Options{Dim: dim}
		}
	}
	return store.Options{Dim: e.embedder.Info().Dim}
}

// onlyModelDiffers reports whether an index built with settings hash old
// differs from the live settings in its embedding model alone, and one of
// the two models is none: then its chunks stay, and only vectors are
// missing or unused.
func (e *Engine) onlyModelDiffers(ctx context.Context, old string) bool {
	oldModel, ok, _ := e.store.Meta(ctx, "embed_model")
	opts := e.ingestOptions()
	if oldModel == noModelName {
		// Chunked for the default model's limit; a model with a smaller
		// one truncates the longer chunks when it embeds them.
		opts = e.ingestOptionsFor((&embed.Absent{}).Info().MaxTokens)
	}
	if !ok || old != SettingsHash(oldModel, store.Analyzer, opts.Fingerprint(), store.IndexLayoutVersion) {
		return false
	}
	return e.absentModel() != nil || oldModel == noModelName
}

// attachModel loads the model folder while the engine runs lexical-only
// and switches to it: the index is reopened for the model's vector length
// and the stored chunks are embedded in the background.
func (e *Engine) attachModel(ctx context.Context) error {
	emb, err := embed.Load(ctx, e.cfg.Settings.EmbedModelDir)
	if err != nil {
		return err
	}
	e.ingestMu.Lock() // no file lands in the index while it is reopened
	defer e.ingestMu.Unlock()
	e.lib.swapMu.Lock()
	err = func() error {
		defer e.lib.swapMu.Unlock()
		old := e.store
		if err := old.Close(); err != nil {
			return err
		}
		st, err := store.Open(e.cfg.DBPath(), store.Options{Dim: emb.Info().Dim})
		if err != nil {
			return store.ExplainStorage(e.cfg.Home, err)
		}
		e.store, e.embedder = st, rememberQueries(emb)
		e.absent.Store(nil)
		e.hash = SettingsHash(emb.Info().Name(), store.Analyzer, e.ingestOptions().Fingerprint(), store.IndexLayoutVersion)
		return nil
	}()
	if err != nil {
		emb.Close()
		return fmt.Errorf("switch to the embedding model: %w", err)
	}
	if err := e.reconcileIndexHash(ctx, false); err != nil {
		return err
	}
	e.startFill()
	return nil
}

// startFill embeds the chunks stored without a vector, in the background,
// when a model is loaded and there are any.
func (e *Engine) startFill() {
	if e.absentModel() != nil {
		return
	}
	st := e.index()
	if st == nil {
		return
	}
	pending, err := st.CountPendingVectors(context.Background())
	if err != nil || pending == 0 {
		return
	}
	ctx, done, err := e.track(context.Background())
	if err != nil {
		return
	}
	e.lib.mu.Lock()
	if e.lib.fill.active {
		e.lib.mu.Unlock()
		done()
		return
	}
	finished := make(chan struct{})
	e.lib.fill = fillState{active: true, total: pending, finished: finished}
	e.lib.mu.Unlock()
	go func() {
		defer done()
		defer close(finished)
		err := e.fillVectors(ctx)
		if err != nil && ctx.Err() == nil {
			log.Printf("add vectors to chunks indexed without a model: %v", err)
		}
		e.lib.mu.Lock()
		e.lib.fill.active = false
		e.lib.mu.Unlock()
	}()
}

// fillVectors embeds stored chunks that have no vector, a batch at a time,
// until none is left or ctx ends.
func (e *Engine) fillVectors(ctx context.Context) error {
	for ctx.Err() == nil {
		e.lib.swapMu.RLock()
		st, emb, model := e.store, e.embedder, e.EmbedModel()
		e.lib.swapMu.RUnlock()
		batch, err := st.PendingVectors(ctx, fillBatch)
		if err != nil || len(batch) == 0 {
			return err
		}
		texts := make([]string, len(batch))
		for i, c := range batch {
			texts[i] = corpus.IndexText(c.Context, c.Text)
		}
		vecs, err := emb.EmbedPassages(ctx, texts)
		if err != nil {
			return err
		}
		put := make(map[string][]float32, len(batch))
		for i, c := range batch {
			put[c.SnippetID] = vecs[i]
		}
		if err := st.PutVectors(ctx, put, model); err != nil {
			return err
		}
		e.lib.mu.Lock()
		e.lib.fill.done += len(batch)
		e.lib.mu.Unlock()
	}
	return ctx.Err()
}

// VectorFill reports a background fill of vectors: whether one runs, how
// many chunks it has embedded of how many, and the channel that closes when
// it ends (nil when none started).
func (e *Engine) VectorFill() (active bool, done, total int, finished <-chan struct{}) {
	e.lib.mu.Lock()
	defer e.lib.mu.Unlock()
	f := e.lib.fill
	return f.active, f.done, f.total, f.finished
}
