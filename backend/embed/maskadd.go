package embed

import (
	"fmt"
	"slices"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
)

// maskAddBackend wraps the Go backend so that adding the attention mask to
// the attention scores stays on a vectorised path when a batch holds
// several texts.
//
// BERT exports add a per-text mask shaped [batch, 1, 1, keys] to scores
// shaped [batch, heads, queries, keys] in every layer. The Go backend
// vectorises a broadcast only when the smaller operand repeats as a whole;
// with batch > 1 the mask does not, and the add falls to an element-wise
// index iterator (a sixth of the CPU time at batch 8 on MiniLM-L6). Here
// the mask is expanded once to the scores' shape and the adds become plain
// vector adds: the backend merges identical nodes, so every layer reuses
// the one expanded mask. Results are bit-identical: the same values are
// added, only the indexing differs.
//
// gomlx ties every tensor to the backend value it lives on, and a tensor
// made from a computed buffer takes the buffer's Backend(); so the wrapper
// also wraps the buffers it hands out, and unwraps them on the way in.
type maskAddBackend struct {
	compute.Backend
}

func (b maskAddBackend) Builder(name string) compute.Builder {
	return &maskAddBuilder{Builder: b.Backend.Builder(name), backend: b}
}

func (b maskAddBackend) BufferFromFlatData(deviceNum compute.DeviceNum, flat any, shape shapes.Shape) (compute.Buffer, error) {
	buf, err := b.Backend.BufferFromFlatData(deviceNum, flat, shape)
	return b.wrap(buf), err
}

func (b maskAddBackend) NewSharedBuffer(deviceNum compute.DeviceNum, shape shapes.Shape) (compute.Buffer, any, error) {
	buf, flat, err := b.Backend.NewSharedBuffer(deviceNum, shape)
	return b.wrap(buf), flat, err
}

func (b maskAddBackend) wrap(buf compute.Buffer) compute.Buffer {
	if buf == nil {
		return nil
	}
	return maskAddBuffer{Buffer: buf, backend: b}
}

func unwrapBuffer(buf compute.Buffer) compute.Buffer {
	if w, ok := buf.(maskAddBuffer); ok {
		return w.Buffer
	}
	return buf
}

// maskAddBuffer is a backend buffer that reports maskAddBackend as its
// backend.
type maskAddBuffer struct {
	compute.Buffer
	backend maskAddBackend
}

func (b maskAddBuffer) Backend() compute.Backend { return b.backend }

func (b maskAddBuffer) CopyToDevice(deviceNum compute.DeviceNum) (compute.Buffer, error) {
	buf, err := b.Buffer.CopyToDevice(deviceNum)
	return b.backend.wrap(buf), err
}

type maskAddBuilder struct {
	compute.Builder
	backend maskAddBackend
	main    *maskAddFunction
}

func (b *maskAddBuilder) Compile() (compute.Executable, error) {
	exec, err := b.Builder.Compile()
	if err != nil {
		return nil, err
	}
	return maskAddExecutable{Executable: exec, backend: b.backend}, nil
}

type maskAddExecutable struct {
	compute.Executable
	backend maskAddBackend
}

func (e maskAddExecutable) Execute(inputs []compute.Buffer, donate []bool, device compute.DeviceNum) ([]compute.Buffer, error) {
	in := make([]compute.Buffer, len(inputs))
	for i, buf := range inputs {
		in[i] = unwrapBuffer(buf)
	}
	out, err := e.Executable.Execute(in, donate, device)
	for i, buf := range out {
		out[i] = e.backend.wrap(buf)
	}
	return out, err
}

// Main wraps only the main function: closures handed to control-flow ops
// must stay the backend's own type, and BERT graphs add masks in main.
func (b *maskAddBuilder) Main() compute.Function {
	if b.main == nil {
		b.main = &maskAddFunction{Function: b.Builder.Main(), builder: b.Builder}
	}
	return b.main
}

type maskAddFunction struct {
	compute.Function
	builder compute.Builder
}

func (f *maskAddFunction) Add(lhs, rhs compute.Value) (compute.Value, error) {
	ls, err := f.builder.OpShape(lhs)
	if err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	rs, err := f.builder.OpShape(rhs)
	if err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	switch {
	case isRowMask(rs, ls):
		if rhs, err = f.expand(rhs, ls); err != nil {
			return nil, err
		}
	case isRowMask(ls, rs):
		if lhs, err = f.expand(lhs, rs); err != nil {
			return nil, err
		}
	}
	return f.Function.Add(lhs, rhs)
}

// expand materialises mask [B,1,1,K] as [B,H,Q,K]. The broadcast runs at
// rank 3 and is reshaped after: the backend drops a same-rank broadcast
// that feeds an add (it would broadcast implicitly, on the slow path).
func (f *maskAddFunction) expand(mask compute.Value, to shapes.Shape) (compute.Value, error) {
	d := to.Dimensions
	rows, err := f.Function.Reshape(mask, d[0], d[3])
	if err != nil {
		return nil, fmt.Errorf("expand attention mask: %w", err)
	}
	flat := shapes.Make(to.DType, d[0], d[1]*d[2], d[3])
	wide, err := f.Function.BroadcastInDim(rows, flat, []int{0, 2})
	if err != nil {
		return nil, fmt.Errorf("expand attention mask: %w", err)
	}
	out, err := f.Function.Reshape(wide, d...)
	if err != nil {
		return nil, fmt.Errorf("expand attention mask: %w", err)
	}
	return out, nil
}

// isRowMask reports whether mask is a per-text attention mask
// [batch, 1, 1, keys] for scores [batch, heads, queries, keys] with
// batch > 1 (with batch 1 the backend's vector path applies already).
func isRowMask(mask, scores shapes.Shape) bool {
	if mask.Rank() != 4 || scores.Rank() != 4 || mask.DType != scores.DType || !mask.DType.IsFloat() ||
		mask.IsDynamic() || scores.IsDynamic() {
		return false
	}
	m, s := mask.Dimensions, scores.Dimensions
	return m[0] > 1 && m[0] == s[0] && m[1] == 1 && m[2] == 1 && m[3] == s[3] &&
		(s[1] > 1 || s[2] > 1) && !slices.Equal(m, s) && scores.Size() <= maxExpandedMask
}

// maxExpandedMask bounds the expanded mask (in elements) held during a
// call: 25 MB at batch 8 × 256 tokens on MiniLM, 100 MB at batch 32.
// Larger shapes keep the backend's slower add rather than the memory.
const maxExpandedMask = 32 << 20
