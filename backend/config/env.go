package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Environment variables understood by Footnote. Each is described once, in
// Vars, with its default and help; reading the environment, the CLI's usage
// text, the app's list of overridden settings and the README's table all come
// from there (TestREADMEListsEveryVariable holds the README to it).
const (
	EnvHome       = "FOOTNOTE_HOME"
	EnvEmbedModel = "FOOTNOTE_EMBED_MODEL"
	EnvLLMModel   = "FOOTNOTE_LLM_MODEL"
	EnvOllamaHost = "OLLAMA_HOST" // Ollama's own convention
	EnvProvider   = "FOOTNOTE_LLM_PROVIDER"
	EnvOpenAIURL  = "FOOTNOTE_OPENAI_BASE_URL"
	EnvOpenAIKey  = "FOOTNOTE_OPENAI_API_KEY" // never written to settings.json
	EnvTopK       = "FOOTNOTE_TOP_K"
	// EnvRerankModel names a cross-encoder folder; unset means no reranking.
	EnvRerankModel = "FOOTNOTE_RERANK_MODEL"
	// EnvVerification overrides verification: strict, warn or off.
	EnvVerification = "FOOTNOTE_VERIFICATION"
	// EnvVerifyModel names a cross-encoder folder (one label, or NLI
	// labels) used as the claim verifier's entailment model; unset means none.
	EnvVerifyModel = "FOOTNOTE_VERIFY_MODEL"
	// EnvStreamIdleTimeout overrides stream_idle_timeout_s (whole seconds).
	EnvStreamIdleTimeout = "FOOTNOTE_STREAM_IDLE_TIMEOUT_S"
	// EnvMaxAnswerTokens overrides max_answer_tokens.
	EnvMaxAnswerTokens = "FOOTNOTE_MAX_ANSWER_TOKENS"
	// EnvContextWindow overrides context_window.
	EnvContextWindow = "FOOTNOTE_CONTEXT_WINDOW"
	// EnvAllowRemote set to 1 lets this process send passages to a model
	// server that is not on this machine (OLLAMA_HOST or the OpenAI base URL
	// naming another host); without it such a server needs the consent
	// recorded by a confirmed save in Settings.
	EnvAllowRemote = "FOOTNOTE_ALLOW_REMOTE"
	// EnvLibrary names folders for the desktop app to index at start.
	EnvLibrary = "FOOTNOTE_LIBRARY"
)

// Var is one environment variable: its name, its default as shown to users,
// what it does, and the settings.json key it overrides ("" when it overrides
// none).
type Var struct {
	Name    string
	Default string
	Help    string
	Setting string
	// set applies a non-empty value to the settings; nil for variables read
	// elsewhere in this package (FOOTNOTE_HOME, FOOTNOTE_LIBRARY).
	set func(s *Settings, v string)
}

// noDefault is shown for a variable that is unset by default.
const noDefault = "—"

