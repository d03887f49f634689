package encoder

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gomlx/compute-onnx/support/protos"
)

// ErrUnsupported wraps every reason a model folder or a machine cannot run
// the encoder; callers then run the model another way.
var ErrUnsupported = errors.New("not supported by the built-in encoder")

// Config is the shape of a BERT encoder, read from the folder's
// config.json.
type Config struct {
	ModelType          string  `json:"model_type"`
	Hidden             int     `json:"hidden_size"`
	Heads              int     `json:"num_attention_heads"`
	Intermediate       int     `json:"intermediate_size"`
	Layers             int     `json:"num_hidden_layers"`
	Activation         string  `json:"hidden_act"`
	LayerNormEps       float64 `json:"layer_norm_eps"`
	PositionEmbeddings string  `json:"position_embedding_type"`
}

// weights are one encoder's parameters as plain row-major matrices, the
// dense ones [in, out] as ONNX MatMul takes them.
type weights struct {
	cfg                       Config
	eps                       float32
	word, position, tokenType matrix
	embNormGamma, embNormBeta []float32
	layers                    []layerWeights
}

type layerWeights struct {
	query, key, value, attnOut, up, down       matrix
	queryBias, keyBias, valueBias, attnOutBias []float32
	upBias, downBias                           []float32
	attnNormGamma, attnNormBeta                []float32
	outNormGamma, outNormBeta                  []float32
}

type matrix struct {
	rows, cols int
	data       []float32
}

// denseRole names a dense layer by the suffix of its bias, as Hugging Face
// exports keep them even where the matrix itself is renamed.
var denseRole = regexp.MustCompile(`(?:^|\.)layer\.(\d+)\.(attention\.self\.query|attention\.self\.key|attention\.self\.value|attention\.output\.dense|intermediate\.dense|output\.dense)\.bias$`)

// readWeights finds a BERT encoder's parameters in a parsed ONNX model
// whose Hugging Face config.json is configJSON: every dense layer is a
// MatMul by a constant followed by the Add of a bias named like
// "encoder.layer.N.attention.self.query.bias"; embeddings and LayerNorm
// parameters go by their Hugging Face names. What the graph computes with
// them is not checked here: the caller compares outputs with a full ONNX
// run before trusting the encoder.
func readWeights(model *protos.ModelProto, configJSON []byte) (*weights, error) {
	var cfg Config
	if err := json.Unmarshal(configJSON, &cfg); err != nil {
		return nil, fmt.Errorf("%w: config.json: %v", ErrUnsupported, err)
	}
	switch {
	case cfg.ModelType != "bert":
		return nil, fmt.Errorf("%w: model_type %q (only bert)", ErrUnsupported, cfg.ModelType)
	case cfg.Activation != "gelu":
		return nil, fmt.Errorf("%w: hidden_act %q (only gelu)", ErrUnsupported, cfg.Activation)
	case cfg.PositionEmbeddings != "" && cfg.PositionEmbeddings != "absolute":
		return nil, fmt.Errorf("%w: position_embedding_type %q", ErrUnsupported, cfg.PositionEmbeddings)
	case cfg.Hidden <= 0 || cfg.Heads <= 0 || cfg.Hidden%cfg.Heads != 0 || cfg.Layers <= 0 || cfg.Intermediate <= 0:
		return nil, fmt.Errorf("%w: config.json gives hidden %d, heads %d, layers %d, intermediate %d", ErrUnsupported, cfg.Hidden, cfg.Heads, cfg.Layers, cfg.Intermediate)
	}
	if model.GetGraph() == nil {
		return nil, fmt.Errorf("%w: the ONNX model has no graph", ErrUnsupported)
	}
	g := model.GetGraph()
	consts := map[string]*protos.TensorProto{}
	for _, t := range g.GetInitializer() {
		consts[t.GetName()] = t
	}
	for _, n := range g.GetNode() {
		if n.GetOpType() == "Constant" && len(n.GetOutput()) == 1 {
			for _, a := range n.GetAttribute() {
				if a.GetName() == "value" && a.GetT() != nil {
					consts[n.GetOutput()[0]] = a.GetT()
				}
			}
		}
	}
	w := &weights{cfg: cfg, layers: make([]layerWeights, cfg.Layers)}
	byName := func(suffix string) (*protos.TensorProto, error) {
		var found *protos.TensorProto
		for name, t := range consts {
			if name == suffix || strings.HasSuffix(name, "."+suffix) {
				if found != nil {
					return nil, fmt.Errorf("%w: two tensors named like %s", ErrUnsupported, suffix)
				}
				found = t
			}
		}
		if found == nil {
			return nil, fmt.Errorf("%w: no tensor named like %s", ErrUnsupported, suffix)
		}
		return found, nil
	}
	vector := func(suffix string, n int) ([]float32, error) {
		t, err := byName(suffix)
		if err != nil {
			return nil, err
		}
		m, err := toMatrix(t, suffix)
		if err != nil {
			return nil, err
		}
		if len(m.data) != n {
			return nil, fmt.Errorf("%w: %s has %d values, want %d", ErrUnsupported, suffix, len(m.data), n)
		}
		return m.data, nil
	}
	table := func(suffix string, cols int) (matrix, error) {
		t, err := byName(suffix)
		if err != nil {
			return matrix{}, err
		}
		m, err := toMatrix(t, suffix)
		if err == nil && m.cols != cols {
			err = fmt.Errorf("%w: %s is %d wide, want %d", ErrUnsupported, suffix, m.cols, cols)
		}
		return m, err
	}
	h := cfg.Hidden
	var err error
	if w.word, err = table("embeddings.word_embeddings.weight", h); err != nil {
		return nil, err
	}
	if w.position, err = table("embeddings.position_embeddings.weight", h); err != nil {
		return nil, err
	}
	if w.tokenType, err = table("embeddings.token_type_embeddings.weight", h); err != nil {
		return nil, err
	}
	if w.embNormGamma, err = vector("embeddings.LayerNorm.weight", h); err != nil {
		return nil, err
	}
	if w.embNormBeta, err = vector("embeddings.LayerNorm.bias", h); err != nil {
		return nil, err
	}
	for i := range w.layers {
		l := &w.layers[i]
		p := "layer." + strconv.Itoa(i) + "."
		for _, v := range []struct {
			suffix string
			into   *[]float32
		}{
			{p + "attention.output.LayerNorm.weight", &l.attnNormGamma},
			{p + "attention.output.LayerNorm.bias", &l.attnNormBeta},
			{p + "output.LayerNorm.weight", &l.outNormGamma},
			{p + "output.LayerNorm.bias", &l.outNormBeta},
		} {
			if *v.into, err = vector(v.suffix, h); err != nil {
				return nil, err
			}
		}
	}
	producer := map[string]*protos.NodeProto{} // node by each output it writes
	for _, n := range g.GetNode() {
		for _, o := range n.GetOutput() {
			producer[o] = n
		}
	}
	if err := w.readDense(g, consts, producer); err != nil {
		return nil, err
	}
	eps, err := layerNormEps(g, consts, producer)
	if err != nil {
		return nil, err
	}
	if eps == 0 {
		eps = float32(cfg.LayerNormEps)
	}
	w.eps = eps
	return w, nil
}

