// Package config owns Footnote's settings: where data lives, which models to
// use, and the knobs of retrieval and answering. Environment variables are
// read here and nowhere else; a settings.json in the data folder holds what
// the user chose in the app, and the environment overrides it.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/footnote-app/footnote/backend/atomicfile"
)

// LLM providers: Ollama's native API, or any OpenAI-compatible local server
// (LM Studio, llama.cpp server, vLLM).
const (
	ProviderOllama = "ollama"
	ProviderOpenAI = "openai"
)

// DefaultWordMatchGate is the score gate (rag/gate.go): the least word
// match — the share of the question's key words, weighted by their rarity in
// the library, that the best passage holds — before the model is called.
// It refuses questions the library holds next to nothing of, and no
// answerable question whose gold passage retrieval found first: the lowest
// word match of such questions was 0.152 on the SQuAD 2.0 extract
// (bench/data/squad2, 224 of 287 answerable) and 0.533 on the sample
// library's gold set (37 of 40), so the gate sits a third below that
// (bench/answerability, docs/evaluation.md). It replaces a gate on the
// fused rank score, which in hybrid mode refused by whether the vector list
// happened to rank the lexical list's first hit too.
const DefaultWordMatchGate = 0.1

// DefaultMinRareTermShare is the answerability gate's default: the best
// passage must hold more than half of the question's rare words (in at most
// a tenth of the index's passages). It is the strictest value at which a
// model that answers whenever it gets evidence stays within the
// conventional over-refusal gate (0.25) on both sets it was chosen on
// (bench/answerability, tiny test model; over- / under-refusal): the sample
// gold set plus 50 near-topic unanswerable questions, 0.075/0.300 at 0.5,
// 0.100/0.086 at 0.55, 0.175/0.014 at 0.7; the SQuAD 2.0 dev extract,
// 0.160/0.785, 0.233/0.676, 0.418/0.477. On the SQuAD 2.0 held-out
// extract, a library of 231 passages where nearly every word is rare, it
// then refused more answerable than unanswerable questions; since, a rare
// word the library uses elsewhere counts a quarter held
// (rag.usedElsewhereWeight, docs/evaluation.md). While on, the gate also
// refuses a question asking what is not so that no passage holding its
// words negates, and one about a year or rank no passage states while the
// best one states another (rag/questioncues.go).
const DefaultMinRareTermShare = 0.55

// DefaultDeltaSGate: a best passage nearer to the question than 95% of
// unrelated passages are to a question of theirs counts as evidence for the
// score gate (rag/deltas.go, rag/gate.go). ΔS never refuses on its own: with
// the random-weight models the tests can use, the calibration finds no
// separation on the sample library, but minilm-l6-random "separated" at
// 0.57 on the SQuAD 2.0 extract, where as a gate it refused 10 answerable
// questions whose gold paragraph was the first hit.
const DefaultDeltaSGate = 0.95

// DefaultMaxAnswerTokens bounds an answer: Footnote's answers are a few
// cited sentences, and a model that runs on past this is looping or
// rambling.
const DefaultMaxAnswerTokens = 1024

// DefaultContextWindow is the context window assumed when a server does
// not report its own: small enough for the default of common servers.
const DefaultContextWindow = 4096

// DefaultLLMModel is a small instruction model most Ollama users have or can pull quickly.
const DefaultLLMModel = "llama3.2:3b"

