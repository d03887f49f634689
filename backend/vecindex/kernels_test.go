package vecindex

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// randomCodes returns n codes of dim dimensions, stored code after code.
func randomCodes(rng *rand.Rand, n, dim int) (words int, ids []int64, signs, mags []uint64) {
	words = (dim + 63) / 64
	ids = make([]int64, n)
	signs, mags = make([]uint64, n*words), make([]uint64, n*words)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	// Bits past dim stay zero, as packPlane leaves them.
	last := ^uint64(0) >> ((64 - dim%64) % 64)
	for i := range signs {
		signs[i], mags[i] = rng.Uint64(), rng.Uint64()
		if i%words == words-1 {
			signs[i] &= last
			mags[i] &= last
		}
	}
	return words, ids, signs, mags
}

// naiveScore is binaryScorer's definition, one dimension at a time.
func naiveScore(s binaryScorer, dim int, sign, mag []uint64) int32 {
	var sum int32
	for d := range dim {
		v := s.lo[d]
		if mag[d/64]>>(d%64)&1 == 1 {
			v = s.hi[d]
		}
		if sign[d/64]>>(d%64)&1 == 0 {
			v = -v
		}
		sum += v
	}
	return sum
}

func binaryParams(rng *rand.Rand, dim int) *Params {
	p := &Params{Kind: KindBinary, Mean: make([]float32, dim), Cut: make([]float32, dim),
		Lo: make([]float32, dim), Hi: make([]float32, dim)}
	for d := range dim {
		p.Lo[d] = 0.01 + 0.02*rng.Float32()
		p.Hi[d] = p.Lo[d] + 0.05*rng.Float32()
		p.Cut[d] = (p.Lo[d] + p.Hi[d]) / 2
	}
	return p
}

// TestBinaryScoringKernelsAgree checks that the lookup tables and the
// vector kernel (when this CPU runs it) give exactly the per-dimension
// definition's score, including dimensions that do not fill a word.
func TestBinaryScoringKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dim := range []int{384, 100, 768, 16, 70} {
		p := binaryParams(rng, dim)
		q := clustered(rng, 1, dim, 1)[0]
		s := newBinaryScorer(p, q)
		lut := s.tables(dim)
		words, _, signs, mags := randomCodes(rng, 200, dim)
		for i := range 200 {
			sign, mag := signs[i*words:(i+1)*words], mags[i*words:(i+1)*words]
			want := naiveScore(s, dim, sign, mag)
			if got := scoreTables(lut, sign, mag); got != want {
				t.Fatalf("dim %d code %d: tables score %d, want %d", dim, i, got, want)
			}
			if got := s.score(sign, mag); got != want {
				t.Fatalf("dim %d code %d: score %d, want %d (vector kernel: %v)", dim, i, got, want, vectorScoring)
			}
		}
	}
}

// TestHammingKernelsAgree checks the Hamming pass over word-major columns,
// vector and scalar, against a per-code count, for code counts that do
// not fill the vector kernel's blocks of eight.
func TestHammingKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 7, 8, 9, 1003} {
		words, ids, signs, mags := randomCodes(rng, n, 384)
		set := NewCodes(words, ids, signs, mags)
		q := make([]uint64, words)
		for w := range q {
			q[w] = rng.Uint64()
		}
		got := make([]uint16, n)
		hamming(set.signCols, q, got)
		scalar := make([]uint16, n)
		hammingScalar(set.signCols, q, scalar, 0)
		buf := make([]uint64, words)
		for i := range n {
			sign, mag := set.Planes(i, buf)
			want := 0
			for w := range words {
				want += bits.OnesCount64(sign[w] ^ q[w])
				if sign[w] != signs[i*words+w] || mag[w] != mags[i*words+w] {
					t.Fatalf("n %d: planes(%d) word %d differ from the stored code", n, i, w)
				}
			}
			if int(got[i]) != want || int(scalar[i]) != want {
				t.Fatalf("n %d code %d: hamming %d, scalar %d, want %d", n, i, got[i], scalar[i], want)
			}
		}
	}
}

func TestHistogramCountsEveryDistance(t *testing.T) {
	ds := []uint16{3, 3, 0, 7, 3, 1, 7}
	got := histogram(ds, 8)
	want := []int{1, 1, 0, 3, 0, 0, 0, 2}
	for d := range want {
		if got[d] != want[d] {
			t.Fatalf("histogram = %v, want %v", got, want)
		}
	}
}

// clustered returns n unit vectors of dim around centres random centres
// (the same data shape as store's recall tests).
func clustered(rng *rand.Rand, n, dim, centres int) [][]float32 {
	cs := make([][]float64, centres)
	for i := range cs {
		cs[i] = make([]float64, dim)
		for d := range cs[i] {
			cs[i][d] = rng.NormFloat64()
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[rng.IntN(centres)]
		v := make([]float32, dim)
		var norm float64
		for d := range v {
			x := c[d] + 0.8*rng.NormFloat64()
			v[d] = float32(x)
			norm += x * x
		}
		for d := range v {
			v[d] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out
}

// BenchmarkBinaryScan measures the in-Go part of a binary candidate scan
// over codes in memory: the Hamming pass over 100k 384-dimension codes and
// the finer scoring of the nearest few thousand.
func BenchmarkBinaryScan(b *testing.B) {
	const dim, n = 384, 100_000
	rng := rand.New(rand.NewPCG(3, 4))
	p := &Params{Kind: KindBinary, Mean: make([]float32, dim), Cut: make([]float32, dim),
		Lo: make([]float32, dim), Hi: make([]float32, dim)}
	for d := range dim {
		p.Cut[d], p.Lo[d], p.Hi[d] = 0.05, 0.02, 0.08
	}
	ids, signs, mags := make([]int64, n), make([]uint64, n*dim/64), make([]uint64, n*dim/64)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	for i := range signs {
		signs[i], mags[i] = rng.Uint64(), rng.Uint64()
	}
	set := NewCodes(dim/64, ids, signs, mags)
	q := clustered(rng, 1, dim, 1)[0]
	for b.Loop() {
		set.Nearest(p, q, 200)
	}
}
