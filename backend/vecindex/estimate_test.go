package vecindex

import (
	"math"
	"slices"
	"testing"
)

// TestEstimatedParams pins the two-pass estimate on vectors worked by hand:
// dimension 0 spans 0..4 around a mean of 2 (spread √(8/3)); dimension 1
// is constant, so its scale stays 1, its cut 0 and its high level falls
// back to the cut.
func TestEstimatedParams(t *testing.T) {
	vecs := [][]float32{{0, 2}, {2, 2}, {4, 2}}
	r := NewRanges(2)
	for _, v := range vecs {
		r.Add(v)
	}
	p := r.Params(KindBinary)
	l := NewLevels(p)
	for _, v := range vecs {
		l.Add(v)
	}
	l.Finish()
	near := func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }
	if p.N != 3 || !slices.Equal(p.Mid, []float32{2, 2}) || !slices.Equal(p.Scale, []float32{63.5, 1}) || !slices.Equal(p.Mean, []float32{2, 2}) {
		t.Errorf("ranges: %+v", p)
	}
	if !near(p.Cut[0], float32(math.Sqrt(8.0/3))) || p.Cut[1] != 0 {
		t.Errorf("cut = %v", p.Cut)
	}
	if !slices.Equal(p.Lo, []float32{0, 0}) || !slices.Equal(p.Hi, []float32{2, 0}) {
		t.Errorf("levels lo %v hi %v", p.Lo, p.Hi)
	}
	if !p.Usable(KindBinary, 2) || p.Usable(KindInt8, 2) || p.Usable(KindBinary, 3) {
		t.Error("Usable disagrees with the estimate's kind and width")
	}
}
