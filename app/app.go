// Package app is the Wails-bound layer: the methods the web UI calls and the
// events it listens to (see docs/ui-contract.md). It translates between the
// UI and the backend engine and owns nothing else.
package app

//go:generate go test -tags sqlite_fts5 -run TestGeneratedTypesMatchGo -count=1 . -args -update

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
)

// Event names (the UI listens to these).
const (
	EventAnswerStart    = "answer:start"
	EventAnswerToken    = "answer:token"
	EventAnswerDone     = "answer:done"
	EventAnswerError    = "answer:error"
	EventIngestProgress = "ingest:progress"
	EventModelProgress  = "model:progress"
)

// Emitter sends an event to the UI. Production wraps Wails' runtime; tests
// record events. Calling Wails' runtime with a context Wails did not create
// kills the process, so the app never does that directly.
type Emitter interface {
	Emit(event string, payload any)
}

// Dialogs opens native dialogs.
type Dialogs interface {
	PickFolder(ctx context.Context, title string) (string, error)
	PickFiles(ctx context.Context, title string) ([]string, error)
}

// App is bound to the UI.
type App struct {
	engine  *engine.Engine
	emitter Emitter
	dialogs Dialogs
	ctx     context.Context // from Wails at startup; used for dialogs only

	mu      sync.Mutex
	running map[string]context.CancelFunc
	wg      sync.WaitGroup
	startup []string // folders to index when the app starts
}

// New creates the bound App. emitter and dialogs may be nil until Startup
// provides the Wails-backed ones.
func New(en *engine.Engine, emitter Emitter, dialogs Dialogs) *App {
	return &App{engine: en, emitter: emitter, dialogs: dialogs, running: map[string]context.CancelFunc{}}
}

// IndexOnStart makes the app index these folders (e.g. a sample library)
// once the model is loaded.
func IndexOnStart(a *App, paths []string) { a.startup = paths }

// Startup is the Wails OnStartup hook; it is a function, not a method, so the
// UI cannot call it.
func Startup(a *App, ctx context.Context) {
	a.ctx = ctx
	if a.emitter == nil {
		a.emitter = wailsEmitter{ctx}
	}
	if a.dialogs == nil {
		a.dialogs = wailsDialogs{}
	}
	go returnLoadMemory(a.engine.Start())
	a.indexStartupFolders()
	a.startLibrary() // resume the ingest queue and watch collections (library.go)
}

// returnLoadMemory waits for loading to end, then hands the memory loading
// used and no longer needs back to the OS, so the idle app is as small as
// its live data. Loading leaves tens of MB of parse and conversion garbage,
// and the inference backend keeps scratch buffers in sync.Pools, which
// survive one collection; the Go runtime would otherwise hold all of it
// until its next cycles and return it to the OS only gradually.
func returnLoadMemory(loaded <-chan struct{}) {
	<-loaded
	debug.FreeOSMemory()
	debug.FreeOSMemory()
}

// indexStartupFolders indexes the folders named for start-up in the
// background; it runs again after a first-run model download, since without
// a model the first attempt could not index anything.
func (a *App) indexStartupFolders() {
	if len(a.startup) == 0 {
		return
	}
	go func() {
		// Each folder becomes a collection named after it, so the library
		// screen lists it and the folder watch keeps it current.
		for _, p := range a.startup {
			if _, err := a.AddFolder(filepath.Base(filepath.Clean(p)), p); err != nil {
				log.Printf("index %s at start: %v", p, err)
			}
		}
	}()
}

// Shutdown is the Wails OnShutdown hook: it stops generation, waits for
// answers in flight to be stored, and closes the index.
func Shutdown(a *App) {
	a.mu.Lock()
	for _, cancel := range a.running {
		cancel()
	}
	a.mu.Unlock()
	a.wg.Wait()
	if err := a.engine.Close(); err != nil {
		log.Printf("close: %v", err)
	}
}

func (a *App) emit(event string, payload any) {
	if a.emitter != nil {
		a.emitter.Emit(event, payload)
	}
}

// Status reports readiness for the header and onboarding.
type Status struct {
	Loading     bool   `json:"loading"`
	Ready       bool   `json:"ready"`
	EmbedModel  string `json:"embed_model"`
	EmbedError  string `json:"embed_error"`
	LLMModel    string `json:"llm_model"`
	OllamaHost  string `json:"ollama_host"`
	OllamaError string `json:"ollama_error"`
	Documents   int    `json:"documents"`
	Chunks      int    `json:"chunks"`
	DataDir     string `json:"data_dir"`
	IndexHash   string `json:"index_hash"`
	Remote      bool   `json:"remote"` // the model server is not on this machine
	// LexicalOnly: no embedding model is loaded, so search goes by words
	// (EmbedError says why and what to install); documents are indexed all
	// the same and get vectors when the model arrives.
	LexicalOnly bool `json:"lexical_only"`
}

