//go:build !(goexperiment.simd && amd64)

package encoder

import (
	"fmt"

	"github.com/gomlx/compute-onnx/support/protos"
)

// Encoder is not built for this platform: its matrix kernel is AVX2
// assembly and its vector maths needs GOEXPERIMENT=simd.
type Encoder struct{}

// New always fails here: the Go backend runs the model instead.
func New(model *protos.ModelProto, configJSON []byte) (*Encoder, error) {
	return nil, fmt.Errorf("%w: built for a platform without the AVX2 encoder", ErrUnsupported)
}

func (e *Encoder) Hidden() int    { return 0 }
func (e *Encoder) MaxTokens() int { return 0 }

func (e *Encoder) Run(ids [][]int, each func(i int, hidden []float32)) error {
	return ErrUnsupported
}

// Supported is false: this build has no encoder.
func Supported() bool { return false }
