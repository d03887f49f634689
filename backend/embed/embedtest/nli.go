package embedtest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
)

// The NLI cross-encoder is laid out like the ONNX export of the public
// entailment model Footnote downloads (cross-encoder/nli-MiniLM2-L6-H768,
// a RobertaForSequenceClassification): inputs input_ids and attention_mask
// only, RoBERTa position ids counted from the padding id, a classification
// head over the <s> token (dense, tanh, projection) giving one logit per
// label as "logits" [batch, labels], a config.json naming the labels in
// id2label, and a byte-level BPE tokenizer (bpe.go). Its weights are
// random and small, so each label's logit is about its bias: tests choose
// the biases to know which label the model favours, whatever order the
// labels are in.

// NLILabels is the public model's label order.
var NLILabels = []string{"contradiction", "entailment", "neutral"}

// NLIOptions describe a generated NLI cross-encoder.
type NLIOptions struct {
	// Labels in logit order; nil means NLILabels.
	Labels []string
	// Bias is the logit bias of labels by name (0 for others).
	Bias map[string]float32
	// Full gives the public model's size (6 layers, hidden 768, 12 heads,
	// feed-forward 3072; ~200 MB) for benchmarks. Without it the encoder
	// is 2 layers of width 64.
	Full bool
}

// nliPositions is the public model's max_position_embeddings: RoBERTa
// counts positions from the padding id + 1, so it reads 512 tokens.
const nliPositions = 514

var (
	tinyNLIDims = encoderDims{hidden: 64, heads: 4, ffn: 128, layerNormEps: 1e-5}
	fullNLIDims = encoderDims{hidden: 768, heads: 12, ffn: 3072, layerNormEps: 1e-5}
)

const (
	tinyNLILayers = 2
	fullNLILayers = 6
)

// WriteNLIModel writes a generated NLI cross-encoder into dir (created if
// needed), with the same atomic, idempotent writes as WriteTinyModel.
func WriteNLIModel(dir string, opts NLIOptions) error {
	files, err := nliModelFiles(opts)
	if err != nil {
		return fmt.Errorf("build NLI cross-encoder: %w", err)
	}
	return writeFolder(dir, files)
}

// NLIDir returns the tiny NLI cross-encoder with the public model's label
// order and no label favoured, written once per test binary (see
// sharedFolder).
func NLIDir(tb testing.TB) string {
	tb.Helper()
	return tinyNLI.get(tb)
}

// FullNLIDir returns the public model's shape with random weights, for
// benchmarks: written once under the system temp dir (~200 MB).
func FullNLIDir(tb testing.TB) string {
	tb.Helper()
	return fullNLI.get(tb)
}

var (
	tinyNLI = sharedFolder("tiny NLI cross-encoder", "footnote-nli-v1", func(dir string) error {
		return WriteNLIModel(dir, NLIOptions{})
	})
	fullNLI = sharedFolder("full-size NLI cross-encoder", "footnote-nli-full-v1", func(dir string) error {
		return WriteNLIModel(dir, NLIOptions{Full: true})
	})
)

func nliModelFiles(opts NLIOptions) ([]file, error) {
	labels := opts.Labels
	if labels == nil {
		labels = NLILabels
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("no labels")
	}
	dims, layers, name := tinyNLIDims, tinyNLILayers, "footnote-tiny-nli"
	if opts.Full {
		dims, layers, name = fullNLIDims, fullNLILayers, "footnote-nli-minilm2-l6-h768-shape"
	}
	vocab := buildBPE()
	bias := make([]float32, len(labels))
	for i, l := range labels {
		bias[i] = opts.Bias[l]
	}
	onnx, err := buildNLIModel(len(vocab.tokens), dims, layers, bias)
	if err != nil {
		return nil, fmt.Errorf("encode onnx: %w", err)
	}
	tok, err := bpeTokenizerJSON(vocab)
	if err != nil {
		return nil, err
	}
	id2label, label2id := map[string]string{}, map[string]int{}
	for i, l := range labels {
		id2label[strconv.Itoa(i)], label2id[l] = l, i
	}
	config, err := indentJSON(map[string]any{
		"_name_or_path":                name,
		"architectures":                []string{"RobertaForSequenceClassification"},
		"attention_probs_dropout_prob": 0.1,
		"bos_token_id":                 0,
		"eos_token_id":                 2,
		"hidden_act":                   "gelu",
		"hidden_dropout_prob":          0.1,
		"hidden_size":                  dims.hidden,
		"id2label":                     id2label,
		"label2id":                     label2id,
		"initializer_range":            layerScale,
		"intermediate_size":            dims.ffn,
		"layer_norm_eps":               dims.layerNormEps,
		"max_position_embeddings":      nliPositions,
		"model_type":                   "roberta",
		"num_attention_heads":          dims.heads,
		"num_hidden_layers":            layers,
		"pad_token_id":                 bpePadID,
		"position_embedding_type":      "absolute",
		"type_vocab_size":              1,
		"vocab_size":                   len(vocab.tokens),
	})
	if err != nil {
		return nil, err
	}
	mask := map[string]any{"content": bpeMask, "lstrip": true, "normalized": false, "rstrip": false, "single_word": false}
	special := map[string]any{
		"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>", "mask_token": mask,
		"pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>",
	}
	specialJSON, err := indentJSON(special)
	if err != nil {
		return nil, err
	}
	tokConfig, err := tokenizerConfig(map[string]any{
		"add_prefix_space": false, "errors": "replace", "model_max_length": nliPositions - 2,
		"tokenizer_class": "RobertaTokenizer", "trim_offsets": true,
	}, special)
	if err != nil {
		return nil, err
	}
	return modelFolder(config, specialJSON, tokConfig, tok, nil, onnx), nil
}