// readDense finds each dense layer's matrix through the MatMul (or Gemm)
// that its bias is added to.
func (w *weights) readDense(g *protos.GraphProto, consts map[string]*protos.TensorProto, producer map[string]*protos.NodeProto) error {
	found := 0
	for _, n := range g.GetNode() {
		var biasName, product string
		switch n.GetOpType() {
		case "Add":
			in := n.GetInput()
			if len(in) != 2 {
				continue
			}
			for k := range 2 {
				if _, ok := consts[in[k]]; ok && denseRole.MatchString(in[k]) {
					biasName, product = in[k], in[1-k]
				}
			}
		case "Gemm":
			if in := n.GetInput(); len(in) == 3 && denseRole.MatchString(in[2]) {
				biasName = in[2]
			}
		}
		if biasName == "" {
			continue
		}
		m := denseRole.FindStringSubmatch(biasName)
		layer, _ := strconv.Atoi(m[1])
		if layer >= len(w.layers) {
			return fmt.Errorf("%w: %s is beyond the %d layers of config.json", ErrUnsupported, biasName, len(w.layers))
		}
		var mat matrix
		var err error
		if n.GetOpType() == "Gemm" {
			mat, err = gemmMatrix(n, consts)
		} else {
			mm := producer[product]
			if mm == nil || mm.GetOpType() != "MatMul" || len(mm.GetInput()) != 2 || consts[mm.GetInput()[1]] == nil {
				return fmt.Errorf("%w: %s is not added to a product by a constant matrix", ErrUnsupported, biasName)
			}
			mat, err = toMatrix(consts[mm.GetInput()[1]], mm.GetInput()[1])
		}
		if err != nil {
			return err
		}
		bias, err := toMatrix(consts[biasName], biasName)
		if err != nil {
			return err
		}
		if len(bias.data) != mat.cols {
			return fmt.Errorf("%w: %s has %d values for a %d-wide layer", ErrUnsupported, biasName, len(bias.data), mat.cols)
		}
		l := &w.layers[layer]
		h, inter := w.cfg.Hidden, w.cfg.Intermediate
		var into *matrix
		var biasInto *[]float32
		in, out := h, h
		switch m[2] {
		case "attention.self.query":
			into, biasInto = &l.query, &l.queryBias
		case "attention.self.key":
			into, biasInto = &l.key, &l.keyBias
		case "attention.self.value":
			into, biasInto = &l.value, &l.valueBias
		case "attention.output.dense":
			into, biasInto = &l.attnOut, &l.attnOutBias
		case "intermediate.dense":
			into, biasInto, out = &l.up, &l.upBias, inter
		case "output.dense":
			into, biasInto, in = &l.down, &l.downBias, inter
		}
		if into.data != nil {
			return fmt.Errorf("%w: %s is added twice", ErrUnsupported, biasName)
		}
		if mat.rows != in || mat.cols != out {
			return fmt.Errorf("%w: %s belongs to a %d×%d matrix, want %d×%d", ErrUnsupported, biasName, mat.rows, mat.cols, in, out)
		}
		*into, *biasInto = mat, bias.data
		found++
	}
	if want := 6 * len(w.layers); found != want {
		return fmt.Errorf("%w: found %d of the %d dense layers", ErrUnsupported, found, want)
	}
	return nil
}