// Settings are the user-visible knobs. JSON names are the settings.json keys.
type Settings struct {
	EmbedModelDir string `json:"embed_model_dir"`
	LLMModel      string `json:"llm_model"`
	OllamaHost    string `json:"ollama_host"`
	TopK          int    `json:"top_k"`          // candidates fetched per retriever
	RRFK          int    `json:"rrf_k"`          // reciprocal rank fusion constant
	EvidenceK     int    `json:"evidence_k"`     // most chunks packed into a prompt
	ContextTokens int    `json:"context_tokens"` // token budget for packed evidence
	// WordMatchGate is the score gate: the least word match of the best
	// passage to call the LLM (0 = off).
	WordMatchGate float64 `json:"word_match_gate"`
	// MinRareTermShare is the answerability gate: the least share of the
	// question's rare words the best passages must hold (0 = off, and with
	// it the gate's checks of a negation or a year the question names).
	MinRareTermShare float64 `json:"min_rare_term_share"`
	// DeltaSGate is the ΔS setting (rag/deltas.go): the quantile of
	// unrelated passages' margins a best passage must beat to count as
	// evidence for the score gate; 0 records ΔS only. It acts only when the
	// embedding model separates passages on the library's own text.
	DeltaSGate    float64 `json:"delta_s_gate"`
	ChunkTokens   int     `json:"chunk_tokens"`
	OverlapTokens int     `json:"overlap_tokens"`

	Provider      string `json:"provider"`        // "ollama" (default) or "openai"
	OpenAIBaseURL string `json:"openai_base_url"` // e.g. http://127.0.0.1:1234/v1 (LM Studio)
	OpenAIAPIKey  string `json:"-"`               // from FOOTNOTE_OPENAI_API_KEY only
	// OpenAIBaseURLFromEnv: openai_base_url was set by FOOTNOTE_OPENAI_BASE_URL,
	// so messages about the address name that variable.
	OpenAIBaseURLFromEnv bool `json:"-"`
	// ContextWindow is the window assumed for an OpenAI-compatible server
	// that does not report the one it runs the model with: conservative,
	// since a server silently drops what does not fit.
	ContextWindow int `json:"context_window"`
	// NumCtx is the context window requested from an Ollama model
	// (options.num_ctx) when its Modelfile sets none and it is not loaded
	// yet, capped at the model's trained length; otherwise the Modelfile's
	// or the loaded window is sent. Ollama silently drops the start of
	// prompts longer than its window, and loads the model again when num_ctx
	// changes, so Footnote sends one window with every request.
	NumCtx              int `json:"num_ctx"`
	AnswerReserveTokens int `json:"answer_reserve_tokens"` // context kept free for the answer
	Seed                int `json:"seed"`                  // fixed sampling seed (with temperature 0) for repeatable answers
	FirstTokenTimeoutS  int `json:"first_token_timeout_s"` // give up when the model has not started answering
	StreamIdleTimeoutS  int `json:"stream_idle_timeout_s"` // give up when a started answer goes silent this long
	// MaxAnswerTokens is the longest answer: sent as num_predict (Ollama) or
	// max_tokens (OpenAI-compatible) and enforced while the answer streams,
	// since a server may ignore it.
	MaxAnswerTokens int `json:"max_answer_tokens"`
	// RemoteServerConsent is the model server on another machine the user
	// confirmed passages may be sent to (written by a confirmed save only).
	RemoteServerConsent string `json:"remote_server_consent,omitempty"`
	// AllowRemote is consent for this process only: FOOTNOTE_ALLOW_REMOTE=1
	// or the CLI's --allow-remote. Never written to settings.json.
	AllowRemote bool `json:"-"`

	// Choices made on the Settings screen.
	RetrievalMode string `json:"retrieval_mode"` // "hybrid" (default), "lexical" or "vector"
	AnswerCache   bool   `json:"answer_cache"`   // serve repeated questions from the disclosed answer cache
	CrossSection  string `json:"cross_section"`  // "allow" (default) or "forbid": may one sentence cite several sections
	Theme         string `json:"theme"`          // "system" (default), "light" or "dark"
	// FollowOutsideLinks indexes what links inside a folder point to outside
	// it; off (the default), such links are skipped with a reason.
	FollowOutsideLinks bool `json:"follow_outside_links"`

	// RerankModelDir is a cross-encoder folder (model.onnx + tokenizer.json)
	// that reorders the top RerankTop fused hits; empty turns reranking off.
	RerankModelDir string `json:"rerank_model_dir,omitempty"`
	RerankTop      int    `json:"rerank_top,omitempty"` // hits reranked (0 = 20)

	// Verification checks each claim of an answer against the passage it
	// cites: "warn" (default) shows the answer and marks a claim its passage
	// does not support (or no citation covers), "strict" refuses to call
	// an answer grounded unless every claim holds (verify.Result.Holds),
	// "off" does not check. Warn is the default because on claims people
	// wrote and labelled (bench/claims) no strict rule keeps both errors
	// low: strict turns 22% of correct answers into "Not answered" on
	// Factcheck-GPT (39% on WiCE test) and still keeps 31% of false claims
	// grounded there.
	Verification string `json:"verification"`
	// VerifyModelDir is a cross-encoder folder (model.onnx +
	// tokenizer.json + config.json) scoring whether a passage sentence
	// entails a claim: one label, or NLI labels (entailment, neutral,
	// contradiction) that also tell contradiction; empty verifies without
	// an entailment model.
	VerifyModelDir string `json:"verify_model_dir,omitempty"`
}

