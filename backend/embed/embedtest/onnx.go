package embedtest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// Shape of the generated model. Tiny so it builds and runs in milliseconds,
// wide enough that random word vectors are close to orthogonal.
const (
	hiddenSize   = 64
	numHeads     = 4
	ffnSize      = 128
	maxPositions = 128
	seed         = 20240611
)

// Scales of the random weights. Word vectors dominate; positions and the
// transformer layer only perturb them, so the mean-pooled output behaves
// like an average of word vectors (a bag of words).
const (
	wordScale     = 3.0
	positionScale = 0.02
	layerScale    = 0.02
	// layerNormEps is large on purpose: it keeps LayerNorm from blowing up
	// near-zero vectors, so the zero special-token embeddings stay near
	// zero and don't make every text look alike. Word vectors (variance
	// ~wordScale²) are still normalised almost exactly.
	layerNormEps = 1.0
)

// graph accumulates nodes and initializers with generated unique names.
type graph struct {
	g   *protos.GraphProto
	seq int
}

func (b *graph) name(op string) string {
	b.seq++
	return fmt.Sprintf("%s_%d", op, b.seq)
}

func (b *graph) floats(name string, dims []int64, data []float32) string {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	b.g.Initializer = append(b.g.Initializer, &protos.TensorProto{
		Name: name, Dims: dims, DataType: int32(protos.TensorProto_FLOAT), RawData: raw,
	})
	return name
}

func (b *graph) ints(name string, dims []int64, data ...int64) string {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	b.g.Initializer = append(b.g.Initializer, &protos.TensorProto{
		Name: name, Dims: dims, DataType: int32(protos.TensorProto_INT64), RawData: raw,
	})
	return name
}

func (b *graph) scalar(name string, v float32) string { return b.floats(name, nil, []float32{v}) }

func (b *graph) op(opType string, inputs []string, attrs ...*protos.AttributeProto) string {
	out := b.name(lowerOp(opType))
	b.g.Node = append(b.g.Node, &protos.NodeProto{
		OpType: opType, Name: out, Input: inputs, Output: []string{out}, Attribute: attrs,
	})
	return out
}

func lowerOp(op string) string {
	r := []byte(op)
	for i, c := range r {
		if c >= 'A' && c <= 'Z' {
			r[i] = c + 'a' - 'A'
		}
	}
	return string(r)
}

func attrInt(name string, v int64) *protos.AttributeProto {
	return &protos.AttributeProto{Name: name, Type: protos.AttributeProto_INT, I: v}
}

func attrInts(name string, v ...int64) *protos.AttributeProto {
	return &protos.AttributeProto{Name: name, Type: protos.AttributeProto_INTS, Ints: v}
}

// encoderDims is the size of a generated transformer encoder.
type encoderDims struct {
	hidden, heads, ffn int
	layerNormEps       float32
}

// tinyDims are the tiny models' (one layer, see the constants above).
var tinyDims = encoderDims{hidden: hiddenSize, heads: numHeads, ffn: ffnSize, layerNormEps: layerNormEps}

// layerNorm spells LayerNorm out in primitive ops, as BERT exports do.
func (b *graph) layerNorm(prefix, x string, d encoderDims) string {
	mean := b.op("ReduceMean", []string{x}, attrInts("axes", -1), attrInt("keepdims", 1))
	centred := b.op("Sub", []string{x, mean})
	sq := b.op("Pow", []string{centred, b.scalar(prefix+".two", 2)})
	variance := b.op("ReduceMean", []string{sq}, attrInts("axes", -1), attrInt("keepdims", 1))
	std := b.op("Sqrt", []string{b.op("Add", []string{variance, b.scalar(prefix+".eps", d.layerNormEps)})})
	normed := b.op("Div", []string{centred, std})
	width := int64(d.hidden)
	scaled := b.op("Mul", []string{normed, b.floats(prefix+".weight", []int64{width}, filled(d.hidden, 1))})
	return b.op("Add", []string{scaled, b.floats(prefix+".bias", []int64{width}, filled(d.hidden, 0))})
}

