// Package embedtest makes a small, deterministic BERT-shaped embedding model
// for tests and demos: an ONNX encoder plus a WordPiece tokenizer, laid out
// like a Hugging Face export so the real loading and inference code runs on
// it. Its vectors behave like bag-of-words averages, so texts that share
// words come out similar, which is enough for retrieval tests.
package embedtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// ModelSrcEnv names a model folder that Dir returns instead of the tiny model,
// so the same tests can run against a real-sized model.
const ModelSrcEnv = "MODEL_SRC"

// MaxTokens is the tiny model's input limit, special tokens included.
const MaxTokens = maxPositions

// WriteTinyModel writes the tiny model's files into dir, creating it if
// needed. Files already holding the expected bytes are left alone; others
// are written to a temporary file and renamed into place.
func WriteTinyModel(dir string) error {
	files, err := tinyModelFiles()
	if err != nil {
		return fmt.Errorf("build tiny model: %w", err)
	}
	return writeFolder(dir, files)
}

// writeFolder creates dir if needed and writes files into it in order
// (model.onnx last, so a folder with a model file is complete).
func writeFolder(dir string, files []file) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create model folder %s: %w", dir, err)
	}
	for _, f := range files {
		if err := writeIfChanged(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

// Dir returns a model folder for tests: $MODEL_SRC when set, otherwise the
// tiny model, written once per test binary. The tiny model goes to a fixed
// folder under the system temp dir so parallel test binaries share it; the
// writes are idempotent and atomic, so that is safe.
func Dir(tb testing.TB) string {
	tb.Helper()
	if src := os.Getenv(ModelSrcEnv); src != "" {
		if _, err := os.Stat(filepath.Join(src, "model.onnx")); err != nil {
			tb.Fatalf("%s=%s is not a model folder: %v", ModelSrcEnv, src, err)
		}
		return src
	}
	return TinyDir(tb)
}

// TinyDir always returns the generated tiny model, whatever MODEL_SRC says:
// quality gates are calibrated on it because its vectors carry lexical
// meaning, while random-weight models make retrieval scores noise.
func TinyDir(tb testing.TB) string {
	tb.Helper()
	return tinyModel.get(tb)
}

var tinyModel = sharedFolder("tiny model", "footnote-embedtest-v1", WriteTinyModel)

// sharedModel is a generated model folder written once per test binary to a
// fixed folder under the system temp dir, so parallel test binaries share
// it; the writes are idempotent and atomic, so that is safe.
type sharedModel struct {
	what  string
	write func() (string, error)
}

func sharedFolder(what, name string, write func(dir string) error) sharedModel {
	return sharedModel{what: what, write: sync.OnceValues(func() (string, error) {
		dir := filepath.Join(os.TempDir(), name+"-"+strconv.Itoa(os.Getuid()))
		return dir, write(dir)
	})}
}

func (m sharedModel) get(tb testing.TB) string {
	tb.Helper()
	dir, err := m.write()
	if err != nil {
		tb.Fatalf("write %s: %v", m.what, err)
	}
	return dir
}

type file struct {
	name string
	data []byte
}

func tinyModelFiles() ([]file, error) {
	vocab := vocabulary()
	var zeroIDs []int
	for id, tok := range vocab[:len(specialTokens)] {
		if tok != "[UNK]" {
			zeroIDs = append(zeroIDs, id)
		}
	}
	onnx, err := buildModel(len(vocab), zeroIDs)
	if err != nil {
		return nil, fmt.Errorf("encode onnx: %w", err)
	}
	tok, err := tokenizerJSON(vocab)
	if err != nil {
		return nil, err
	}
	var vocabTxt bytes.Buffer
	for _, t := range vocab {
		vocabTxt.WriteString(t)
		vocabTxt.WriteByte('\n')
	}
	config, err := indentJSON(map[string]any{
		"_name_or_path":                "footnote-tiny-test",
		"architectures":                []string{"BertModel"},
		"attention_probs_dropout_prob": 0.1,
		"hidden_act":                   "gelu",
		"hidden_dropout_prob":          0.1,
		"hidden_size":                  hiddenSize,
		"initializer_range":            layerScale,
		"intermediate_size":            ffnSize,
		"layer_norm_eps":               layerNormEps,
		"max_position_embeddings":      maxPositions,
		"model_type":                   "bert",
		"num_attention_heads":          numHeads,
		"num_hidden_layers":            1,
		"pad_token_id":                 0,
		"position_embedding_type":      "absolute",
		"type_vocab_size":              2,
		"vocab_size":                   len(vocab),
	})
	if err != nil {
		return nil, err
	}
	special := map[string]any{
		"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]", "sep_token": "[SEP]", "unk_token": "[UNK]",
	}
	specialMap, err := indentJSON(special)
	if err != nil {
		return nil, err
	}
	tokConfig, err := tokenizerConfig(map[string]any{
		"clean_up_tokenization_spaces": true,
		"do_basic_tokenize":            true,
		"do_lower_case":                true,
		"model_max_length":             maxPositions,
		"strip_accents":                true,
		"tokenize_chinese_chars":       true,
		"tokenizer_class":              "BertTokenizer",
	}, special)
	if err != nil {
		return nil, err
	}
	return modelFolder(config, specialMap, tokConfig, tok, vocabTxt.Bytes(), onnx), nil
}

// tokenizerConfig is tokenizer_config.json: settings and the special tokens.
func tokenizerConfig(settings, special map[string]any) ([]byte, error) {
	for k, v := range special {
		settings[k] = v
	}
	return indentJSON(settings)
}

// modelFolder lists a model folder's files in writing order; vocab.txt
// only when vocabTxt is not nil.
func modelFolder(config, specialTokens, tokenizerConfig, tokenizer, vocabTxt, onnx []byte) []file {
	files := []file{
		{"config.json", config},
		{"special_tokens_map.json", specialTokens},
		{"tokenizer_config.json", tokenizerConfig},
		{"tokenizer.json", tokenizer},
	}
	if vocabTxt != nil {
		files = append(files, file{"vocab.txt", vocabTxt})
	}
	// model.onnx last: its presence marks a complete folder to loaders.
	return append(files, file{"model.onnx", onnx})
}

// orderedVocab marshals as a JSON object in id order, like Hugging Face
// writes it (a Go map would come out sorted by token).
type orderedVocab []string

func (v orderedVocab) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for id, tok := range v {
		if id > 0 {
			buf.WriteByte(',')
		}
		key, err := json.Marshal(tok)
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		buf.WriteString(strconv.Itoa(id))
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

func tokenizerJSON(vocab []string) ([]byte, error) {
	id := map[string]int{}
	for i, t := range vocab {
		id[t] = i
	}
	var added []addedToken
	for _, t := range specialTokens {
		added = append(added, addedToken{ID: id[t], Content: t, Special: true})
	}
	special := func(tok string, typeID int) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": tok, "type_id": typeID}}
	}
	seq := func(name string, typeID int) map[string]any {
		return map[string]any{"Sequence": map[string]any{"id": name, "type_id": typeID}}
	}
	doc := struct {
		Version       string         `json:"version"`
		Truncation    map[string]any `json:"truncation"`
		Padding       any            `json:"padding"`
		AddedTokens   []addedToken   `json:"added_tokens"`
		Normalizer    map[string]any `json:"normalizer"`
		PreTokenizer  map[string]any `json:"pre_tokenizer"`
		PostProcessor map[string]any `json:"post_processor"`
		Decoder       map[string]any `json:"decoder"`
		Model         struct {
			Type                    string       `json:"type"`
			UnkToken                string       `json:"unk_token"`
			ContinuingSubwordPrefix string       `json:"continuing_subword_prefix"`
			MaxInputCharsPerWord    int          `json:"max_input_chars_per_word"`
			Vocab                   orderedVocab `json:"vocab"`
		} `json:"model"`
	}{
		Version: "1.0",
		Truncation: map[string]any{
			"direction": "Right", "max_length": maxPositions, "strategy": "LongestFirst", "stride": 0,
		},
		AddedTokens: added,
		Normalizer: map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "NFD"},
			map[string]any{
				"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
				"strip_accents": true, "lowercase": true,
			},
		}},
		PreTokenizer: map[string]any{"type": "BertPreTokenizer"},
		PostProcessor: map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)},
			"pair":   []any{special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)},
			"special_tokens": map[string]any{
				"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{id["[CLS]"]}, "tokens": []string{"[CLS]"}},
				"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{id["[SEP]"]}, "tokens": []string{"[SEP]"}},
			},
		},
		Decoder: map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
	}
	doc.Model.Type = "WordPiece"
	doc.Model.UnkToken = "[UNK]"
	doc.Model.ContinuingSubwordPrefix = "##"
	doc.Model.MaxInputCharsPerWord = 100
	doc.Model.Vocab = vocab
	return indentJSON(doc)
}

func indentJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return append(data, '\n'), nil
}

// writeIfChanged replaces path with data via a temp file and rename, so
// readers never see a half-written file; identical content is not rewritten.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