// Defaults are chosen for a laptop and a small local model.
func Defaults() Settings {
	return Settings{
		LLMModel:         DefaultLLMModel,
		TopK:             20,
		RRFK:             60,
		EvidenceK:        6,
		ContextTokens:    1800,
		WordMatchGate:    DefaultWordMatchGate,
		MinRareTermShare: DefaultMinRareTermShare,
		DeltaSGate:       DefaultDeltaSGate,
		ChunkTokens:      200,
		OverlapTokens:    30,

		Provider:            ProviderOllama,
		OpenAIBaseURL:       "http://127.0.0.1:1234/v1",
		NumCtx:              8192,
		ContextWindow:       DefaultContextWindow,
		AnswerReserveTokens: 512,
		Seed:                42,
		FirstTokenTimeoutS:  120,
		StreamIdleTimeoutS:  60,
		MaxAnswerTokens:     DefaultMaxAnswerTokens,

		RetrievalMode: "hybrid",
		AnswerCache:   true,
		CrossSection:  "allow",
		Theme:         "system",
		Verification:  "warn",
	}
}

// Config is everything a Footnote process needs to start.
type Config struct {
	Home     string // data folder
	Settings Settings
}

// DBPath is the index file inside the data folder.
func (c Config) DBPath() string { return filepath.Join(c.Home, "footnote.db") }

// SettingsPath is where the app saves user choices.
func (c Config) SettingsPath() string { return filepath.Join(c.Home, "settings.json") }

// ModelsDir is where downloaded embedding models are kept.
func (c Config) ModelsDir() string { return filepath.Join(c.Home, "models") }

