package embed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

type modelConfig struct {
	HiddenSize            int    `json:"hidden_size"`
	MaxPositionEmbeddings int    `json:"max_position_embeddings"`
	NameOrPath            string `json:"_name_or_path"`
}

// PrefixFile is Footnote's own per-model file naming the texts put before
// queries and passages: {"query_prefix": "query: ", "passage_prefix": "passage: "}.
const PrefixFile = "footnote.json"

// readPrefixes finds the query and passage prefixes a model was trained
// with. In order: PrefixFile; sentence-transformers' prompts in
// config_sentence_transformers.json ("query", and "passage" or
// "document"); and the E5 family's documented "query: "/"passage: " when
// the folder or model name says e5. Models without any get none.
func readPrefixes(dir string, cfg modelConfig) (query, passage string) {
	var own struct {
		Query   *string `json:"query_prefix"`
		Passage *string `json:"passage_prefix"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, PrefixFile)); err == nil && json.Unmarshal(data, &own) == nil &&
		(own.Query != nil || own.Passage != nil) {
		if own.Query != nil {
			query = *own.Query
		}
		if own.Passage != nil {
			passage = *own.Passage
		}
		return query, passage
	}
	var st struct {
		Prompts map[string]string `json:"prompts"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, "config_sentence_transformers.json")); err == nil &&
		json.Unmarshal(data, &st) == nil && len(st.Prompts) > 0 {
		passage = st.Prompts["passage"]
		if passage == "" {
			passage = st.Prompts["document"]
		}
		return st.Prompts["query"], passage
	}
	for _, name := range []string{filepath.Base(filepath.Clean(dir)), cfg.NameOrPath} {
		if isE5Name(name) {
			return "query: ", "passage: "
		}
	}
	return "", ""
}

// isE5Name matches model names like "multilingual-e5-small" or "e5-base-v2".
func isE5Name(name string) bool {
	name = strings.ToLower(filepath.Base(name))
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if part == "e5" {
			return true
		}
	}
	return false
}

// readModelConfig reads config.json if present; a missing or odd file just
// means fewer limits are known.
func readModelConfig(dir string) modelConfig {
	var cfg modelConfig
	if data, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
		_ = json.Unmarshal(data, &cfg)
	}
	return cfg
}
