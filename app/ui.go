package app

// Bindings behind the desktop screens beyond asking: the source viewer,
// settings, the Ollama model picker and answer history.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// EventModelPull reports PullModel progress.
const EventModelPull = "model:pull"

// DocumentView is an indexed document as the source viewer shows it. Text is
// the stored text citation offsets point into (Unicode code points).
type DocumentView struct {
	store.DocumentInfo
	Text  string `json:"text"`
	Chars int    `json:"chars"` // length of Text in code points
}

// OpenDocument returns an indexed document's stored text for the source
// viewer. Only documents in the index can be opened.
func (a *App) OpenDocument(docID string) (DocumentView, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.engine.Ready(ctx); err != nil {
		return DocumentView{}, err
	}
	info, text, err := a.engine.Store().Document(ctx, docID)
	if errors.Is(err, store.ErrNotFound) {
		return DocumentView{}, errors.New("this document is no longer in the index; re-index its folder and ask again")
	}
	if err != nil {
		return DocumentView{}, err
	}
	return DocumentView{DocumentInfo: info, Text: text, Chars: utf8.RuneCountInString(text)}, nil
}

// openURL hands a URL to the system handler; tests replace it. Wails'
// runtime kills the process when given a context it did not create, so it
// is only called with the startup context.
var openURL = func(ctx context.Context, u string) { runtime.BrowserOpenURL(ctx, u) }

