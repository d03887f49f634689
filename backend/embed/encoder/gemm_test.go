//go:build goexperiment.simd && amd64

package encoder

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveProduct is C = A·B in float64, the reference the kernel must match.
func naiveProduct(a []float32, m, k int, b []float32, n int) []float64 {
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for l := range k {
				s += float64(a[i*k+l]) * float64(b[l*n+j])
			}
			c[i*n+j] = s
		}
	}
	return c
}

func randomMatrix(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.NormFloat64())
	}
	return out
}

func TestGemmMatchesNaiveProductOnEveryEdge(t *testing.T) {
	if !supported {
		t.Skip("this CPU has no AVX2 with FMA; the encoder does not run here and the Go backend is used")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct{ m, k, n int }{
		{1, 1, 1}, {6, 16, 16}, {7, 5, 17}, {235, 384, 384}, {13, 300, 40}, {5, 600, 33}, {7, kc + 70, 25}, {12, 32, 235}, {9, 40, 32}, {11, 70, 16}, {3, 2, 48},
	} {
		a := randomMatrix(rng, s.m*s.k)
		b := randomMatrix(rng, s.k*s.n)
		want := naiveProduct(a, s.m, s.k, b, s.n)
		for _, transposed := range []bool{false, true} {
			src, ld := b, s.n
			if transposed {
				src, ld = make([]float32, s.n*s.k), s.k
				for i := range s.k {
					for j := range s.n {
						src[j*s.k+i] = b[i*s.n+j]
					}
				}
			}
			var p packed
			pack(&p, src, ld, s.k, s.n, transposed)
			// C is wider than N, to check the kernel keeps to its columns.
			ldc := s.n + 3
			c := make([]float32, s.m*ldc)
			for i := range c {
				c[i] = 1
			}
			gemm(c, ldc, a, s.k, s.m, &p, true)
			for i := range s.m {
				for j := range ldc {
					got := float64(c[i*ldc+j])
					if j >= s.n {
						if got != 1 {
							t.Fatalf("%v: column %d beyond N was written: %v", s, j, got)
						}
						continue
					}
					w := want[i*s.n+j] + 1
					if math.Abs(got-w) > 1e-4*math.Sqrt(float64(s.k))+1e-5 {
						t.Fatalf("%v transposed=%v: C[%d][%d] = %v, want %v", s, transposed, i, j, got, w)
					}
				}
			}
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	if !supported {
		b.Skip("no AVX2 with FMA")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct {
		name    string
		m, k, n int
	}{
		{"qkv", 235, 384, 1152}, {"up", 235, 384, 1536}, {"down", 235, 1536, 384},
		{"qkv-b8", 1880, 384, 1152}, {"up-b8", 1880, 384, 1536}, {"down-b8", 1880, 1536, 384},
		{"scores", 235, 32, 235}, {"context", 235, 235, 32},
	} {
		b.Run(s.name, func(b *testing.B) {
			a := randomMatrix(rng, s.m*s.k)
			var p packed
			pack(&p, randomMatrix(rng, s.k*s.n), s.n, s.k, s.n, false)
			c := make([]float32, s.m*s.n)
			for b.Loop() {
				gemm(c, s.n, a, s.k, s.m, &p, false)
			}
			b.ReportMetric(float64(2*s.m*s.k*s.n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
		})
	}
}

// BenchmarkPack packs one head's keys (transposed) and values as
// attention does: 235 rows of 32 floats out of the 1,152-wide
// query-key-value rows.
func BenchmarkPack(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const t, dh, ld = 235, 32, 1152
	src := randomMatrix(rng, t*ld)
	for _, keys := range []bool{true, false} {
		name, k, n := "values", t, dh
		if keys {
			name, k, n = "keys", dh, t
		}
		b.Run(name, func(b *testing.B) {
			var p packed
			for b.Loop() {
				pack(&p, src, ld, k, n, keys)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*t*dh), "ns/float")
		})
	}
}