// attentionMask turns the attention_mask input into the additive mask
// attention adds to its scores: 0 where attended, -10000 on padding.
func (b *graph) attentionMask() string {
	mask := b.op("Cast", []string{"attention_mask"}, attrInt("to", int64(protos.TensorProto_FLOAT)))
	mask = b.op("Unsqueeze", []string{mask, b.ints("unsq_axes", []int64{2}, 1, 2)})
	mask = b.op("Sub", []string{b.scalar("one_f", 1), mask})
	return b.op("Mul", []string{mask, b.scalar("neg_big", -10000)})
}

// attentionShapes returns the shapes that split x's rows into attention
// heads, [batch, seq, heads, head width], and join them back, [batch, seq,
// hidden].
func (b *graph) attentionShapes(x string, d encoderDims) (heads, hidden string) {
	xShape := b.op("Shape", []string{x})
	batchSeq := b.op("Gather", []string{xShape, b.ints("idx01", []int64{2}, 0, 1)}, attrInt("axis", 0))
	heads = b.op("Concat", []string{batchSeq, b.ints("nh_hd", []int64{2}, int64(d.heads), int64(d.hidden/d.heads))}, attrInt("axis", 0))
	hidden = b.op("Concat", []string{batchSeq, b.ints("h_only", []int64{1}, int64(d.hidden))}, attrInt("axis", 0))
	return heads, hidden
}

// encoderLayer appends one transformer layer (self-attention and
// feed-forward, each a residual branch followed by LayerNorm) over x and
// returns its output. headsShape and hiddenShape reshape activations to
// [batch, seq, heads, head width] and back; scaleName names the attention
// scale constant.
func (b *graph) encoderLayer(p, x, mask, headsShape, hiddenShape, scaleName string, d encoderDims, rng *rand.Rand) string {
	split := func(name string, perm ...int64) string {
		h := b.dense(p+".attention.self."+name, x, d.hidden, d.hidden, rng)
		return b.op("Transpose", []string{b.op("Reshape", []string{h, headsShape})}, attrInts("perm", perm...))
	}
	q := split("query", 0, 2, 1, 3)
	k := split("key", 0, 2, 3, 1)
	v := split("value", 0, 2, 1, 3)
	headWidth := float64(d.hidden / d.heads)
	scores := b.op("Div", []string{b.op("MatMul", []string{q, k}), b.scalar(scaleName, float32(math.Sqrt(headWidth)))})
	probs := b.op("Softmax", []string{b.op("Add", []string{scores, mask})}, attrInt("axis", -1))
	ctx := b.op("Transpose", []string{b.op("MatMul", []string{probs, v})}, attrInts("perm", 0, 2, 1, 3))
	ctx = b.op("Reshape", []string{ctx, hiddenShape})
	attn := b.dense(p+".attention.output.dense", ctx, d.hidden, d.hidden, rng)
	h := b.layerNorm(p+".attention.output.LayerNorm", b.op("Add", []string{attn, x}), d)

	inter := b.dense(p+".intermediate.dense", h, d.hidden, d.ffn, rng)
	erf := b.op("Erf", []string{b.op("Div", []string{inter, b.scalar(p+".sqrt2", math.Sqrt2)})})
	gelu := b.op("Mul", []string{b.op("Mul", []string{inter, b.op("Add", []string{erf, b.scalar(p+".one", 1)})}), b.scalar(p+".half", 0.5)})
	ffn := b.dense(p+".output.dense", gelu, d.ffn, d.hidden, rng)
	return b.layerNorm(p+".output.LayerNorm", b.op("Add", []string{ffn, h}), d)
}

// dense is x·W + bias with small random W and zero bias.
func (b *graph) dense(prefix, x string, in, out int, rng *rand.Rand) string {
	w := b.floats(prefix+".weight", []int64{int64(in), int64(out)}, gaussian(rng, in*out, layerScale))
	mm := b.op("MatMul", []string{x, w})
	return b.op("Add", []string{mm, b.floats(prefix+".bias", []int64{int64(out)}, filled(out, 0))})
}

