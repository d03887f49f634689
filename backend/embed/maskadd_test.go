package embed

import (
	"context"
	"fmt"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestMaskAddBackendAddsLikeTheBackend runs a batched mask add, with the
// mask on either side, through maskAddBackend and the plain Go backend:
// the results must be bit-identical, and the wrapper's tensors must be
// usable as inputs again.
func TestMaskAddBackendAddsLikeTheBackend(t *testing.T) {
	plain, err := compute.NewWithConfig(backendConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Finalize()
	inner, err := compute.NewWithConfig(backendConfig)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := maskAddBackend{inner}
	defer wrapped.Finalize()

	const b, h, q, k = 3, 2, 4, 5
	scores := make([]float32, b*h*q*k)
	for i := range scores {
		scores[i] = float32(i%17) * 0.25
	}
	mask := make([]float32, b*k)
	for i := range mask {
		if i%3 == 0 {
			mask[i] = -10000
		}
	}
	fn := func(s, m *graph.Node) (*graph.Node, *graph.Node) {
		return graph.Add(s, m), graph.Add(m, s)
	}
	run := func(backend compute.Backend) ([]float32, []float32) {
		exec := graph.MustNewExec(backend, fn)
		defer exec.Finalize()
		st := tensors.FromFlatDataAndDimensions(scores, b, h, q, k)
		mt := tensors.FromFlatDataAndDimensions(mask, b, 1, 1, k)
		out := exec.MustExec(st, mt)
		// Feed an output back in: it must belong to the same backend.
		again := exec.MustExec(out[0], mt)
		want := out[0].Value().([][][][]float32)
		got := again[0].Value().([][][][]float32)
		if got[1][1][2][3] != want[1][1][2][3]+mask[1*k+3] {
			t.Errorf("%s: re-fed output added %v, want %v", backend.Name(), got[1][1][2][3], want[1][1][2][3]+mask[1*k+3])
		}
		return tensors.MustCopyFlatData[float32](out[0]), tensors.MustCopyFlatData[float32](out[1])
	}
	wantL, wantR := run(plain)
	gotL, gotR := run(wrapped)
	for i := range wantL {
		if gotL[i] != wantL[i] || gotR[i] != wantR[i] {
			t.Fatalf("element %d: got %v/%v, want %v/%v", i, gotL[i], gotR[i], wantL[i], wantR[i])
		}
	}
	// Spot-check the values themselves, not only the agreement.
	if want := scores[2*h*q*k+k-1] + mask[2*k+k-1]; wantL[2*h*q*k+k-1] != want {
		t.Errorf("sum = %v, want %v", wantL[2*h*q*k+k-1], want)
	}
}

func TestIsRowMask(t *testing.T) {
	f32 := func(dims ...int) shapes.Shape { return shapes.Make(dtypes.Float32, dims...) }
	for _, c := range []struct {
		mask, scores shapes.Shape
		want         bool
	}{
		{f32(8, 1, 1, 256), f32(8, 12, 256, 256), true},
		{f32(1, 1, 1, 256), f32(1, 12, 256, 256), false}, // batch 1: already vectorised
		{f32(8, 12, 256, 256), f32(8, 12, 256, 256), false},
		{f32(8, 1, 1, 128), f32(8, 12, 256, 256), false},
		{f32(8, 1, 256), f32(8, 12, 256, 256), false},
		{shapes.Make(dtypes.Int64, 8, 1, 1, 256), shapes.Make(dtypes.Int64, 8, 12, 256, 256), false},
	} {
		if got := isRowMask(c.mask, c.scores); got != c.want {
			t.Errorf("isRowMask(%s, %s) = %v, want %v", c.mask, c.scores, got, c.want)
		}
	}
}

// TestBatchedPassagesMatchSingles embeds passages of different lengths in
// one padded batch (the mask add maskAddBackend rewrites) and one by one
// (batch 1, the backend's own path): the vectors must agree.
func TestBatchedPassagesMatchSingles(t *testing.T) {
	ctx := context.Background()
	dir := embedtest.Dir(t)
	texts := make([]string, 8)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage %d: %s", i, longText(2+i*9))
	}
	embed := func(batch int) [][]float32 {
		h, err := LoadWith(ctx, dir, Options{BatchSize: batch, Workers: 1, Engine: EngineGoBackend})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		vecs, err := h.EmbedPassages(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		return vecs
	}
	singles, batched := embed(1), embed(len(texts))
	for i := range texts {
		if d := maxAbsDiff(batched[i], singles[i]); d > 1e-5 {
			t.Errorf("passage %d: batched differs from single by %g", i, d)
		}
	}
}