// OpenOriginal opens an indexed document's file with the system handler.
// It takes a document id, never a path, so the UI can only open files the
// index already holds.
func (a *App) OpenOriginal(docID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.engine.Ready(ctx); err != nil {
		return err
	}
	info, _, err := a.engine.Store().Document(ctx, docID)
	if errors.Is(err, store.ErrNotFound) {
		return errors.New("this document is no longer in the index; re-index its folder first")
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(info.Path); err != nil {
		return fmt.Errorf("the original file %s cannot be opened (%v); it may have been moved or deleted", info.Path, err)
	}
	if a.ctx == nil {
		return errors.New("opening files is only available in the desktop app")
	}
	openURL(a.ctx, fileURL(info.Path))
	return nil
}

// fileURL turns an absolute path into a file:// URL (Windows drive paths too).
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// UISettings are the settings the Settings screen edits.
type UISettings struct {
	OllamaHost    string  `json:"ollama_host"`
	LLMModel      string  `json:"llm_model"`
	EmbedModelDir string  `json:"embed_model_dir"`
	ScoreGate     float64 `json:"score_gate"`
	EvidenceK     int     `json:"evidence_k"` // passages packed into a prompt
	TopK          int     `json:"top_k"`      // candidates per retriever
	// Provider is "ollama" or "openai" (any OpenAI-compatible server at
	// OpenAIBaseURL); both apply after a restart.
	Provider      string `json:"provider"`
	OpenAIBaseURL string `json:"openai_base_url"`
	RetrievalMode string `json:"retrieval_mode"` // hybrid, lexical or vector
	AnswerCache   bool   `json:"answer_cache"`
	CrossSection  string `json:"cross_section"` // allow or forbid
	Theme         string `json:"theme"`         // system, light or dark
	// FollowOutsideLinks indexes what links inside a folder point to
	// outside it; null when saving leaves the saved choice as it is.
	FollowOutsideLinks *bool `json:"follow_outside_links,omitempty"`
	// MaxAnswerTokens is the longest answer in tokens; 0 keeps the saved one.
	MaxAnswerTokens int `json:"max_answer_tokens"`
	// ConfirmRemote is sent with a save after the user agreed that passages
	// may go to a model server on another machine; without it such a save
	// is refused with an engine.RemoteServerError.
	ConfirmRemote bool   `json:"confirm_remote,omitempty"`
	SettingsPath  string `json:"settings_path"`
	// Overridden lists settings an environment variable overrides; saving
	// them has no effect until that variable is unset.
	Overridden []string `json:"overridden"`
}

// SaveResult says what a save changed and what needs a restart.
type SaveResult struct {
	Settings        UISettings `json:"settings"`
	RestartRequired []string   `json:"restart_required"` // setting names that apply after a restart
}

// liveSettings holds settings saved while the app runs that answering
// applies at once (the engine keeps the ones it started with).
type liveSettings struct {
	mu sync.Mutex
	s  *config.Settings
}

// current returns the settings in effect: the engine's, updated by saves.
func (a *App) current() config.Settings {
	l := &a.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s != nil {
		return *l.s
	}
	return a.engine.Config().Settings
}

// Settings returns the settings in effect for the Settings screen.
func (a *App) Settings() UISettings {
	s := a.current()
	return UISettings{
		OllamaHost: a.engine.LLM().Host(), LLMModel: s.LLMModel, EmbedModelDir: s.EmbedModelDir,
		ScoreGate: s.ScoreGate, EvidenceK: s.EvidenceK, TopK: s.TopK,
		Provider: s.Provider, OpenAIBaseURL: s.OpenAIBaseURL, RetrievalMode: orDefault(s.RetrievalMode, search.ModeHybrid),
		AnswerCache: a.engine.CacheEnabled(), CrossSection: orDefault(s.CrossSection, "allow"), Theme: orDefault(s.Theme, "system"),
		FollowOutsideLinks: new(a.engine.FollowOutsideLinks()), MaxAnswerTokens: s.MaxAnswerTokens,
		SettingsPath: a.engine.Config().SettingsPath(), Overridden: envOverrides(),
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func envOverrides() []string { return config.Overridden() }

// SaveSettings validates and writes settings.json. The model, score gate,
// k, retrieval mode, answer cache, cross-section policy and answer length
// apply to the next question; the provider, its server and the embedding
// model folder apply after a restart. A model server on another machine is
// saved only with in.ConfirmRemote (or when that server was confirmed
// before); otherwise the error matches engine.ErrRemoteNotConfirmed.
func (a *App) SaveSettings(in UISettings) (SaveResult, error) {
	cfg := a.engine.Config()
	// Start from the file, not the running settings, so environment
	// overrides are not written into it.
	saved := config.Defaults()
	if raw, err := os.ReadFile(cfg.SettingsPath()); err == nil {
		if err := json.Unmarshal(raw, &saved); err != nil {
			return SaveResult{}, fmt.Errorf("settings file %s is not valid JSON (%v); fix or delete it", cfg.SettingsPath(), err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return SaveResult{}, fmt.Errorf("read settings %s: %w", cfg.SettingsPath(), err)
	}
	in.OllamaHost = strings.TrimSpace(in.OllamaHost)
	in.LLMModel = strings.TrimSpace(in.LLMModel)
	in.EmbedModelDir = strings.TrimSpace(in.EmbedModelDir)
	in.OpenAIBaseURL = strings.TrimSpace(in.OpenAIBaseURL)
	if in.LLMModel == "" {
		return SaveResult{}, errors.New("choose a model for answering")
	}
	if in.OllamaHost != "" {
		if _, err := llm.ParseHost(in.OllamaHost); err != nil {
			return SaveResult{}, fmt.Errorf("the Ollama host %q is not valid (%v); use host:port, e.g. 127.0.0.1:11434", in.OllamaHost, err)
		}
	}
	running := a.current()
	var restart []string
	if in.OllamaHost != "" && in.OllamaHost != a.engine.LLM().Host() && in.OllamaHost != running.OllamaHost {
		restart = append(restart, "ollama_host")
	}
	if in.EmbedModelDir != "" && in.EmbedModelDir != running.EmbedModelDir {
		restart = append(restart, "embed_model_dir")
	}
	if in.Provider == "" {
		in.Provider = running.Provider
	}
	if in.OpenAIBaseURL == "" {
		in.OpenAIBaseURL = running.OpenAIBaseURL
	}
	started := a.engine.Config().Settings // the provider is wired when the engine starts
	if in.Provider != started.Provider {
		restart = append(restart, "provider")
	}
	if in.Provider == config.ProviderOpenAI && in.OpenAIBaseURL != started.OpenAIBaseURL {
		restart = append(restart, "openai_base_url")
	}
	saved.OllamaHost, saved.LLMModel = in.OllamaHost, in.LLMModel
	if in.EmbedModelDir != "" {
		saved.EmbedModelDir = in.EmbedModelDir
	}
	saved.ScoreGate, saved.EvidenceK, saved.TopK = in.ScoreGate, in.EvidenceK, in.TopK
	saved.Provider, saved.OpenAIBaseURL = in.Provider, in.OpenAIBaseURL
	saved.RetrievalMode, saved.AnswerCache = orDefault(in.RetrievalMode, search.ModeHybrid), in.AnswerCache
	saved.CrossSection, saved.Theme = orDefault(in.CrossSection, "allow"), orDefault(in.Theme, "system")
	if in.FollowOutsideLinks != nil {
		saved.FollowOutsideLinks = *in.FollowOutsideLinks
	}
	if in.MaxAnswerTokens != 0 {
		saved.MaxAnswerTokens = in.MaxAnswerTokens
	}
	if err := saved.Validate(); err != nil {
		return SaveResult{}, err
	}
	if err := a.confirmServer(&saved, in.ConfirmRemote); err != nil {
		return SaveResult{}, err
	}
	cfg.Settings = saved
	if err := cfg.Save(); err != nil {
		return SaveResult{}, err
	}
	if saved.RemoteServerConsent != "" {
		a.engine.ConfirmRemoteServer(saved.RemoteServerConsent) // the running server may be the one confirmed
	}
	// What answering uses now; host and model folder stay as started.
	next := running
	next.LLMModel, next.ScoreGate, next.EvidenceK, next.TopK = saved.LLMModel, saved.ScoreGate, saved.EvidenceK, saved.TopK
	next.RetrievalMode, next.AnswerCache, next.CrossSection, next.Theme = saved.RetrievalMode, saved.AnswerCache, saved.CrossSection, saved.Theme
	next.MaxAnswerTokens = saved.MaxAnswerTokens
	a.engine.SetCacheEnabled(saved.AnswerCache)
	_ = a.engine.SetCrossSectionPolicy(saved.CrossSection) // validated above
	_ = a.engine.SetRetrievalMode(saved.RetrievalMode)     // validated above
	next.FollowOutsideLinks = saved.FollowOutsideLinks
	if saved.FollowOutsideLinks != a.engine.FollowOutsideLinks() {
		a.engine.SetFollowOutsideLinks(saved.FollowOutsideLinks)
		// Index (or drop) what links leading out of folders point to now.
		a.goCancellable(rescanKey, func(ctx context.Context) {
			if _, err := a.engine.Rescan(ctx, "", a.progressEmitter()); err != nil && ctx.Err() == nil {
				log.Printf("rescan after changing follow_outside_links: %v", err)
			}
		})
	}
	l := &a.live
	l.mu.Lock()
	l.s = &next
	l.mu.Unlock()
	out := a.Settings()
	if len(restart) > 0 {
		// Show what was saved, not what still runs, for the fields pending a restart.
		out.OllamaHost, out.EmbedModelDir = in.OllamaHost, saved.EmbedModelDir
		out.Provider, out.OpenAIBaseURL = saved.Provider, saved.OpenAIBaseURL
	}
	return SaveResult{Settings: out, RestartRequired: restart}, nil
}

// applyLiveSettings adjusts the engine's answer pipeline to the settings
// saved since start.
func (a *App) applyLiveSettings(p *rag.Pipeline) {
	s := a.current()
	p.Model, p.ScoreGate, p.EvidenceK, p.TopK = s.LLMModel, s.ScoreGate, s.EvidenceK, s.TopK
	p.MaxAnswerTokens = s.MaxAnswerTokens
	// The retrieval mode is the engine's (SetRetrievalMode on save), which
	// also knows when an index rebuild leaves only lexical search.
	if r, ok := p.Retriever.(*search.Searcher); ok {
		r.TopK = s.TopK
	}
}

// Model is one model installed in Ollama.
type Model struct {
	Name          string    `json:"name"`
	Size          int64     `json:"size"`
	ParameterSize string    `json:"parameter_size"`
	ModifiedAt    time.Time `json:"modified_at"`
}

// Models lists the models installed in Ollama for the model picker.
func (a *App) Models() ([]Model, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := a.engine.LLM().List(ctx)
	if err != nil {
		return nil, errors.New(llm.Describe(err, a.engine.LLM().Host(), a.current().LLMModel))
	}
	out := make([]Model, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, Model{Name: m.Name, Size: m.Size, ParameterSize: m.Details.ParameterSize, ModifiedAt: m.ModifiedAt})
	}
	return out, nil
}

// PullProgress is the payload of model:pull events.
type PullProgress struct {
	Model     string `json:"model"`
	Status    string `json:"status"`
	Completed int64  `json:"completed"`
	Total     int64  `json:"total"`
	Done      bool   `json:"done"`
	Error     string `json:"error,omitempty"`
}

// PullModel downloads a model into Ollama, emitting model:pull events; it
// returns when the pull finished.
func (a *App) PullModel(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("type the name of the model to pull, e.g. llama3.2:3b")
	}
	err := a.engine.LLM().Pull(context.Background(), &llm.PullRequest{Model: name}, func(p llm.ProgressResponse) error {
		a.emit(EventModelPull, PullProgress{Model: name, Status: p.Status, Completed: p.Completed, Total: p.Total})
		return nil
	})
	if err != nil {
		msg := llm.Describe(err, a.engine.LLM().Host(), name)
		a.emit(EventModelPull, PullProgress{Model: name, Status: "failed", Done: true, Error: msg})
		return errors.New(msg)
	}
	a.emit(EventModelPull, PullProgress{Model: name, Status: "success", Done: true})
	return nil
}

// History returns past answers, newest first, whose question or answer
// contains query (case-insensitive; "" matches all), at most limit.
func (a *App) History(query string, limit int) ([]rag.Answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.engine.Ready(ctx); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	recs, err := a.engine.Store().Answers(ctx, 0)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(query))
	out := []rag.Answer{}
	for _, r := range recs {
		if len(out) == limit {
			break
		}
		if q != "" && !strings.Contains(strings.ToLower(r.Question), q) && !strings.Contains(strings.ToLower(r.Answer), q) {
			continue
		}
		out = append(out, answerFromRecord(r))
	}
	return out, nil
}

// answerFromRecord rebuilds the UI's answer shape from its stored form; a
// record whose details cannot be read still shows its question and text.
func answerFromRecord(r store.AnswerRecord) rag.Answer {
	a, err := rag.FromRecord(r)
	if err != nil {
		log.Printf("history: %v", err)
		return rag.Answer{ID: r.ID, RequestID: r.RequestID, Question: r.Question, Answer: r.Answer,
			Model: r.Model, Stopped: r.Stopped, DurationMS: r.DurationMS, CreatedAt: r.CreatedAt, Citations: []rag.Citation{}}
	}
	return a
}