// Vars is the table of every variable Footnote reads, in the order the
// README and the usage text list them.
var Vars = []Var{
	{Name: EnvHome, Default: "~/.local/share/footnote",
		Help: "data folder (index `footnote.db`, settings, models)"},
	{Name: EnvEmbedModel, Default: "$FOOTNOTE_HOME/models/all-MiniLM-L6-v2", Setting: "embed_model_dir",
		Help: "embedding model folder (`model.onnx` + `tokenizer.json`)",
		set:  func(s *Settings, v string) { s.EmbedModelDir = v }},
	{Name: EnvLLMModel, Default: DefaultLLMModel, Setting: "llm_model",
		Help: "Ollama model",
		set:  func(s *Settings, v string) { s.LLMModel = v }},
	{Name: EnvOllamaHost, Default: "127.0.0.1:11434", Setting: "ollama_host",
		Help: "Ollama server",
		set:  func(s *Settings, v string) { s.OllamaHost = v }},
	{Name: EnvProvider, Default: ProviderOllama, Setting: "provider",
		Help: "`ollama` or `openai` (any OpenAI-compatible local server: LM Studio, llama.cpp, vLLM, Ollama's /v1)",
		set:  func(s *Settings, v string) { s.Provider = v }},
	{Name: EnvOpenAIURL, Default: noDefault, Setting: "openai_base_url",
		Help: "base URL of the OpenAI-compatible server",
		set:  func(s *Settings, v string) { s.OpenAIBaseURL, s.OpenAIBaseURLFromEnv = v, true }},
	{Name: EnvOpenAIKey, Default: noDefault,
		Help: "its key, if it needs one (never written to settings.json)",
		set:  func(s *Settings, v string) { s.OpenAIAPIKey = v }},
	{Name: EnvTopK, Default: strconv.Itoa(Defaults().TopK), Setting: "top_k",
		Help: "passages each retriever fetches before fusion (1..1000)",
		set:  setInt(func(s *Settings) *int { return &s.TopK })},
	{Name: EnvRerankModel, Default: noDefault + " (off)", Setting: "rerank_model_dir",
		Help: "cross-encoder folder (e.g. an ms-marco-MiniLM-L-6-v2 ONNX export) that reorders the top hits; `--rerank=false` on `search` skips it",
		set:  func(s *Settings, v string) { s.RerankModelDir = v }},
	{Name: EnvVerification, Default: Defaults().Verification, Setting: "verification",
		Help: "checks every claim against the passage it cites: `warn` (shows the answer and marks each claim its passage does not support) or `strict` (a claim that does not hold — unsupported, uncited, or partly supported without a number, date, code, name or negation it states — makes the answer not grounded, reason `unsupported_claim`), or `off`",
		set:  func(s *Settings, v string) { s.Verification = v }},
	{Name: EnvVerifyModel, Default: noDefault + " (off)", Setting: "verify_model_dir",
		Help: "optional cross-encoder folder used as claim verification's entailment model: a three-label NLI / fact-checking export (entailment, neutral, contradiction; `footnote model download --verify` fetches one) gives the entailment and contradiction signals, a one-label export the entailment signal; loaded at the first question",
		set:  func(s *Settings, v string) { s.VerifyModelDir = v }},
	{Name: EnvStreamIdleTimeout, Default: strconv.Itoa(Defaults().StreamIdleTimeoutS), Setting: "stream_idle_timeout_s",
		Help: "seconds without a token before a started answer is cut and kept as incomplete (0 = never)",
		set:  setInt(func(s *Settings) *int { return &s.StreamIdleTimeoutS })},
	{Name: EnvMaxAnswerTokens, Default: strconv.Itoa(DefaultMaxAnswerTokens), Setting: "max_answer_tokens",
		Help: "longest answer (16..131072 tokens): sent as `num_predict` / `max_tokens`, lowered to what the context window leaves after the prompt, and enforced while streaming (one streamed chunk counts as a token, and the answer is also held to 32 bytes a token), since a server may ignore it; a longer answer is cut there and kept as incomplete with a note. Also on the Settings screen (`max_answer_tokens`)",
		set:  setInt(func(s *Settings) *int { return &s.MaxAnswerTokens })},
	{Name: EnvContextWindow, Default: strconv.Itoa(DefaultContextWindow), Setting: "context_window",
		Help: "context window (tokens) assumed for an OpenAI-compatible server that does not report the one it runs the model with; vLLM, LM Studio, llama.cpp and Ollama report theirs, and every answer records the window used and where it came from (`generation.context_window`, `context_source`). Also `context_window` in `settings.json`",
		set:  setInt(func(s *Settings) *int { return &s.ContextWindow })},
	{Name: EnvAllowRemote, Default: noDefault,
		Help: "`1` lets this process send passages to a model server that is not on this machine (anything but `localhost`, 127.0.0.0/8 and `::1`), e.g. one named by `OLLAMA_HOST` or `FOOTNOTE_OPENAI_BASE_URL`; never saved",
		set:  func(s *Settings, v string) { s.AllowRemote = v == "1" }},
	{Name: EnvLibrary, Default: noDefault,
		Help: "the desktop app indexes these folders (separated like `PATH`) at start; `make run` points it at the sample library"},
}

// setInt sets an int setting from a value that parses as one; other values
// are ignored and the setting keeps what settings.json or the default gave.
func setInt(field func(*Settings) *int) func(*Settings, string) {
	return func(s *Settings, v string) {
		if n, err := strconv.Atoi(v); err == nil {
			*field(s) = n
		}
	}
}

// applyEnv applies every set variable of the table to s.
func applyEnv(s *Settings) {
	for _, v := range Vars {
		if val := os.Getenv(v.Name); val != "" && v.set != nil {
			v.set(s, val)
		}
	}
}

// Overridden lists the settings.json keys whose value the environment
// replaces in this process, in table order.
func Overridden() []string {
	var out []string
	for _, v := range Vars {
		if v.Setting != "" && os.Getenv(v.Name) != "" {
			out = append(out, v.Setting)
		}
	}
	return out
}

// Library returns the folders FOOTNOTE_LIBRARY names (none when unset).
func Library() []string {
	lib := os.Getenv(EnvLibrary)
	if lib == "" {
		return nil
	}
	return filepath.SplitList(lib)
}

// EnvUsage renders the table for a command's usage text: one variable a
// paragraph, its help (Markdown quotes removed) and default.
func EnvUsage() string {
	var b strings.Builder
	for _, v := range Vars {
		text := strings.ReplaceAll(v.Help, "`", "")
		switch d := strings.ReplaceAll(v.Default, "`", ""); {
		case d == noDefault:
		case strings.HasPrefix(d, noDefault+" ("): // "— (off)"
			text += " (default: " + strings.TrimSuffix(strings.TrimPrefix(d, noDefault+" ("), ")") + ")"
		default:
			text += " (default: " + d + ")"
		}
		fmt.Fprintf(&b, "  %s\n", v.Name)
		line := ""
		for _, word := range strings.Fields(text) {
			if line != "" && len(line)+1+len(word) > 72 {
				fmt.Fprintf(&b, "      %s\n", line)
				line = ""
			}
			line = strings.TrimPrefix(line+" "+word, " ")
		}
		fmt.Fprintf(&b, "      %s\n", line)
	}
	return b.String()
}