// Status reports what is ready and what is not, with a fix for each problem.
func (a *App) Status() Status {
	st := Status{LLMModel: a.engine.Settings().LLMModel, OllamaHost: a.engine.OllamaHost(), DataDir: a.engine.Config().Home}
	st.Remote = a.engine.ModelServerIsRemote()
	done, err := a.engine.Loaded()
	switch {
	case !done:
		st.Loading = true
	case err != nil:
		st.EmbedError = userText(err)
	default:
		st.Ready = true
		st.EmbedModel = a.engine.EmbedModel()
		if a.engine.ModelMissing() != nil { // its cause is in the log and in `footnote doctor`
			st.LexicalOnly, st.EmbedModel = true, ""
			st.EmbedError = "Searching by words only: no embedding model is installed. Your documents are indexed anyway; " +
				"download the model for search by meaning, and the index gets it without reading your files again."
		}
		st.IndexHash = a.engine.IndexHash()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st.Documents, st.Chunks, _ = a.engine.Counts(ctx)
		cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := a.engine.CheckAnswerModel(ctx); err != nil {
		st.OllamaError = userText(err)
	}
	return st
}

// Ingest indexes folders or files, emitting progress events.
func (a *App) Ingest(paths []string) (engine.Summary, error) {
	return a.engine.Ingest(context.Background(), paths, func(p engine.Progress) {
		a.emit(EventIngestProgress, p)
	})
}

// PickFolder opens the native folder dialog; "" when cancelled.
func (a *App) PickFolder() (string, error) {
	if a.dialogs == nil || a.ctx == nil {
		return "", errors.New("the folder dialog is not available; type the folder path instead")
	}
	return a.dialogs.PickFolder(a.ctx, "Choose a folder to index")
}

// Search runs retrieval only.
func (a *App) Search(query string) ([]engine.Citation, error) {
	res, err := a.engine.Search(context.Background(), query, engine.SearchOptions{Limit: 20})
	if err != nil {
		return nil, err
	}
	out := make([]engine.Citation, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = engine.CitationFromHit(i+1, h)
	}
	return out, nil
}

type tokenEvent struct {
	RequestID string `json:"request_id"`
	Token     string `json:"token"`
}

type startEvent struct {
	RequestID string            `json:"request_id"`
	Citations []engine.Citation `json:"citations"`
}

type doneEvent struct {
	RequestID string        `json:"request_id"`
	Answer    engine.Answer `json:"answer"`
	// ThreadID and Turn say where an answer asked in a thread went.
	ThreadID string `json:"thread_id,omitempty"`
	Turn     int    `json:"turn,omitempty"`
}

type errorEvent struct {
	RequestID string `json:"request_id"`
	Error     string `json:"error"`
}

// eventSink forwards pipeline output to the UI as request-tagged events.
type eventSink struct{ a *App }

func (s eventSink) Evidence(id string, c []engine.Citation) {
	s.a.emit(EventAnswerStart, startEvent{RequestID: id, Citations: c})
}
func (s eventSink) Token(id, tok string) {
	s.a.emit(EventAnswerToken, tokenEvent{RequestID: id, Token: tok})
}

// Ask starts answering and returns the request id at once; the answer
// arrives as events. Generation runs on its own context — only Stop (or
// closing the app) cancels it — so a reloaded page does not lose the answer.
func (a *App) Ask(question string) (string, error) { return a.ask(question, false) }

func (a *App) ask(question string, fresh bool) (string, error) {
	id := newRequestID()
	a.goCancellable(id, func(ctx context.Context) {
		if err := a.engine.Ready(ctx); err != nil {
			a.emit(EventAnswerError, errorEvent{RequestID: id, Error: userText(err)})
			return
		}
		// Fresh bypasses the answer cache (answercache.go).
		ans, err := a.engine.AskWith(ctx, engine.Request{ID: id, Question: question}, eventSink{a}, engine.AskOptions{Fresh: fresh})
		if err != nil {
			// The answer (if any) is stored; the UI shows the one-sentence cause.
			a.emit(EventAnswerError, errorEvent{RequestID: id, Error: userText(err)})
			return
		}
		a.emit(EventAnswerDone, doneEvent{RequestID: id, Answer: ans})
	})
	return id, nil
}

// goCancellable runs work in the background under key: Stop(key) or
// Shutdown cancels its context, and Shutdown waits for it to return.
func (a *App) goCancellable(key string, work func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	a.mu.Lock()
	a.running[key] = cancel
	a.mu.Unlock()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer func() {
			a.mu.Lock()
			delete(a.running, key)
			a.mu.Unlock()
			cancel()
		}()
		work(ctx)
	}()
}

// Stop cancels a running answer; it is stored as stopped.
func (a *App) Stop(requestID string) {
	a.mu.Lock()
	cancel := a.running[requestID]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func newRequestID() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return fmt.Sprintf("req-%d", time.Now().UnixNano())
	}
	return "req-" + hex.EncodeToString(b)
}