// buildNLIModel returns the serialised RoBERTa sequence classifier with
// one logit per entry of bias.
func buildNLIModel(vocabSize int, d encoderDims, layers int, bias []float32) ([]byte, error) {
	rng := rand.New(rand.NewPCG(seed+1, seed>>2))
	b := &graph{g: &protos.GraphProto{Name: "tiny-roberta-nli"}}
	for _, in := range []string{"input_ids", "attention_mask"} {
		b.g.Input = append(b.g.Input, &protos.ValueInfoProto{
			Name: in, Type: tensorType(protos.TensorProto_INT64, "batch_size", "sequence_length"),
		})
	}
	h := int64(d.hidden)
	wordEmb := b.floats("roberta.embeddings.word_embeddings.weight", []int64{int64(vocabSize), h}, gaussian(rng, vocabSize*d.hidden, layerScale))
	posEmb := b.floats("roberta.embeddings.position_embeddings.weight", []int64{nliPositions, h}, gaussian(rng, nliPositions*d.hidden, layerScale))
	typeEmb := b.floats("roberta.embeddings.token_type_embeddings.weight", []int64{1, h}, gaussian(rng, d.hidden, layerScale))

	// RoBERTa's position ids: real tokens count up from the padding id + 1,
	// padding keeps the padding id (create_position_ids_from_input_ids).
	pad := b.ints("roberta.embeddings.padding_idx", nil, bpePadID)
	notPad := b.op("Cast", []string{b.op("Not", []string{b.op("Equal", []string{"input_ids", pad})})}, attrInt("to", int64(protos.TensorProto_INT32)))
	counted := b.op("CumSum", []string{notPad, b.ints("roberta.embeddings.seq_axis", nil, 1)})
	positions := b.op("Cast", []string{b.op("Mul", []string{counted, notPad})}, attrInt("to", int64(protos.TensorProto_INT64)))
	positions = b.op("Add", []string{positions, pad})

	// The one token type: every token gets row 0.
	types := b.op("Mul", []string{"input_ids", b.ints("roberta.embeddings.zero", nil, 0)})
	we := b.op("Gather", []string{wordEmb, "input_ids"}, attrInt("axis", 0))
	te := b.op("Gather", []string{typeEmb, types}, attrInt("axis", 0))
	pe := b.op("Gather", []string{posEmb, positions}, attrInt("axis", 0))
	x := b.op("Add", []string{b.op("Add", []string{we, te}), pe})
	x = b.layerNorm("roberta.embeddings.LayerNorm", x, d)

	mask := b.attentionMask()
	headsShape, hiddenShape := b.attentionShapes(x, d)
	for l := range layers {
		p := fmt.Sprintf("roberta.encoder.layer.%d", l)
		x = b.encoderLayer(p, x, mask, headsShape, hiddenShape, p+".attention.self.scale", d, rng)
	}

	// RobertaClassificationHead: the <s> token's vector, dense + tanh, then
	// one logit per label.
	first := b.op("Gather", []string{x, b.ints("classifier.first_token", nil, 0)}, attrInt("axis", 1))
	pooled := b.op("Tanh", []string{b.dense("classifier.dense", first, d.hidden, d.hidden, rng)})
	n := int64(len(bias))
	w := b.floats("classifier.out_proj.weight", []int64{h, n}, gaussian(rng, d.hidden*len(bias), layerScale))
	logits := b.op("Add", []string{b.op("MatMul", []string{pooled, w}), b.floats("classifier.out_proj.bias", []int64{n}, bias)})

	b.g.Node = append(b.g.Node, &protos.NodeProto{
		OpType: "Identity", Name: "logits_out", Input: []string{logits}, Output: []string{"logits"},
	})
	b.g.Output = []*protos.ValueInfoProto{{
		Name: "logits", Type: tensorType(protos.TensorProto_FLOAT, "batch_size", len(bias)),
	}}
	return marshalModel(b.g, "footnote-embedtest-nli")
}
