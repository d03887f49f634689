package embed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/knights-analytics/hugot/backends"

	"github.com/footnote-app/footnote/backend/embed/encoder"
)

// Engines Hugot runs a model with.
const (
	// EngineEncoder is the built-in BERT encoder (package encoder): AVX2,
	// no padding, weights packed once.
	EngineEncoder = "encoder"
	// EngineGoBackend is hugot's pure-Go ONNX backend (gomlx), which runs
	// any graph it can convert, on any CPU.
	EngineGoBackend = "go-backend"
)

// encoderAgreement is how close the encoder's vectors must be to the Go
// backend's on the load-time probes (cosine). The two differ only in the
// order of float32 sums; on MiniLM-L6 they agree to 1e-7.
const encoderAgreement = 0.99999

// encoderProbes are texts whose vectors the two engines must agree on
// before the encoder is used: a short one and one long enough to exercise
// every edge of the matrix tiles and position embeddings past the first
// few.
var encoderProbes = []string{
	"probe",
	"Footnote answers questions about your own documents and cites the passages that support each claim; " +
		"the index lives on this machine, and nothing leaves it unless you point Footnote at a remote model server. " +
		"Error E-4012 means the folder could not be read.",
}

// newEncoder builds the built-in encoder from the ONNX model hugot parsed
// (before its weights are released) and dir's config.json.
func newEncoder(dir string, m *backends.Model) (*encoder.Encoder, error) {
	proto := onnxProto(m)
	if proto == nil {
		return nil, fmt.Errorf("%w: the parsed ONNX model is not reachable", encoder.ErrUnsupported)
	}
	configJSON, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", encoder.ErrUnsupported, err)
	}
	return encoder.New(proto, configJSON)
}

// adoptEncoder makes enc run the model when its vectors match the Go
// backend's on encoderProbes, and then closes the Go backend. It returns
// why not otherwise; the Go backend then stays in use.
func (h *Hugot) adoptEncoder(ctx context.Context, enc *encoder.Encoder) error {
	if enc.Hidden() != h.info.Dim {
		return fmt.Errorf("%w: encoder width %d, model output %d", encoder.ErrUnsupported, enc.Hidden(), h.info.Dim)
	}
	for _, text := range encoderProbes {
		ids, _ := h.tokenIDs(h.passagePrefix + text)
		if len(ids) > enc.MaxTokens() {
			return fmt.Errorf("%w: %d positions, the model takes %d tokens", encoder.ErrUnsupported, enc.MaxTokens(), len(ids))
		}
		want, err := h.run(ctx, [][]int{ids}, 0)
		if err != nil {
			return err
		}
		got, err := runEncoder(enc, [][]int{ids})
		if err != nil {
			return err
		}
		if c := Cosine(got[0], want[0]); !(c >= encoderAgreement) {
			return fmt.Errorf("%w: its vector for a probe differs from the Go backend's (cosine %.6f)", encoder.ErrUnsupported, c)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	err := h.session.Destroy()
	h.enc, h.session, h.pipe = enc, nil, nil
	// The Go backend's weights and compiled shapes are garbage now; hand
	// the memory back rather than keep it as heap the encoder never uses.
	debug.FreeOSMemory()
	if err != nil {
		return fmt.Errorf("close the Go backend: %w", err)
	}
	return nil
}

// runEncoder embeds already-encoded texts with enc: mean pooling over each
// text's tokens, then L2 normalisation, as run does.
func runEncoder(enc *encoder.Encoder, ids [][]int) ([][]float32, error) {
	out := make([][]float32, len(ids))
	err := enc.Run(ids, func(i int, hidden []float32) {
		out[i] = meanL2(hidden, enc.Hidden())
	})
	if err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	return out, nil
}
