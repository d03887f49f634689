package vecindex

import "math"

// The quantisation ranges are estimated from every stored vector in two
// streaming passes, so memory stays bounded at any index size: Ranges sees
// each vector once and gives the Params (int8 ranges, binary mean and cut);
// Levels then sees each vector again and sets the binary levels.

// Ranges accumulates the per-dimension range, mean and spread of vectors.
type Ranges struct {
	lo, hi     []float32
	sum, sumSq []float64
	n          int
}

// NewRanges starts an estimate for vectors of dim.
func NewRanges(dim int) *Ranges {
	return &Ranges{lo: make([]float32, dim), hi: make([]float32, dim), sum: make([]float64, dim), sumSq: make([]float64, dim)}
}

// Add takes one vector into the estimate.
func (r *Ranges) Add(v []float32) {
	for i, x := range v {
		if r.n == 0 || x < r.lo[i] {
			r.lo[i] = x
		}
		if r.n == 0 || x > r.hi[i] {
			r.hi[i] = x
		}
		r.sum[i] += float64(x)
		r.sumSq[i] += float64(x) * float64(x)
	}
	r.n++
}

// Params are the code parameters of kind for the vectors added: int8 maps
// each dimension's range onto ±127; binary codes split at the mean and at
// one standard deviation from it. The binary levels (Lo, Hi) are left to
// Levels.
func (r *Ranges) Params(kind string) *Params {
	dim := len(r.lo)
	p := &Params{Kind: kind, N: r.n, Mid: make([]float32, dim), Scale: make([]float32, dim), Mean: make([]float32, dim),
		Cut: make([]float32, dim), Lo: make([]float32, dim), Hi: make([]float32, dim)}
	for i := range dim {
		p.Mid[i] = (r.lo[i] + r.hi[i]) / 2
		p.Scale[i] = 1
		if half := (r.hi[i] - r.lo[i]) / 2; half > 0 {
			p.Scale[i] = 127 / half
		}
		if r.n > 0 {
			mean := r.sum[i] / float64(r.n)
			p.Mean[i] = float32(mean)
			p.Cut[i] = float32(math.Sqrt(max(0, r.sumSq[i]/float64(r.n)-mean*mean)))
		}
	}
	return p
}

// Levels accumulates, per dimension, the mean magnitude |x − Mean| on each
// side of Cut: the levels a binary code's two bits stand for.
type Levels struct {
	p            *Params
	loSum, hiSum []float64
	loN, hiN     []int
}

// NewLevels starts the level estimate for p.
func NewLevels(p *Params) *Levels {
	dim := len(p.Mean)
	return &Levels{p: p, loSum: make([]float64, dim), hiSum: make([]float64, dim), loN: make([]int, dim), hiN: make([]int, dim)}
}

// Add takes one vector into the estimate.
func (l *Levels) Add(v []float32) {
	for i, x := range v {
		if a := abs32(x - l.p.Mean[i]); a > l.p.Cut[i] {
			l.hiSum[i] += float64(a)
			l.hiN[i]++
		} else {
			l.loSum[i] += float64(a)
			l.loN[i]++
		}
	}
}

// Finish sets p's Lo and Hi from the vectors added.
func (l *Levels) Finish() {
	p := l.p
	for i := range p.Lo {
		p.Lo[i] = float32(l.loSum[i] / float64(max(l.loN[i], 1)))
		p.Hi[i] = float32(l.hiSum[i] / float64(max(l.hiN[i], 1)))
		if l.hiN[i] == 0 {
			p.Hi[i] = p.Cut[i] // no value above the cut yet
		}
	}
}
