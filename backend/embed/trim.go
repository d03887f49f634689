package embed

import (
	"reflect"
	"strings"

	"github.com/gomlx/compute-onnx/support/protos"
	mlmodel "github.com/gomlx/gomlx/ml/model"
	"github.com/knights-analytics/hugot/backends"
)

// onnxConstantLimit is the most elements an ONNX initializer can have and
// still be read from the parsed model while a graph is built: onnx-gomlx
// takes initializers of up to 10,000 elements (fewer unless the name says
// "const") as static shapes, axes or scalars. Larger ones are weights, used
// only through the model store.
const onnxConstantLimit = 10_000

// onnxProto returns the parsed ONNX model hugot converted, or nil when it
// is not laid out as expected. onnx-gomlx's model type is internal; its
// exported Proto field is reachable only by reflection.
func onnxProto(m *backends.Model) *protos.ModelProto {
	if m == nil || m.GoMLXModel == nil || m.GoMLXModel.OnnxModel == nil {
		return nil
	}
	v := reflect.ValueOf(m.GoMLXModel.OnnxModel)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	field := v.Elem().FieldByName("Proto")
	if !field.IsValid() || field.Type() != reflect.TypeFor[protos.ModelProto]() || !field.CanAddr() {
		return nil
	}
	return field.Addr().Interface().(*protos.ModelProto)
}

// releaseONNXWeights drops the weight bytes the parsed ONNX model still
// holds once they are copied into the model store: as much memory as the
// model file (~88 MB for MiniLM-L6) that nothing reads again. The parsed
// graph itself stays, because compiling a new input shape walks it; so do
// initializers small enough to be read as constants (onnxConstantLimit),
// and any whose variable is not in the store. What hugot can no longer do
// afterwards is write the model back out (GoMLXModel.Save), which Footnote
// never does. It returns the bytes released: 0 when the parsed model is not
// laid out as expected, in which case the memory is simply kept.
func releaseONNXWeights(m *backends.Model) int64 {
	graph := onnxProto(m).GetGraph()
	if graph == nil {
		return 0
	}
	stored := map[string]bool{}
	for sv := range m.GoMLXModel.Store.IterVariables() {
		if sv.HasValue() {
			stored[sv.Name()] = true
		}
	}
	var released int64
	for _, t := range graph.Initializer {
		elements := int64(1)
		for _, d := range t.Dims {
			elements *= d
		}
		// Store variable names replace the scope separator (see onnx-gomlx SafeVarName).
		if elements <= onnxConstantLimit || !stored[strings.ReplaceAll(t.Name, "/", "|")] {
			continue
		}
		released += int64(len(t.RawData)) + 4*int64(len(t.FloatData)+len(t.Int32Data)) +
			8*int64(len(t.Int64Data)+len(t.DoubleData)+len(t.Uint64Data))
		t.RawData, t.FloatData, t.Int32Data, t.Int64Data, t.DoubleData, t.Uint64Data = nil, nil, nil, nil, nil, nil
	}
	return released
}

// dropUnusedCopies releases what the loaded model holds but inference
// never reads, once a run has compiled its program: hugot's own tokenizer
// (Hugot tokenizes with its own), and the store variables the program does
// not take as parameters. onnx-gomlx fuses each layer's query, key and
// value projections into one matrix when it parses the model and keeps the
// three originals in the store too (~10 MB for MiniLM-L6); every input
// shape builds the same fused graph, so the originals are never read.
// A variable the program reads is on the device after the first run.
// It returns the bytes of the variables dropped.
func dropUnusedCopies(m *backends.Model) int64 {
	if m == nil || m.GoMLXModel == nil {
		return 0
	}
	if m.Tokenizer != nil {
		m.Tokenizer.GoTokenizer = nil
	}
	store := m.GoMLXModel.Store
	var unused []*mlmodel.Variable // collected first: deleting edits the list being iterated
	used := 0
	for v := range store.IterVariables() {
		if t, err := v.Value(); err == nil && t != nil {
			if t.IsOnDevice(0) {
				used++
			} else {
				unused = append(unused, v)
			}
		}
	}
	if used == 0 {
		return 0 // weights are not program parameters (see shareWeights): every shape compiles them in
	}
	var released int64
	for _, v := range unused {
		if err := store.DeleteVariable(v.Path()); err != nil {
			break // the rest stays; nothing depends on it going
		}
		released += int64(v.Shape().Memory())
	}
	return released
}
