// Package engine wires Footnote's capabilities — ingestion, embedding,
// storage, retrieval and answering — for one data folder. The desktop app
// and the CLI both drive an Engine; it holds no UI concerns.
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/footnote-app/footnote/backend/clock"
	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

// Engine is an open Footnote data folder.
type Engine struct {
	cfg      config.Config
	clock    clock.Clock
	llm      *llm.Client
	loadMu   sync.Mutex
	loading  chan struct{} // nil until a load starts; closed when it ends
	loadErr  error
	embedder embed.Embedder
	store    *store.Store
	hash     string
	ingestMu sync.Mutex // one ingest at a time; queries run beside it
}

// Option customises an Engine (tests inject fakes).
type Option func(*Engine)

// WithEmbedder uses e instead of loading the model folder from settings.
func WithEmbedder(e embed.Embedder) Option { return func(en *Engine) { en.embedder = e } }

// WithClock replaces the system clock.
func WithClock(c clock.Clock) Option { return func(en *Engine) { en.clock = c } }

// New prepares an engine without touching the disk or loading models, so the
// UI can appear at once; Start (or the first call that needs them) loads them.
func New(cfg config.Config, opts ...Option) (*Engine, error) {
	host, err := llm.ParseHost(cfg.Settings.OllamaHost)
	if err != nil {
		return nil, fmt.Errorf("OLLAMA_HOST %q: %w", cfg.Settings.OllamaHost, err)
	}
	e := &Engine{cfg: cfg, clock: clock.System{}}
	e.llm = llm.NewClient(host, http.DefaultClient)
	for _, o := range opts {
		o(e)
	}
	return e, nil
}

// Config returns the configuration the engine runs with.
func (e *Engine) Config() config.Config { return e.cfg }

// LLM returns the Ollama client.
func (e *Engine) LLM() *llm.Client { return e.llm }

// Start loads the embedding model and opens the index in the background;
// it returns the channel that closes when loading ends.
func (e *Engine) Start() <-chan struct{} {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	if e.loading == nil {
		done := make(chan struct{})
		e.loading = done
		go func() {
			err := e.open(context.Background())
			e.loadMu.Lock()
			e.loadErr = err
			e.loadMu.Unlock()
			close(done)
		}()
	}
	return e.loading
}

