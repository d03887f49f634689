package app

// The Settings screen: the settings in effect and saving them. The engine
// owns the settings; this file translates them to the screen's shape.

import (
	"context"
	"log"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/version"
)

// UISettings are the settings the Settings screen edits.
type UISettings struct {
	OllamaHost    string  `json:"ollama_host"`
	LLMModel      string  `json:"llm_model"`
	EmbedModelDir string  `json:"embed_model_dir"`
	WordMatchGate float64 `json:"word_match_gate"`
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
	// Version is the running build (backend/version), shown in the dialog.
	Version string `json:"version"`
	// Overridden lists settings an environment variable overrides; saving
	// them has no effect until that variable is unset.
	Overridden []string `json:"overridden"`
}

// SaveResult says what a save changed and what needs a restart.
type SaveResult struct {
	Settings        UISettings `json:"settings"`
	RestartRequired []string   `json:"restart_required"` // setting names that apply after a restart
}

// Settings returns the settings in effect for the Settings screen.
func (a *App) Settings() UISettings {
	s := a.engine.Settings()
	return UISettings{
		OllamaHost: a.engine.OllamaHost(), LLMModel: s.LLMModel, EmbedModelDir: s.EmbedModelDir,
		WordMatchGate: s.WordMatchGate, EvidenceK: s.EvidenceK, TopK: s.TopK,
		Provider: s.Provider, OpenAIBaseURL: s.OpenAIBaseURL, RetrievalMode: orDefault(s.RetrievalMode, engine.ModeHybrid),
		AnswerCache: a.engine.CacheEnabled(), CrossSection: orDefault(s.CrossSection, "allow"), Theme: orDefault(s.Theme, "system"),
		FollowOutsideLinks: new(a.engine.FollowOutsideLinks()), MaxAnswerTokens: s.MaxAnswerTokens,
		SettingsPath: a.engine.Config().SettingsPath(), Version: version.String(), Overridden: envOverrides(),
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func envOverrides() []string { return config.Overridden() }

// SaveSettings validates and writes settings.json (engine.SaveSettings
// says what applies at once and what after a restart). A model server on
// another machine is saved only with in.ConfirmRemote (or when that server
// was confirmed before); otherwise the error matches
// engine.ErrRemoteNotConfirmed.
func (a *App) SaveSettings(in UISettings) (SaveResult, error) {
	res, err := a.engine.SaveSettings(engine.SettingsUpdate{
		OllamaHost: in.OllamaHost, LLMModel: in.LLMModel, EmbedModelDir: in.EmbedModelDir,
		WordMatchGate: in.WordMatchGate, EvidenceK: in.EvidenceK, TopK: in.TopK,
		Provider: in.Provider, OpenAIBaseURL: in.OpenAIBaseURL, RetrievalMode: in.RetrievalMode,
		AnswerCache: in.AnswerCache, CrossSection: in.CrossSection, Theme: in.Theme,
		FollowOutsideLinks: in.FollowOutsideLinks, MaxAnswerTokens: in.MaxAnswerTokens, ConfirmRemote: in.ConfirmRemote,
	})
	if err != nil {
		return SaveResult{}, err
	}
	if res.OutsideLinksChanged {
		// Index (or drop) what links leading out of folders point to now.
		a.goCancellable(rescanKey, func(ctx context.Context) {
			if _, err := a.engine.Rescan(ctx, "", a.progressEmitter()); err != nil && ctx.Err() == nil {
				log.Printf("rescan after changing follow_outside_links: %v", err)
			}
		})
	}
	out := a.Settings()
	if len(res.RestartRequired) > 0 {
		// Show what was saved, not what still runs, for the fields pending a restart.
		out.OllamaHost, out.EmbedModelDir = res.Saved.OllamaHost, res.Saved.EmbedModelDir
		out.Provider, out.OpenAIBaseURL = res.Saved.Provider, res.Saved.OpenAIBaseURL
	}
	return SaveResult{Settings: out, RestartRequired: res.RestartRequired}, nil
}
