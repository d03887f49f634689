package embedtest

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
	"google.golang.org/protobuf/proto"
)

func TestWriteNLIModel(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	labels := []string{"entailment", "neutral", "contradiction"}
	for _, dir := range []string{a, b} {
		if err := WriteNLIModel(dir, NLIOptions{Labels: labels, Bias: map[string]float32{"entailment": 2}}); err != nil {
			t.Fatal(err)
		}
	}
	fa, fb := readAll(t, a), readAll(t, b)
	for _, name := range []string{"config.json", "model.onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"} {
		if len(fa[name]) == 0 || !bytes.Equal(fa[name], fb[name]) {
			t.Errorf("%s missing, empty or different between two generations", name)
		}
	}

	var cfg struct {
		Architectures []string          `json:"architectures"`
		ID2Label      map[string]string `json:"id2label"`
		Positions     int               `json:"max_position_embeddings"`
		PadID         int               `json:"pad_token_id"`
		ModelType     string            `json:"model_type"`
	}
	if err := json.Unmarshal(fa["config.json"], &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Architectures[0] != "RobertaForSequenceClassification" || cfg.ModelType != "roberta" || cfg.Positions != 514 || cfg.PadID != 1 ||
		cfg.ID2Label["0"] != "entailment" || cfg.ID2Label["1"] != "neutral" || cfg.ID2Label["2"] != "contradiction" {
		t.Errorf("config.json is not a three-label RoBERTa classifier's in the given order: %+v", cfg)
	}

	m := &protos.ModelProto{}
	if err := proto.Unmarshal(fa["model.onnx"], m); err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, in := range m.Graph.Input {
		inputs = append(inputs, in.Name)
	}
	if !slices.Equal(inputs, []string{"input_ids", "attention_mask"}) {
		t.Errorf("inputs %v, want RoBERTa's input_ids and attention_mask", inputs)
	}
	dims := m.Graph.Output[0].GetType().GetTensorType().GetShape().GetDim()
	if len(m.Graph.Output) != 1 || m.Graph.Output[0].Name != "logits" || len(dims) != 2 || dims[1].GetDimValue() != 3 {
		t.Errorf("outputs %v, want logits [batch_size, 3]", m.Graph.Output)
	}
	ops := map[string]bool{}
	for _, n := range m.Graph.Node {
		ops[n.OpType] = true
	}
	for _, op := range []string{"CumSum", "Tanh", "Softmax", "Erf"} {
		if !ops[op] {
			t.Errorf("graph has no %s node: not the RoBERTa classifier's shape", op)
		}
	}
}

// Every listed word is one token, with or without its leading space and
// capitalised; other words fall back to pieces; pairs are RoBERTa's.
func TestNLITokenizer(t *testing.T) {
	v := buildBPE()
	data, err := bpeTokenizerJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := hftokenizer.NewFromContent(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := tok.With(api.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	id := func(s string) int { return slices.Index(v.tokens, s) }
	words := strings.Fields(commonWords)
	text := strings.Join(words, " ")
	got := tok.Encode(text)
	if len(got) != len(words) {
		t.Fatalf("%d listed words encode to %d tokens", len(words), len(got))
	}
	for i, w := range words {
		want := "Ġ" + w
		if i == 0 {
			want = w
		}
		if got[i] != id(want) {
			t.Errorf("word %q encodes to id %d, want %q (%d)", w, got[i], want, id(want))
		}
	}
	if got := tok.Encode("Install Linux"); !slices.Equal(got, []int{id("Install"), id("ĠLinux")}) {
		t.Errorf("capitalised words encode to %v", got)
	}
	if got := tok.Encode("zqxj"); len(got) < 2 {
		t.Errorf("an unlisted word encodes to %v, want byte pieces", got)
	}
	if err := tok.With(api.EncodeOptions{AddSpecialTokens: true}); err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode(""); !slices.Equal(got, []int{0, 2}) {
		t.Errorf("empty text wraps as %v, want <s> </s> (0 2)", got)
	}
}
