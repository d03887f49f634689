package embedtest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// The tiny cross-encoder is the tiny embedding model's encoder with a
// sequence-classification head that outputs one logit per (query, passage)
// pair, like a Hugging Face BertForSequenceClassification export with
// num_labels=1. Its head scores query-term coverage: for every query token
// it takes the best cosine match among the passage's tokens and averages
// them. The word vectors are near-orthogonal, so a query word present in
// the passage contributes about 1 and an absent one about 0.25; the logit
// therefore ranks passages by how many query words they contain, which
// tests can predict without running the model.
const (
	coverageScale = 10 // logit = coverageScale·coverage + coverageBias
	coverageBias  = -5
)

// WriteTinyCrossEncoder writes the tiny cross-encoder's files into dir
// (created if needed), with the same atomic, idempotent writes as
// WriteTinyModel. The tokenizer files are the embedding model's.
func WriteTinyCrossEncoder(dir string) error {
	files, err := tinyModelFiles()
	if err != nil {
		return fmt.Errorf("build tiny cross-encoder: %w", err)
	}
	for i := range files {
		switch files[i].name {
		case "config.json":
			files[i].data, err = crossEncoderConfig(files[i].data)
		case "model.onnx":
			files[i].data, err = addCoverageHead(files[i].data)
		}
		if err != nil {
			return fmt.Errorf("build tiny cross-encoder: %w", err)
		}
	}
	return writeFolder(dir, files) // model.onnx comes last, as in WriteTinyModel
}

// CrossEncoderDir returns the tiny cross-encoder folder, written once per
// test binary (see sharedFolder).
func CrossEncoderDir(tb testing.TB) string {
	tb.Helper()
	return tinyCrossEncoder.get(tb)
}

var tinyCrossEncoder = sharedFolder("tiny cross-encoder", "footnote-crossencoder-v1", WriteTinyCrossEncoder)

// crossEncoderConfig turns the encoder's config.json into a one-label
// sequence classifier's.
func crossEncoderConfig(encoderConfig []byte) ([]byte, error) {
	var cfg map[string]any
	if err := json.Unmarshal(encoderConfig, &cfg); err != nil {
		return nil, fmt.Errorf("read encoder config: %w", err)
	}
	cfg["_name_or_path"] = "footnote-tiny-crossencoder"
	cfg["architectures"] = []string{"BertForSequenceClassification"}
	cfg["id2label"] = map[string]string{"0": "LABEL_0"}
	cfg["label2id"] = map[string]int{"LABEL_0": 0}
	return indentJSON(cfg)
}

// addCoverageHead appends the scoring head to the serialised encoder and
// makes "logits" [batch, 1] the graph's only output.
func addCoverageHead(encoder []byte) ([]byte, error) {
	m := &protos.ModelProto{}
	if err := proto.Unmarshal(encoder, m); err != nil {
		return nil, fmt.Errorf("read encoder graph: %w", err)
	}
	m.ProducerName = "footnote-embedtest-crossencoder"
	// Generated names are op_<seq>; starting past the node count keeps
	// them distinct from the encoder's.
	b := &graph{g: m.Graph, seq: len(m.Graph.Node)}
	vocabSize := len(vocabulary())

	// Unit-length token vectors (scaled by √hidden, which cancels below).
	h := "last_hidden_state"
	meanSq := b.op("ReduceMean", []string{b.op("Mul", []string{h, h})}, attrInts("axes", -1), attrInt("keepdims", 1))
	unit := b.op("Div", []string{h, b.op("Sqrt", []string{b.op("Add", []string{meanSq, b.scalar("head.eps", 1e-6)})})})

	// Which positions hold real words of the query (segment 0) and of the
	// passage (segment 1): special tokens, [UNK] and padding count as neither.
	content := make([]float32, vocabSize)
	for id := range content {
		if id >= len(specialTokens) {
			content[id] = 1
		}
	}
	toFloat := attrInt("to", int64(protos.TensorProto_FLOAT))
	isWord := b.op("Gather", []string{b.floats("head.content", []int64{int64(vocabSize)}, content), "input_ids"}, attrInt("axis", 0))
	isWord = b.op("Mul", []string{isWord, b.op("Cast", []string{"attention_mask"}, toFloat)})
	segment := b.op("Cast", []string{"token_type_ids"}, toFloat)
	one := b.scalar("head.one", 1)
	queryMask := b.op("Mul", []string{isWord, b.op("Sub", []string{one, segment})})
	passageMask := b.op("Mul", []string{isWord, segment})

	// sim[b,i,j] is the cosine of tokens i and j; columns outside the
	// passage are pushed far down so the max ignores them.
	sim := b.op("MatMul", []string{unit, b.op("Transpose", []string{unit}, attrInts("perm", 0, 2, 1))})
	sim = b.op("Div", []string{sim, b.scalar("head.hidden", hiddenSize)})
	offPassage := b.op("Mul", []string{b.op("Sub", []string{one, passageMask}), b.scalar("head.neg_big", -10000)})
	sim = b.op("Add", []string{sim, b.op("Unsqueeze", []string{offPassage, b.ints("head.axis1", []int64{1}, 1)})})
	best := b.op("ReduceMax", []string{sim}, attrInts("axes", -1), attrInt("keepdims", 0))

	// coverage = Σ best·queryMask / Σ queryMask (a ratio of means is the
	// same ratio of sums).
	covered := b.op("ReduceMean", []string{b.op("Mul", []string{best, queryMask})}, attrInts("axes", -1), attrInt("keepdims", 0))
	queryLen := b.op("ReduceMean", []string{queryMask}, attrInts("axes", -1), attrInt("keepdims", 0))
	coverage := b.op("Div", []string{covered, b.op("Add", []string{queryLen, b.scalar("head.tiny", 1e-9)})})
	logit := b.op("Add", []string{b.op("Mul", []string{coverage, b.scalar("head.scale", coverageScale)}), b.scalar("head.bias", coverageBias)})
	logits := b.op("Unsqueeze", []string{logit, b.ints("head.axis1b", []int64{1}, 1)})

	m.Graph.Node = append(m.Graph.Node, &protos.NodeProto{
		OpType: "Identity", Name: "logits_out", Input: []string{logits}, Output: []string{"logits"},
	})
	m.Graph.Output = []*protos.ValueInfoProto{{
		Name: "logits", Type: tensorType(protos.TensorProto_FLOAT, "batch_size", 1),
	}}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}
