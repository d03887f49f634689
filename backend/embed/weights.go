package embed

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	mlmodel "github.com/gomlx/gomlx/ml/model"
	"github.com/knights-analytics/hugot/backends"
)

// backendConfig selects gomlx's pure-Go backend with every model call
// running its ops in sequence. By default a call alone on the backend runs
// ops in parallel on executor goroutines that hold slots of the backend's
// worker pool while they wait for work; a second, concurrent call then
// waits for pool slots inside its matrix products, and two embedding
// workers measured 1.2-1.3 cores runnable out of 2. In sequence, each call
// still splits its matrix products across the pool, and concurrent calls
// keep every core busy.
const backendConfig = "go:ops_sequential"

// shareWeights rebuilds the model's executor on a fresh backend
// (backendConfig) with the weights shared between compiled shapes. It must
// run before the first inference call compiles anything.
//
// With the Go backend's default, weights become graph constants: every
// compiled input shape holds its own copy plus pre-packed copies of each
// matrix (~100 MB per shape for MiniLM-L6). As graph parameters, all shapes
// share the one copy the model store holds; packing per call costs little
// next to the matrix products (profiled on MiniLM-L6, 235-token passages:
// ~1% of the CPU time at batch 8, ~6% at batch 1). The executor also runs through
// maskAddBackend, which keeps batched attention-mask adds vectorised.
func shareWeights(m *backends.Model) error {
	g := m.GoMLXModel
	if g == nil {
		return fmt.Errorf("model is not run by the Go backend")
	}
	store, call := g.Store, g.Call
	// Marking the graph as training is the one switch gomlx offers that turns
	// weights into graph parameters; the ONNX conversion does not read it.
	shared := func(scope *mlmodel.Scope, inputs []*graph.Node) []*graph.Node {
		store.SetTraining(inputs[0].Graph(), true)
		return call(scope, inputs)
	}
	goBackend, err := compute.NewWithConfig(backendConfig)
	if err != nil {
		return fmt.Errorf("start the Go compute backend: %w", err)
	}
	backend := maskAddBackend{goBackend}
	exec, err := mlmodel.NewExec(backend, store, shared)
	if err != nil {
		backend.Finalize()
		return fmt.Errorf("build model executor: %w", err)
	}
	exec.SetMaxCache(-1)
	g.Exec.Finalize()
	g.Exec = exec
	g.Backend.Finalize()
	g.Backend = backend
	return nil
}

// LeanModel makes a model hugot loaded on the Go backend hold its weights
// once, as the embedder does: shared by every compiled input shape
// (shareWeights) and dropped from the parsed ONNX model once copied
// (releaseONNXWeights). The cross-encoders in backend/rerank use it; call it
// before the model's first run, and DropUnusedCopies after it.
func LeanModel(m *backends.Model) error {
	if err := shareWeights(m); err != nil {
		return err
	}
	releaseONNXWeights(m)
	return nil
}

// DropUnusedCopies releases the copies of a LeanModel's weights its
// compiled program does not read (dropUnusedCopies); call it after the
// first run.
func DropUnusedCopies(m *backends.Model) { dropUnusedCopies(m) }
