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
	"sync/atomic"

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
	hc       *http.Client  // model server connections; nil: the clients' own
	remote   remoteConsent // remote model servers confirmed while running (remote.go)
	loadMu   sync.Mutex
	loading  chan struct{} // nil until a load starts; closed when it ends
	loadErr  error
	embedder embed.Embedder
	// absent is set while no embedding model is loaded (lexicalonly.go).
	absent atomic.Pointer[embed.Absent]
	// relevance measures ΔS and keeps its calibration per library state
	// (relevance.go); one for all questions.
	relevance *rag.Relevance
	store     *store.Store
	hash      string
	ingestMu  sync.Mutex        // one ingest at a time; queries run beside it
	lib       library           // collections' folder watch and queue runner (library.go)
	prov      provState         // answer cache switch, validation policy, audit log (cache.go)
	rr        reranking         // optional cross-encoder (rerank.go)
	vf        verification      // claim verifier (verify.go)
	life      lifetime          // questions in flight, and whether Close began
	live      liveSettings      // the settings in effect (settings.go)
	reuse     answerPrintsCache // stored answers' word runs, kept between ingest runs (evidencesource.go)
}

// lifetime lets Close stop the questions in flight and wait for them to
// store their answers, so nothing writes to the index after Close returns.
type lifetime struct {
	mu     sync.Mutex
	closed bool
	ctx    context.Context // cancelled when Close begins; nil until first use
	cancel context.CancelFunc
	active sync.WaitGroup
}

// track registers work that writes to the index. It fails once Close has
// begun; otherwise the returned context ends when ctx does or when Close
// begins, and Close waits until done is called.
func (e *Engine) track(ctx context.Context) (_ context.Context, done func(), _ error) {
	e.life.mu.Lock()
	defer e.life.mu.Unlock()
	if e.life.closed {
		return ctx, func() {}, e.closedError()
	}
	e.lifeLocked()
	e.life.active.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(e.life.ctx, cancel)
	return ctx, func() { stop(); cancel(); e.life.active.Done() }, nil
}

// lifeLocked returns the context Close cancels, creating it first; the
// caller holds life.mu.
func (e *Engine) lifeLocked() context.Context {
	if e.life.ctx == nil {
		e.life.ctx, e.life.cancel = context.WithCancel(context.Background())
	}
	return e.life.ctx
}

func (e *Engine) isClosed() bool {
	e.life.mu.Lock()
	defer e.life.mu.Unlock()
	return e.life.closed
}

func (e *Engine) closedError() error {
	return &store.StorageError{Kind: store.ErrClosed, Dir: e.cfg.Home, Err: errors.New("the engine is closed")}
}

// Option customises an Engine (tests inject fakes).
type Option func(*Engine)

// WithEmbedder uses e instead of loading the model folder from settings.
func WithEmbedder(e embed.Embedder) Option { return func(en *Engine) { en.embedder = e } }

// WithClock replaces the system clock.
func WithClock(c clock.Clock) Option { return func(en *Engine) { en.clock = c } }

// WithHTTPClient sends model server requests through hc (tests route a
// remote-looking name to a loopback server with it).
func WithHTTPClient(hc *http.Client) Option { return func(en *Engine) { en.hc = hc } }

// New prepares an engine without touching the disk or loading models, so the
// UI can appear at once; Start (or the first call that needs them) loads them.
func New(cfg config.Config, opts ...Option) (*Engine, error) {
	host, err := llm.ParseHost(cfg.Settings.OllamaHost)
	if err != nil {
		return nil, fmt.Errorf("OLLAMA_HOST %q: %w", cfg.Settings.OllamaHost, err)
	}
	e := &Engine{cfg: cfg, clock: clock.System{}}
	e.relevance = &rag.Relevance{Vectors: relevanceVectors{e}}
	e.live.s = cfg.Settings
	// The saved switches, so the app and the CLI answer alike.
	e.SetCacheEnabled(cfg.Settings.AnswerCache)
	e.SetFollowOutsideLinks(cfg.Settings.FollowOutsideLinks)
	if err := e.SetRetrievalMode(cfg.Settings.RetrievalMode); err != nil {
		return nil, fmt.Errorf("setting retrieval_mode: %w", err)
	}
	if cfg.Settings.CrossSection != "" {
		if err := e.SetCrossSectionPolicy(cfg.Settings.CrossSection); err != nil {
			return nil, fmt.Errorf("setting cross_section: %w", err)
		}
	}
	for _, o := range opts {
		o(e)
	}
	e.llm = llm.NewClient(host, e.hc) // by default 5 s connect timeout, no proxy
	return e, nil
}

