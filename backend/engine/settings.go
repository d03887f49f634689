package engine

// Settings in effect while the engine runs. The engine owns them: a save
// from the Settings screen writes settings.json and applies at once what
// can change without a restart; answering and searching read them here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
)

// liveSettings are the settings the engine started with, updated by saves.
type liveSettings struct {
	mu sync.Mutex
	s  config.Settings
}

// Settings returns the settings in effect: those the engine started with,
// updated by SaveSettings for everything that applies without a restart.
func (e *Engine) Settings() config.Settings {
	e.live.mu.Lock()
	defer e.live.mu.Unlock()
	return e.live.s
}

// SetCacheEnabled turns the semantic answer cache on or off.
func (e *Engine) SetCacheEnabled(on bool) {
	e.updateLive(func(s *config.Settings) { s.AnswerCache = on })
}

// CacheEnabled reports whether answers may be served from the cache.
func (e *Engine) CacheEnabled() bool { return e.Settings().AnswerCache }

// SetRetrievalMode sets the retrieval mode (hybrid, lexical or vector) used
// by questions and by searches that name none.
func (e *Engine) SetRetrievalMode(mode string) error {
	mode, err := search.ParseMode(mode)
	if err != nil {
		return err
	}
	e.updateLive(func(s *config.Settings) { s.RetrievalMode = mode })
	return nil
}

// RetrievalMode is the mode SetRetrievalMode set (hybrid by default).
func (e *Engine) RetrievalMode() string {
	return orDefault(e.Settings().RetrievalMode, search.ModeHybrid)
}

// SetCrossSectionPolicy sets whether one answer sentence may cite several
// sections: provenance.PolicyAllow (with a warning, the default) or
// provenance.PolicyForbid.
func (e *Engine) SetCrossSectionPolicy(policy string) error {
	if policy != provenance.PolicyAllow && policy != provenance.PolicyForbid {
		return fmt.Errorf("unknown cross-section policy %q: use %q or %q", policy, provenance.PolicyAllow, provenance.PolicyForbid)
	}
	e.updateLive(func(s *config.Settings) { s.CrossSection = policy })
	return nil
}

// SetFollowOutsideLinks sets whether links inside a folder that lead out of
// it are indexed (off: skipped with a reason). Every scan applies it —
// ingest, rescan, the watch and rebuilds — so they agree; a rescan applies a
// change to what is indexed.
func (e *Engine) SetFollowOutsideLinks(on bool) {
	e.updateLive(func(s *config.Settings) { s.FollowOutsideLinks = on })
}

// FollowOutsideLinks reports the setting SetFollowOutsideLinks changes.
func (e *Engine) FollowOutsideLinks() bool { return e.Settings().FollowOutsideLinks }

func (e *Engine) updateLive(change func(*config.Settings)) {
	e.live.mu.Lock()
	defer e.live.mu.Unlock()
	change(&e.live.s)
}

// SettingsUpdate is a save from the Settings screen. Empty strings keep
// what is in effect for Provider and OpenAIBaseURL, and the saved folder
// for EmbedModelDir; MaxAnswerTokens 0 and FollowOutsideLinks nil keep the
// saved ones.
type SettingsUpdate struct {
	OllamaHost, LLMModel, EmbedModelDir string
	WordMatchGate                       float64
	EvidenceK, TopK                     int
	Provider, OpenAIBaseURL             string
	RetrievalMode                       string
	AnswerCache                         bool
	CrossSection, Theme                 string
	FollowOutsideLinks                  *bool
	MaxAnswerTokens                     int
	// ConfirmRemote says the user agreed that passages may go to a model
	// server on another machine.
	ConfirmRemote bool
}

// SavedSettings says what a save wrote and what it changed.
type SavedSettings struct {
	Saved config.Settings // as written to settings.json
	// RestartRequired names the settings that apply after a restart.
	RestartRequired []string
	// OutsideLinksChanged: what links leading out of folders point to must
	// now be indexed or dropped (a Rescan does it).
	OutsideLinksChanged bool
}