// Ready waits until the model and index are loaded and reports a load error.
func (e *Engine) Ready(ctx context.Context) error {
	select {
	case <-e.Start():
		e.loadMu.Lock()
		defer e.loadMu.Unlock()
		return e.loadErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Loaded reports, without waiting, whether loading finished and how.
func (e *Engine) Loaded() (done bool, err error) {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	if e.loading == nil {
		return false, nil
	}
	select {
	case <-e.loading:
		return true, e.loadErr
	default:
		return false, nil
	}
}

// Reload retries a failed load — after the user downloaded or picked a
// model folder — without restarting the app. A successful load is kept.
func (e *Engine) Reload(ctx context.Context) error {
	if err := e.Ready(ctx); err == nil {
		return nil
	}
	e.loadMu.Lock()
	e.loading, e.loadErr = nil, nil
	e.loadMu.Unlock()
	return e.Ready(ctx)
}

func (e *Engine) open(ctx context.Context) error {
	if e.embedder == nil {
		emb, err := embed.Load(ctx, e.cfg.Settings.EmbedModelDir)
		if err != nil {
			return err
		}
		e.embedder = emb
	}
	if err := os.MkdirAll(e.cfg.Home, 0o755); err != nil {
		return fmt.Errorf("create data folder %s: %w (set %s to a writable folder)", e.cfg.Home, err, config.EnvHome)
	}
	info := e.embedder.Info()
	st, err := store.Open(e.cfg.DBPath(), store.Options{Dim: info.Dim})
	if errors.Is(err, store.ErrDimensionMismatch) {
		return fmt.Errorf("the index in %s was built with a different embedding model: run `footnote ingest --rebuild PATH` or pick the original model: %w", e.cfg.Home, err)
	}
	if err != nil {
		return err
	}
	e.store = st
	e.hash = IndexHash(info.Name(), store.Analyzer, e.ingestOptions().Fingerprint(), store.SchemaVersion)
	return e.checkIndexHash(ctx)
}

// checkIndexHash records the index identity; when the embedding model or
// chunking changed, the old index can no longer be searched consistently, so
// it is cleared and the next ingest rebuilds it.
func (e *Engine) checkIndexHash(ctx context.Context) error {
	old, found, err := e.store.Meta(ctx, "index_hash")
	if err != nil {
		return err
	}
	if found && old == e.hash {
		return nil // opening an unchanged index writes nothing
	}
	if found {
		if err := e.store.Reset(ctx, e.embedder.Info().Dim); err != nil {
			return fmt.Errorf("reset index after a model or chunking change: %w", err)
		}
	}
	if err := e.store.SetMeta(ctx, "index_hash", e.hash); err != nil {
		return err
	}
	return e.store.SetMeta(ctx, "analyzer", store.Analyzer)
}

// IndexHash identifies an index build: anything that changes which chunks
// exist or how they are scored is part of it.
func IndexHash(embedModel, analyzer, chunking string, schema int) string {
	sum := sha256.Sum256([]byte(embedModel + "\x00" + analyzer + "\x00" + chunking + "\x00" + strconv.Itoa(schema)))
	return hex.EncodeToString(sum[:])[:16]
}

// IndexHash returns the live index identity ("" before loading).
func (e *Engine) IndexHash() string { return e.hash }

// EmbedModel returns the embedding model name ("" before loading).
func (e *Engine) EmbedModel() string {
	if e.embedder == nil {
		return ""
	}
	return e.embedder.Info().Name()
}

// Store returns the open index (nil before loading).
func (e *Engine) Store() *store.Store { return e.store }

func (e *Engine) ingestOptions() ingest.Options {
	return ingest.Options{
		ChunkTokens:   e.cfg.Settings.ChunkTokens,
		OverlapTokens: e.cfg.Settings.OverlapTokens,
		MaxTokens:     e.embedder.Info().MaxTokens,
	}.WithDefaults()
}

func (e *Engine) searcher() *search.Searcher {
	return &search.Searcher{Index: e.store, Embedder: e.embedder, RRFK: e.cfg.Settings.RRFK, TopK: e.cfg.Settings.TopK}
}

// Search runs retrieval only.
func (e *Engine) Search(ctx context.Context, query string, opts search.Options) (search.Result, error) {
	if err := e.Ready(ctx); err != nil {
		return search.Result{}, err
	}
	return e.searcher().Search(ctx, query, opts)
}

// Pipeline returns the answer pipeline bound to this engine.
func (e *Engine) Pipeline() *rag.Pipeline {
	s := e.cfg.Settings
	return &rag.Pipeline{
		Retriever: e.searcher(), LLM: e.llm, Store: e.store, Clock: e.clock,
		Model: s.LLMModel, EmbedModel: e.EmbedModel(), Mode: search.ModeHybrid,
		TopK: s.TopK, EvidenceK: s.EvidenceK, ContextTokens: s.ContextTokens, ScoreGate: s.ScoreGate,
		Describe: func(err error) string { return llm.Describe(err, e.llm.Host(), s.LLMModel) },
	}
}

// Ask answers a question from the index. Cancelling ctx stops generation.
func (e *Engine) Ask(ctx context.Context, req rag.Request, sink rag.Sink) (rag.Answer, error) {
	if err := e.Ready(ctx); err != nil {
		return rag.Answer{}, err
	}
	return e.Pipeline().Ask(ctx, req, sink)
}

// Close releases the model and the index.
func (e *Engine) Close() error {
	// Wait for a load in flight; if none ever started, mark loading as ended
	// so nothing starts after Close.
	e.loadMu.Lock()
	if e.loading == nil {
		e.loading = make(chan struct{})
		close(e.loading)
		e.loadErr = errors.New("the engine is closed")
	}
	loading := e.loading
	e.loadMu.Unlock()
	<-loading
	var errs []error
	if e.store != nil {
		errs = append(errs, e.store.Close())
	}
	if e.embedder != nil {
		errs = append(errs, e.embedder.Close())
	}
	return errors.Join(errs...)
}
