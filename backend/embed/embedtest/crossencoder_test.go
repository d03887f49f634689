package embedtest

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

func TestWriteTinyCrossEncoder(t *testing.T) {
	a, b, enc := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b"), filepath.Join(t.TempDir(), "enc")
	for _, dir := range []string{a, b} {
		if err := WriteTinyCrossEncoder(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteTinyModel(enc); err != nil {
		t.Fatal(err)
	}
	fa, fb, fe := readAll(t, a), readAll(t, b), readAll(t, enc)
	if len(fa) != len(fe) {
		t.Fatalf("cross-encoder folder has %d files, the embedding model %d", len(fa), len(fe))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two generations", name)
		}
		// The tokenizer is shared; the graph and config are the classifier's.
		same := name != "model.onnx" && name != "config.json"
		if bytes.Equal(data, fe[name]) != same {
			t.Errorf("%s: shared with the embedding model = %v, want %v", name, !same, same)
		}
	}

	var cfg struct {
		Architectures []string          `json:"architectures"`
		ID2Label      map[string]string `json:"id2label"`
		MaxPositions  int               `json:"max_position_embeddings"`
	}
	if err := json.Unmarshal(fa["config.json"], &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Architectures) != 1 || cfg.Architectures[0] != "BertForSequenceClassification" || len(cfg.ID2Label) != 1 || cfg.MaxPositions != MaxTokens {
		t.Errorf("config.json is not a one-label classifier's: %+v", cfg)
	}

	m := &protos.ModelProto{}
	if err := proto.Unmarshal(fa["model.onnx"], m); err != nil {
		t.Fatal(err)
	}
	if len(m.Graph.Output) != 1 || m.Graph.Output[0].Name != "logits" {
		t.Fatalf("outputs %v, want logits only", m.Graph.Output)
	}
	dims := m.Graph.Output[0].GetType().GetTensorType().GetShape().GetDim()
	if len(dims) != 2 || dims[0].GetDimParam() != "batch_size" || dims[1].GetDimValue() != 1 {
		t.Errorf("logits shape %v, want [batch_size, 1]", dims)
	}
	names := map[string]bool{}
	for _, n := range m.Graph.Node {
		if names[n.Name] {
			t.Errorf("node name %s used twice", n.Name)
		}
		names[n.Name] = true
	}
}