// SaveSettings validates and writes settings.json. The model, score gate,
// k, retrieval mode, answer cache, cross-section policy and answer length
// apply to the next question; the provider, its server and the embedding
// model folder apply after a restart. A model server on another machine is
// saved only with in.ConfirmRemote (or when that server was confirmed
// before); otherwise the error matches ErrRemoteNotConfirmed.
func (e *Engine) SaveSettings(in SettingsUpdate) (SavedSettings, error) {
	cfg := e.cfg
	// Start from the file, not the running settings, so environment
	// overrides are not written into it.
	saved := config.Defaults()
	if raw, err := os.ReadFile(cfg.SettingsPath()); err == nil {
		if err := json.Unmarshal(raw, &saved); err != nil {
			return SavedSettings{}, fmt.Errorf("settings file %s is not valid JSON (%w); fix or delete it", cfg.SettingsPath(), err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return SavedSettings{}, fmt.Errorf("read settings %s: %w", cfg.SettingsPath(), err)
	}
	in.OllamaHost = strings.TrimSpace(in.OllamaHost)
	in.LLMModel = strings.TrimSpace(in.LLMModel)
	in.EmbedModelDir = strings.TrimSpace(in.EmbedModelDir)
	in.OpenAIBaseURL = strings.TrimSpace(in.OpenAIBaseURL)
	if in.LLMModel == "" {
		return SavedSettings{}, errors.New("choose a model for answering")
	}
	if in.OllamaHost != "" {
		if _, err := llm.ParseHost(in.OllamaHost); err != nil {
			return SavedSettings{}, fmt.Errorf("the Ollama host %q is not valid (%w); use host:port, e.g. 127.0.0.1:11434", in.OllamaHost, err)
		}
	}
	running := e.Settings()
	var restart []string
	if in.OllamaHost != "" && in.OllamaHost != e.llm.Host() && in.OllamaHost != running.OllamaHost {
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
	started := e.cfg.Settings // the provider is wired when the engine starts
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
	saved.WordMatchGate, saved.EvidenceK, saved.TopK = in.WordMatchGate, in.EvidenceK, in.TopK
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
		return SavedSettings{}, err
	}
	if err := confirmServer(&saved, in.ConfirmRemote); err != nil {
		return SavedSettings{}, err
	}
	cfg.Settings = saved
	if err := cfg.Save(); err != nil {
		return SavedSettings{}, err
	}
	if saved.RemoteServerConsent != "" {
		e.ConfirmRemoteServer(saved.RemoteServerConsent) // the running server may be the one confirmed
	}
	// What answering uses now; host and model folder stay as started.
	next := running
	next.LLMModel, next.WordMatchGate, next.EvidenceK, next.TopK = saved.LLMModel, saved.WordMatchGate, saved.EvidenceK, saved.TopK
	next.RetrievalMode, next.AnswerCache, next.CrossSection, next.Theme = saved.RetrievalMode, saved.AnswerCache, saved.CrossSection, saved.Theme
	next.MaxAnswerTokens = saved.MaxAnswerTokens
	next.FollowOutsideLinks = saved.FollowOutsideLinks
	linksChanged := saved.FollowOutsideLinks != e.FollowOutsideLinks()
	e.live.mu.Lock()
	e.live.s = next
	e.live.mu.Unlock()
	_ = e.SetRetrievalMode(saved.RetrievalMode) // validated above; stored in its parsed form
	return SavedSettings{Saved: saved, RestartRequired: restart, OutsideLinksChanged: linksChanged}, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// confirmServer applies the rule for model servers off this machine to a
// save: saving one needs confirm (the user agreed in the dialog) unless
// that server was confirmed before. The consent is saved with the server,
// and cleared when a server on this machine is saved.
func confirmServer(saved *config.Settings, confirm bool) error {
	server, err := ModelServer(*saved)
	if err != nil {
		return err
	}
	switch {
	case !isRemote(server):
		saved.RemoteServerConsent = ""
	case confirm:
		saved.RemoteServerConsent = server
	case !SameServer(saved.RemoteServerConsent, server):
		return &RemoteServerError{Server: server}
	}
	return nil
}

// ModelServerIsRemote reports whether questions under the settings in
// effect go to a model server off this machine (anything but localhost,
// 127.0.0.0/8 and ::1): questions and passages then leave the computer.
func (e *Engine) ModelServerIsRemote() bool {
	return isRemote(modelServer(e.Settings(), e.llm.Host()))
}

// isRemote reports whether a model server URL points off this machine.
func isRemote(raw string) bool { return llm.IsRemoteURL(raw) }

// modelServer is the URL questions are sent to under the given settings.
func modelServer(s config.Settings, ollamaHost string) string {
	if s.Provider == config.ProviderOpenAI {
		return s.OpenAIBaseURL
	}
	return ollamaHost
}