// Config returns the configuration the engine started with; Settings
// returns the settings in effect.
func (e *Engine) Config() config.Config { return e.cfg }

// Start loads the embedding model and opens the index in the background;
// it returns the channel that closes when loading ends.
func (e *Engine) Start() <-chan struct{} {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	if e.loading == nil {
		done := make(chan struct{})
		e.loading = done
		e.life.mu.Lock()
		ctx := e.lifeLocked() // Close stops what of loading heeds a context
		e.life.mu.Unlock()
		go func() {
			err := e.open(ctx)
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
	if e.isClosed() {
		return e.closedError()
	}
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
// model folder — without restarting the app. A successful load is kept;
// an engine running lexical-only switches to the model when it loads now
// (lexicalonly.go).
func (e *Engine) Reload(ctx context.Context) error {
	if err := e.Ready(ctx); err == nil {
		if e.absentModel() != nil {
			return e.attachModel(ctx)
		}
		return nil
	}
	e.loadMu.Lock()
	e.loading, e.loadErr = nil, nil
	e.loadMu.Unlock()
	return e.Ready(ctx)
}

func (e *Engine) open(ctx context.Context) error {
	e.startReranker() // loads beside the embedding model; search waits for it
	if e.embedder == nil {
		emb, err := e.loadEmbedder(ctx) // a stand-in when the folder does not load: lexical-only
		if err != nil {
			return err
		}
		e.embedder = emb
	}
	if a, ok := e.embedder.(*embed.Absent); ok {
		e.absent.Store(a)
	} else {
		e.embedder = rememberQueries(e.embedder)
	}
	if err := os.MkdirAll(e.cfg.Home, 0o755); err != nil {
		return fmt.Errorf("create data folder %s: %w (set %s to a writable folder)", e.cfg.Home, err, config.EnvHome)
	}
	info := e.embedder.Info()
	st, err := store.Open(e.cfg.DBPath(), e.openOptions())
	vectorsStale := false
	if errors.Is(err, store.ErrDimensionMismatch) {
		// Keep serving the old index (lexically) while it is rebuilt for
		// the new model (rebuild.go).
		st, err = store.Open(e.cfg.DBPath(), store.Options{})
		vectorsStale = true
	}
	if err != nil {
		return store.ExplainStorage(e.cfg.Home, err) // a read-only or full data folder in one sentence
	}
	e.store = st
	e.hash = SettingsHash(info.Name(), store.Analyzer, e.ingestOptions().Fingerprint(), store.IndexLayoutVersion)
	if err := e.reconcileIndexHash(ctx, vectorsStale); err != nil {
		return err
	}
	if err := e.checkAnalyzer(ctx, st); err != nil {
		return err // fails at open when no rebuild will fix it
	}
	e.startFill() // chunks indexed while no model was loaded
	return nil
}

// SettingsHash identifies an index build's settings: anything that changes
// which chunks exist or how they are scored is part of it. A change means
// a rebuild.
func SettingsHash(embedModel, analyzer, chunking string, schema int) string {
	sum := sha256.Sum256([]byte(embedModel + "\x00" + analyzer + "\x00" + chunking + "\x00" + strconv.Itoa(schema)))
	return hex.EncodeToString(sum[:])[:16]
}

// IndexHash returns the identity of the live index's content ("" before
// loading): it changes whenever a document is added, changed or removed
// (store/contenthash.go), and citations carry the one that served them.
func (e *Engine) IndexHash() string {
	if st := e.index(); st != nil {
		return st.ContentHash()
	}
	return ""
}

// SettingsHash returns the identity of the live index's build settings
// (embedding model, analyzer, chunking, layout; "" before loading): the
// index is rebuilt when it changes, and the answer cache keys on it.
func (e *Engine) SettingsHash() string { return e.hash }

// EmbedModel returns the embedding model name ("" before loading).
func (e *Engine) EmbedModel() string {
	if e.embedder == nil {
		return ""
	}
	return e.embedder.Info().Name()
}

// index returns the open index (nil before loading).
func (e *Engine) index() *store.Store {
	e.lib.swapMu.RLock()
	defer e.lib.swapMu.RUnlock()
	return e.store
}

func (e *Engine) ingestOptions() ingest.Options {
	return e.ingestOptionsFor(e.embedder.Info().MaxTokens)
}

// ingestOptionsFor are the chunking options for a model that takes
// maxTokens tokens.
func (e *Engine) ingestOptionsFor(maxTokens int) ingest.Options {
	return ingest.Options{
		ChunkTokens:   e.cfg.Settings.ChunkTokens,
		OverlapTokens: e.cfg.Settings.OverlapTokens,
		MaxTokens:     maxTokens,

		FollowOutsideLinks: e.FollowOutsideLinks(),
	}.WithDefaults()
}

func (e *Engine) searcher() *search.Searcher {
	return &search.Searcher{Index: e.store, Embedder: e.embedder, RRFK: e.cfg.Settings.RRFK, TopK: e.Settings().TopK}
}

// Search runs retrieval only.
func (e *Engine) Search(ctx context.Context, query string, opts search.Options) (search.Result, error) {
	if err := e.Ready(ctx); err != nil {
		return search.Result{}, err
	}
	e.lib.swapMu.RLock() // an index rebuild swaps files under the write lock
	defer e.lib.swapMu.RUnlock()
	if err := e.checkAnalyzer(ctx, e.store); err != nil {
		return search.Result{}, err
	}
	opts.Mode = e.searchMode(opts.Mode)
	return e.retriever(ctx).Search(ctx, query, opts)
}

// pipeline returns the answer pipeline bound to this engine and the
// settings in effect, generating through the configured provider (Ollama or
// an OpenAI-compatible server).
func (e *Engine) pipeline() *rag.Pipeline {
	s := e.Settings()
	p := &rag.Pipeline{
		Retriever: e.retriever(context.Background()), Store: e.store, Clock: e.clock,
		Provider: s.Provider, Model: s.LLMModel, EmbedModel: e.EmbedModel(), Mode: e.searchMode(""),
		TopK: s.TopK, EvidenceK: s.EvidenceK, ContextTokens: s.ContextTokens, WordMatchGate: s.WordMatchGate,
		NumCtx: s.NumCtx, AnswerReserve: s.AnswerReserveTokens, Seed: s.Seed, MaxAnswerTokens: s.MaxAnswerTokens,
		Verification: s.Verification, Verifier: e.verifier(),
	}
	if e.store != nil { // the gates read the question's words by the index's term statistics
		p.Answerability = &rag.Answerability{Stats: e.store, MinRareShare: s.MinRareTermShare}
	}
	if e.embedder != nil && e.store != nil && e.absentModel() == nil {
		p.Relevance, p.DeltaSGate = e.relevance, s.DeltaSGate
	}
	if e.embedder != nil {
		// The embedding tokenizer stands in for the LLM's: chunk sizes are
		// counted with it too, and the answer reserve absorbs the difference.
		p.CountTokens = e.embedder.CountTokens
	}
	e.wireProvenance(p)
	gen, err := e.generator()
	if err != nil {
		p.LLM = failing{err}
		p.Describe = func(error) string { return err.Error() }
		return p
	}
	p.LLM, p.Window = gen.llm, gen.window
	// Read p.Model when the error happens: the app may switch models per question.
	p.Describe = func(err error) string { return gen.describe(err, p.Model) }
	return p
}

// failing is the generator when the provider is misconfigured (every
// question gets the configuration error, stored like any LLM failure) or
// known to have no answer model (AskOptions.NoAnswerModel).
type failing struct{ err error }

func (f failing) Chat(context.Context, *llm.ChatRequest, llm.ChatFunc) error { return f.err }

// Ask answers a question from the index. Cancelling ctx stops generation.
func (e *Engine) Ask(ctx context.Context, req rag.Request, sink rag.Sink) (rag.Answer, error) {
	return e.AskWith(ctx, req, sink, AskOptions{})
}

// AskOptions are one question's departures from the settings in effect.
type AskOptions struct {
	// Fresh answers from the documents even when a similar question was
	// answered before: the answer cache is not consulted (the new answer
	// still refreshes it).
	Fresh bool
	// Unrecorded keeps the answer out of the history (evaluation runs).
	Unrecorded bool
	// SeedOffset is added to the configured seed (repeated evaluation runs).
	SeedOffset int
	// Collections limits retrieval to these collections (nil = all).
	Collections []string
	// Verification is the claim verification mode ("" = the configured one).
	Verification string
	// Uncached neither serves from nor writes to the answer cache: live
	// evaluation measures the pipeline on the question itself, and a test
	// question's answer never reaches the user's cache.
	Uncached bool
	// NoAnswerModel is what CheckAnswerModel reported when it found no
	// answer model (NoAnswerModel(err): server down, model missing). The
	// question is answered with the passages that match, and nothing more
	// is sent to the model server, which already said it cannot answer.
	NoAnswerModel error
}

// AskWith is Ask with per-question options, applied under the same index
// lock as the answer, so an index swap cannot happen mid-answer.
func (e *Engine) AskWith(ctx context.Context, req rag.Request, sink rag.Sink, opts AskOptions) (rag.Answer, error) {
	if err := e.Ready(ctx); err != nil {
		return rag.Answer{}, err
	}
	// Nothing is retrieved or stored for a server the user has not agreed
	// to send passages to.
	if err := e.CheckRemoteServer(); err != nil {
		return rag.Answer{}, err
	}
	// Close stops the question (it is stored as stopped) and waits for it.
	ctx, done, err := e.track(ctx)
	if err != nil {
		return rag.Answer{}, err
	}
	defer done()
	e.lib.swapMu.RLock()
	defer e.lib.swapMu.RUnlock()
	if err := e.checkAnalyzer(ctx, e.store); err != nil {
		return rag.Answer{}, err
	}
	p := e.pipeline()
	opts.apply(p)
	var ans rag.Answer
	if opts.Uncached {
		ans, err = p.Ask(ctx, req, sink)
	} else {
		ans, err = e.askCached(ctx, p, req, sink, opts.Fresh)
	}
	if err != nil && e.store != nil {
		err = e.store.Explain(err) // a full disk or read-only folder, in one sentence
	}
	return ans, err
}

func (o AskOptions) apply(p *rag.Pipeline) {
	if o.Unrecorded {
		p.Store = nil
		p.Previous = nil // an evaluation's answers are judged apart from the history
	}
	p.Seed += o.SeedOffset
	if len(o.Collections) > 0 {
		p.Retriever = collectionRetriever{p.Retriever, o.Collections}
	}
	if o.Verification != "" {
		p.Verification = o.Verification
	}
	if o.NoAnswerModel != nil {
		p.LLM, p.Window, p.NumCtx = failing{o.NoAnswerModel}, nil, 0
	}
}

// collectionRetriever limits the pipeline's retrieval to some collections.
type collectionRetriever struct {
	inner       rag.Retriever
	collections []string
}

func (c collectionRetriever) Search(ctx context.Context, query string, opts search.Options) (search.Result, error) {
	opts.Collections = c.collections
	return c.inner.Search(ctx, query, opts)
}

// Close stops questions in flight (their answers are stored as stopped),
// waits for them, and releases the model and the index. Calls made after
// Close fail with an error matching store.ErrClosed; a second Close does
// nothing.
func (e *Engine) Close() error {
	e.life.mu.Lock()
	already := e.life.closed
	e.life.closed = true
	if e.life.cancel != nil {
		e.life.cancel()
	}
	e.life.mu.Unlock()
	if already {
		return nil
	}
	e.life.active.Wait()
	e.stopRebuild() // resumes at the next start
	ingest.StopChildren()
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
	release := func() error {
		<-loading
		errs := []error{e.closeAudit(), e.closeReranker(), e.closeVerifier()}
		if e.store != nil {
			errs = append(errs, e.store.Close())
		}
		if e.embedder != nil {
			errs = append(errs, e.embedder.Close())
		}
		return errors.Join(errs...)
	}
	select {
	case <-loading:
		return release()
	default:
		// A load in flight: reading and compiling the model cannot be
		// stopped midway (it heeds the cancelled context between steps),
		// and can take seconds. Closing does not wait for it, so Ctrl-C
		// or quitting the app right after the start is prompt; what it
		// opens is closed when it ends. The index is opened last, in
		// transactions, so a process that exits meanwhile leaves it whole.
		go release()
		return nil
	}
}
