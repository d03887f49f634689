//go:build goexperiment.simd && amd64

package encoder

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Rows of 1 to 40 columns cover the eight-float vector body, the scalar
// tail and rows that are all tail.
var testWidths = []int{1, 7, 8, 9, 16, 23, 40}

// expRows and scaleRows together are softmax.
func TestExpRowsMatchesFloat64Softmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, cols := range testWidths {
		for _, spread := range []float64{0.1, 10, 400} { // 400: most terms underflow
			rows, ld := 3, cols+5
			s := make([]float32, rows*ld)
			for i := range s {
				s[i] = float32(rng.NormFloat64() * spread)
			}
			orig := append([]float32(nil), s...)
			const scale = 0.125
			inv := make([]float32, rows)
			expRows(s, ld, rows, cols, scale, inv)
			scaleRows(s, ld, rows, cols, inv)
			for r := range rows {
				row := orig[r*ld:][:cols]
				m := math.Inf(-1)
				for _, v := range row {
					m = math.Max(m, float64(v))
				}
				var sum float64
				for _, v := range row {
					sum += math.Exp(scale * (float64(v) - m))
				}
				for c := range cols {
					want := math.Exp(scale*(float64(row[c])-m)) / sum
					if got := float64(s[r*ld+c]); math.Abs(got-want) > 1e-6*want+1e-30 && math.Abs(got-want) > 1e-7 {
						t.Fatalf("cols %d spread %v: [%d][%d] = %g, want %g", cols, spread, r, c, got, want)
					}
				}
				for c := cols; c < ld; c++ {
					if s[r*ld+c] != orig[r*ld+c] {
						t.Fatalf("cols %d: column %d past the row was written", cols, c)
					}
				}
			}
		}
	}
}

func TestAddBiasGELUMatchesErf(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, cols := range testWidths {
		rows, ld := 4, cols+3
		x := make([]float32, rows*ld)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 4)
		}
		x[0], x[ld-4] = 30, -30 // saturated both ways
		bias := make([]float32, cols)
		for i := range bias {
			bias[i] = float32(rng.NormFloat64())
		}
		orig := append([]float32(nil), x...)
		addBiasGELU(x, ld, rows, bias)
		for r := range rows {
			for c := range cols {
				v := float64(orig[r*ld+c]) + float64(bias[c])
				want := v * 0.5 * (1 + math.Erf(v/math.Sqrt2))
				if got := float64(x[r*ld+c]); math.Abs(got-want) > 2e-6*math.Max(1, math.Abs(v)) {
					t.Fatalf("cols %d: gelu(%g) = %g, want %g", cols, v, got, want)
				}
			}
		}
	}
}

func TestLayerNormMatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, cols := range testWidths {
		rows, ld := 3, cols+2
		x := make([]float32, rows*ld)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*3 + 5)
		}
		gamma, beta, bias := make([]float32, cols), make([]float32, cols), make([]float32, cols)
		for i := range gamma {
			gamma[i], beta[i], bias[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		orig := append([]float32(nil), x...)
		const eps = 1e-5
		layerNorm(x, ld, rows, bias, gamma, beta, eps)
		for r := range rows {
			var mean, variance float64
			for c := range cols {
				mean += float64(orig[r*ld+c]) + float64(bias[c])
			}
			mean /= float64(cols)
			for c := range cols {
				d := float64(orig[r*ld+c]) + float64(bias[c]) - mean
				variance += d * d
			}
			variance /= float64(cols)
			for c := range cols {
				want := (float64(orig[r*ld+c])+float64(bias[c])-mean)/math.Sqrt(variance+eps)*float64(gamma[c]) + float64(beta[c])
				if got := float64(x[r*ld+c]); math.Abs(got-want) > 1e-4 {
					t.Fatalf("cols %d: [%d][%d] = %g, want %g", cols, r, c, got, want)
				}
			}
		}
	}
}

// TestLayerNormOfAZeroMeanRow: a row whose mean is exactly 0 still has its
// variance taken from squares, not from the values.
func TestLayerNormOfAZeroMeanRow(t *testing.T) {
	row := []float32{1, -1, 2, -2, 3, -3, 4, -4, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5}
	gamma, beta := make([]float32, len(row)), make([]float32, len(row))
	var variance float64
	for i, v := range row {
		gamma[i] = 1
		variance += float64(v) * float64(v)
	}
	variance /= float64(len(row))
	want := make([]float64, len(row))
	for i, v := range row {
		want[i] = float64(v) / math.Sqrt(variance+1e-12)
	}
	layerNorm(row, len(row), 1, nil, gamma, beta, 1e-12)
	for i := range row {
		if math.Abs(float64(row[i])-want[i]) > 1e-5 {
			t.Fatalf("[%d] = %g, want %g", i, row[i], want[i])
		}
	}
}

func TestErfWithinItsBound(t *testing.T) {
	for i := -600000; i <= 600000; i++ {
		z := float32(i) * 1e-5
		if d := math.Abs(float64(erfScalar(z)) - math.Erf(float64(z))); d > 5e-7 {
			t.Fatalf("erf(%g) off by %g", z, d)
		}
	}
	// The assembly computes the same function: GELU over the same sweep.
	const n = 1 << 16
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i-n/2) * (12.0 / n)
	}
	orig := append([]float32(nil), x...)
	addBiasGELU(x, n, 1, make([]float32, n))
	for i, v := range orig {
		want := float64(v) * 0.5 * (1 + math.Erf(float64(v)/math.Sqrt2))
		if d := math.Abs(float64(x[i]) - want); d > 3e-7*math.Max(1, math.Abs(float64(v))) {
			t.Fatalf("gelu(%g) = %g, want %g", v, x[i], want)
		}
	}
}

// BenchmarkGELU and BenchmarkExpRows report ns per element on MiniLM's
// shapes: a 1536-wide intermediate row, a 235-score attention row.
func BenchmarkGELU(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, cols = 64, 1536
	x := randomMatrix(rng, rows*cols)
	bias := randomMatrix(rng, cols)
	for b.Loop() {
		addBiasGELU(x, cols, rows, bias)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows*cols), "ns/elem")
}

func BenchmarkExpRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, cols = 235, 235
	s := randomMatrix(rng, rows*cols)
	inv := make([]float32, rows)
	for b.Loop() {
		expRows(s, cols, rows, cols, 0.17, inv)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows*cols), "ns/elem")
}

func BenchmarkLayerNorm(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	const rows, cols = 235, 384
	x := randomMatrix(rng, rows*cols)
	bias, gamma, beta := randomMatrix(rng, cols), randomMatrix(rng, cols), randomMatrix(rng, cols)
	for b.Loop() {
		layerNorm(x, cols, rows, bias, gamma, beta, 1e-12)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows*cols), "ns/float")
}

func TestAddRowsAddsToEachRowOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, cols := range testWidths {
		rows, ld := 3, cols+5
		x := randomMatrix(rng, rows*ld)
		v := randomMatrix(rng, cols)
		orig := append([]float32(nil), x...)
		addRows(x, ld, rows, v)
		for r := range rows {
			for c := range ld {
				want := orig[r*ld+c]
				if c < cols {
					want += v[c]
				}
				if x[r*ld+c] != want {
					t.Fatalf("cols %d: x[%d][%d] = %v, want %v", cols, r, c, x[r*ld+c], want)
				}
			}
		}
	}
}