func filled(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func gaussian(rng *rand.Rand, n int, scale float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.NormFloat64() * scale)
	}
	return out
}

func tensorType(elem protos.TensorProto_DataType, dims ...any) *protos.TypeProto {
	shape := &protos.TensorShapeProto{}
	for _, d := range dims {
		dim := &protos.TensorShapeProto_Dimension{}
		switch v := d.(type) {
		case string:
			dim.Value = &protos.TensorShapeProto_Dimension_DimParam{DimParam: v}
		case int:
			dim.Value = &protos.TensorShapeProto_Dimension_DimValue{DimValue: int64(v)}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &protos.TypeProto{Value: &protos.TypeProto_TensorType{
		TensorType: &protos.TypeProto_Tensor{ElemType: int32(elem), Shape: shape},
	}}
}

// buildModel returns the serialised one-layer BERT encoder for a vocabulary
// of vocabSize tokens; the tokens in zeroIDs (special tokens other than
// [UNK]) get zero embeddings.
func buildModel(vocabSize int, zeroIDs []int) ([]byte, error) {
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	b := &graph{g: &protos.GraphProto{Name: "tiny-bert"}}
	for _, in := range []string{"input_ids", "attention_mask", "token_type_ids"} {
		b.g.Input = append(b.g.Input, &protos.ValueInfoProto{
			Name: in, Type: tensorType(protos.TensorProto_INT64, "batch_size", "sequence_length"),
		})
	}

	words := gaussian(rng, vocabSize*hiddenSize, wordScale)
	for _, id := range zeroIDs {
		clear(words[id*hiddenSize : (id+1)*hiddenSize])
	}
	wordEmb := b.floats("embeddings.word_embeddings.weight", []int64{int64(vocabSize), hiddenSize}, words)
	typeEmb := b.floats("embeddings.token_type_embeddings.weight", []int64{2, hiddenSize}, filled(2*hiddenSize, 0))
	posEmb := b.floats("embeddings.position_embeddings.weight", []int64{maxPositions, hiddenSize},
		gaussian(rng, maxPositions*hiddenSize, positionScale))

	// Embeddings: word + token type + position, then LayerNorm.
	we := b.op("Gather", []string{wordEmb, "input_ids"}, attrInt("axis", 0))
	te := b.op("Gather", []string{typeEmb, "token_type_ids"}, attrInt("axis", 0))
	inShape := b.op("Shape", []string{"input_ids"})
	seqLen := b.op("Gather", []string{inShape, b.ints("one_scalar_idx", nil, 1)}, attrInt("axis", 0))
	positions := b.op("Range", []string{b.ints("zero_i64", nil, 0), seqLen, b.ints("one_i64", nil, 1)})
	pe := b.op("Gather", []string{posEmb, positions}, attrInt("axis", 0))
	x := b.op("Add", []string{b.op("Add", []string{we, te}), pe})
	x = b.layerNorm("embeddings.LayerNorm", x, tinyDims)
	mask := b.attentionMask()

	headsShape, hiddenShape := b.attentionShapes(x, tinyDims)
	out := b.encoderLayer("encoder.layer.0", x, mask, headsShape, hiddenShape, "att_scale", tinyDims, rng)

	b.g.Node = append(b.g.Node, &protos.NodeProto{
		OpType: "Identity", Name: "output", Input: []string{out}, Output: []string{"last_hidden_state"},
	})
	b.g.Output = append(b.g.Output, &protos.ValueInfoProto{
		Name: "last_hidden_state", Type: tensorType(protos.TensorProto_FLOAT, "batch_size", "sequence_length", hiddenSize),
	})

	return marshalModel(b.g, "footnote-embedtest")
}

// marshalModel serialises graph as an ONNX model (opset 14) made by producer.
func marshalModel(graph *protos.GraphProto, producer string) ([]byte, error) {
	m := &protos.ModelProto{
		IrVersion:       8,
		OpsetImport:     []*protos.OperatorSetIdProto{{Domain: "", Version: 14}},
		ProducerName:    producer,
		ProducerVersion: "1",
		Graph:           graph,
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}