// Load resolves the data folder, reads settings.json if present and applies
// environment overrides. It does not create anything on disk.
func Load() (Config, error) {
	home, err := homeDir()
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Home: home, Settings: Defaults()}
	raw, err := os.ReadFile(cfg.SettingsPath())
	switch {
	case err == nil:
		if err := json.Unmarshal(raw, &cfg.Settings); err != nil {
			return Config{}, fmt.Errorf("read settings %s: %w (fix the JSON or delete the file to restore defaults)", cfg.SettingsPath(), err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return Config{}, fmt.Errorf("read settings %s: %w", cfg.SettingsPath(), err)
	}
	applyEnv(&cfg.Settings)
	if cfg.Settings.EmbedModelDir == "" {
		cfg.Settings.EmbedModelDir = filepath.Join(cfg.ModelsDir(), "all-MiniLM-L6-v2")
	}
	return cfg, cfg.Settings.Validate()
}

// Save replaces settings.json through a flushed temporary file, so a crash
// or power cut leaves the old or the new settings, never a torn file.
func (c Config) Save() error {
	if err := os.MkdirAll(c.Home, 0o755); err != nil {
		return fmt.Errorf("create data folder %s: %w", c.Home, err)
	}
	raw, err := json.MarshalIndent(c.Settings, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(c.SettingsPath(), raw, 0o644); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// Validate rejects settings that would make retrieval or answering misbehave.
func (s Settings) Validate() error {
	switch {
	case s.TopK < 1 || s.TopK > 1000:
		return fmt.Errorf("setting top_k=%d is out of range 1..1000", s.TopK)
	case s.RRFK < 1:
		return fmt.Errorf("setting rrf_k=%d must be at least 1", s.RRFK)
	case s.EvidenceK < 1:
		return fmt.Errorf("setting evidence_k=%d must be at least 1", s.EvidenceK)
	case s.ContextTokens < 64:
		return fmt.Errorf("setting context_tokens=%d is too small (at least 64)", s.ContextTokens)
	case s.WordMatchGate < 0 || s.WordMatchGate > 1:
		return fmt.Errorf("setting word_match_gate=%g must be within 0..1 (0 turns the score gate off)", s.WordMatchGate)
	case s.DeltaSGate < 0 || s.DeltaSGate >= 1:
		return fmt.Errorf("setting delta_s_gate=%g must be within 0..1 (0 records ΔS only)", s.DeltaSGate)
	case s.MinRareTermShare < 0 || s.MinRareTermShare > 1:
		return fmt.Errorf("setting min_rare_term_share=%g must be within 0..1 (0 turns the answerability gate off)", s.MinRareTermShare)
	case s.ChunkTokens < 16:
		return fmt.Errorf("setting chunk_tokens=%d is too small (at least 16)", s.ChunkTokens)
	case s.OverlapTokens < 0 || s.OverlapTokens >= s.ChunkTokens:
		return fmt.Errorf("setting overlap_tokens=%d must be within 0..chunk_tokens-1", s.OverlapTokens)
	case s.Provider != ProviderOllama && s.Provider != ProviderOpenAI:
		return fmt.Errorf("setting provider=%q must be %q or %q", s.Provider, ProviderOllama, ProviderOpenAI)
	case s.Provider == ProviderOpenAI && s.OpenAIBaseURL == "":
		return fmt.Errorf("setting openai_base_url is empty: set it to your server, e.g. http://127.0.0.1:1234/v1")
	case s.NumCtx < 256:
		return fmt.Errorf("setting num_ctx=%d is too small (at least 256)", s.NumCtx)
	case s.AnswerReserveTokens < 16 || s.AnswerReserveTokens >= s.NumCtx:
		return fmt.Errorf("setting answer_reserve_tokens=%d must be within 16..num_ctx-1", s.AnswerReserveTokens)
	case s.ContextWindow != 0 && (s.ContextWindow < 256 || s.AnswerReserveTokens >= s.ContextWindow):
		return fmt.Errorf("setting context_window=%d must be at least 256 and above answer_reserve_tokens (%s)", s.ContextWindow, EnvContextWindow)
	case s.MaxAnswerTokens < 16 || s.MaxAnswerTokens > 131072:
		return fmt.Errorf("setting max_answer_tokens=%d is out of range 16..131072", s.MaxAnswerTokens)
	case s.RerankTop < 0 || s.RerankTop > 1000:
		return fmt.Errorf("setting rerank_top=%d is out of range 0..1000 (0 uses the default)", s.RerankTop)
	case s.FirstTokenTimeoutS < 0:
		return fmt.Errorf("setting first_token_timeout_s=%d must not be negative (0 waits forever)", s.FirstTokenTimeoutS)
	case s.StreamIdleTimeoutS < 0:
		return fmt.Errorf("setting stream_idle_timeout_s=%d must not be negative (0 waits forever)", s.StreamIdleTimeoutS)
	case !slices.Contains([]string{"", "hybrid", "lexical", "vector"}, s.RetrievalMode):
		return fmt.Errorf("setting retrieval_mode=%q must be hybrid, lexical or vector", s.RetrievalMode)
	case !slices.Contains([]string{"", "allow", "forbid"}, s.CrossSection):
		return fmt.Errorf("setting cross_section=%q must be allow or forbid", s.CrossSection)
	case !slices.Contains([]string{"", "system", "light", "dark"}, s.Theme):
		return fmt.Errorf("setting theme=%q must be system, light or dark", s.Theme)
	case !slices.Contains([]string{"", "strict", "warn", "off"}, s.Verification):
		return fmt.Errorf("setting verification=%q must be strict, warn or off (%s)", s.Verification, EnvVerification)
	}
	return nil
}

func homeDir() (string, error) {
	if v := os.Getenv(EnvHome); v != "" {
		return filepath.Abs(v)
	}
	base, err := os.UserConfigDir()
	if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" {
		base, err = xdg, nil
	} else if h, herr := os.UserHomeDir(); herr == nil && isLinuxLike() {
		base, err = filepath.Join(h, ".local", "share"), nil
	}
	if err != nil {
		return "", fmt.Errorf("find a data folder: %w (set %s)", err, EnvHome)
	}
	return filepath.Join(base, "footnote"), nil
}