// gemmMatrix returns a Gemm node's constant B as [in, out], transposing it
// when the node says transB; other Gemm options are not BERT's.
func gemmMatrix(n *protos.NodeProto, consts map[string]*protos.TensorProto) (matrix, error) {
	transB := false
	for _, a := range n.GetAttribute() {
		switch a.GetName() {
		case "transB":
			transB = a.GetI() == 1
		case "transA":
			if a.GetI() != 0 {
				return matrix{}, fmt.Errorf("%w: Gemm with transA", ErrUnsupported)
			}
		case "alpha", "beta":
			if a.GetF() != 1 {
				return matrix{}, fmt.Errorf("%w: Gemm with %s %v", ErrUnsupported, a.GetName(), a.GetF())
			}
		}
	}
	t := consts[n.GetInput()[1]]
	if t == nil {
		return matrix{}, fmt.Errorf("%w: Gemm by a computed matrix", ErrUnsupported)
	}
	m, err := toMatrix(t, n.GetInput()[1])
	if err != nil || !transB {
		return m, err
	}
	out := matrix{rows: m.cols, cols: m.rows, data: make([]float32, len(m.data))}
	for i := range m.rows {
		for j := range m.cols {
			out.data[j*out.cols+i] = m.data[i*m.cols+j]
		}
	}
	return out, nil
}

// layerNormEps returns the epsilon every LayerNorm of the graph adds to the
// variance: a LayerNormalization node's attribute, or the constant added
// to a ReduceMean's output before Sqrt. It is 0 when the graph shows none.
func layerNormEps(g *protos.GraphProto, consts map[string]*protos.TensorProto, producer map[string]*protos.NodeProto) (float32, error) {
	var eps []float32
	for _, n := range g.GetNode() {
		switch n.GetOpType() {
		case "LayerNormalization":
			e := float32(1e-5) // the ONNX default
			for _, a := range n.GetAttribute() {
				if a.GetName() == "epsilon" {
					e = a.GetF()
				}
			}
			eps = append(eps, e)
		case "Add":
			in := n.GetInput()
			if len(in) != 2 {
				continue
			}
			for k := range 2 {
				p := producer[in[1-k]]
				t := consts[in[k]]
				if p == nil || p.GetOpType() != "ReduceMean" || t == nil {
					continue
				}
				if m, err := toMatrix(t, in[k]); err == nil && len(m.data) == 1 {
					eps = append(eps, m.data[0])
				}
			}
		}
	}
	for _, e := range eps {
		if e != eps[0] {
			return 0, fmt.Errorf("%w: LayerNorms with different epsilons (%v, %v)", ErrUnsupported, eps[0], e)
		}
	}
	if len(eps) == 0 {
		return 0, nil
	}
	return eps[0], nil
}

// toMatrix returns a float32 tensor of rank 0 to 2 as a matrix (a vector
// is one row).
func toMatrix(t *protos.TensorProto, name string) (matrix, error) {
	if t.GetDataType() != int32(protos.TensorProto_FLOAT) {
		return matrix{}, fmt.Errorf("%w: %s is not float32", ErrUnsupported, name)
	}
	if len(t.GetExternalData()) > 0 {
		return matrix{}, fmt.Errorf("%w: %s is stored outside the ONNX file", ErrUnsupported, name)
	}
	dims := t.GetDims()
	m := matrix{rows: 1, cols: 1}
	switch len(dims) {
	case 0:
	case 1:
		m.cols = int(dims[0])
	case 2:
		m.rows, m.cols = int(dims[0]), int(dims[1])
	default:
		return matrix{}, fmt.Errorf("%w: %s has rank %d", ErrUnsupported, name, len(dims))
	}
	n := m.rows * m.cols
	switch {
	case len(t.GetRawData()) == 4*n:
		m.data = make([]float32, n)
		raw := t.GetRawData()
		for i := range m.data {
			m.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case len(t.GetFloatData()) == n:
		m.data = t.GetFloatData()
	default:
		return matrix{}, fmt.Errorf("%w: %s holds no data for its %d values", ErrUnsupported, name, n)
	}
	return m, nil
}
