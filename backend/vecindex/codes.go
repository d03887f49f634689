// Package vecindex owns the quantised vector codes and the arithmetic on
// them: int8 and two-plane binary codes of float32 embeddings (Params), the
// estimated scores that rank binary codes against a query (table lookups,
// or AVX-512 kernels where the CPU has them, with identical results), the
// in-memory snapshot of every code with its Hamming prefilter (Codes), and
// the int8 distance that shortlists candidates. It holds no SQL: backend/store
// keeps the tables, reads the codes out of them and rescores the final
// candidates with the exact float32 distance.
package vecindex

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

// Codes is one immutable snapshot of the bit index. The sign planes are
// kept word-major, apart from the magnitude planes: the Hamming pass reads
// word w of every code as one contiguous column, so a vector load covers
// eight codes and no per-code sums have to be gathered across lanes.
type Codes struct {
	words int     // uint64 words per bit plane
	ids   []int64 // chunk rowid of each code
	// signCols[w*len(ids)+i] is word w of code i's sign plane.
	signCols []uint64
	mags     []uint64 // words per code, in ids order
}

// NewCodes builds a snapshot from planes stored code after code.
func NewCodes(words int, ids []int64, signs, mags []uint64) *Codes {
	n := len(ids)
	cols := make([]uint64, len(signs))
	for i := range n {
		for w := range words {
			cols[w*n+i] = signs[i*words+w]
		}
	}
	return &Codes{words: words, ids: ids, signCols: cols, mags: mags}
}

// Len is the number of codes.
func (c *Codes) Len() int { return len(c.ids) }

// IDs are the chunk rowids of the codes, in code order; callers must not
// change them.
func (c *Codes) IDs() []int64 { return c.ids }

// Words is the number of uint64 words in one bit plane.
func (c *Codes) Words() int { return c.words }

// Planes returns code i's sign plane, gathered into dst, and its
// magnitude plane.
func (c *Codes) Planes(i int, dst []uint64) (sign, mag []uint64) {
	n := len(c.ids)
	for w := range c.words {
		dst[w] = c.signCols[w*n+i]
	}
	at := i * c.words
	return dst[:c.words], c.mags[at : at+c.words]
}

// AppendWords appends one bit plane as little-endian words; buf holds a
// plane whose length is not a whole number of words (padding stays 0).
func AppendWords(dst []uint64, plane, buf []byte) []uint64 {
	if len(plane)%8 != 0 {
		copy(buf, plane)
		plane = buf
	}
	for len(plane) >= 8 {
		dst = append(dst, binary.LittleEndian.Uint64(plane))
		plane = plane[8:]
	}
	return dst
}

// packPlane turns one bit plane into the little-endian words Codes keeps.
func packPlane(b []byte, words int) []uint64 {
	buf := make([]byte, words*8)
	copy(buf, b)
	out := make([]uint64, words)
	for w := range out {
		out[w] = binary.LittleEndian.Uint64(buf[w*8:])
	}
	return out
}

// Nearest returns the rowids of the n codes that score best against q,
// best first: a Hamming pass over every code's sign plane keeps the nearest
// few thousand (prefilterFactor), which binaryScorer then ranks. Ties go to
// the lower rowid, so the answer depends only on the index content.
func (c *Codes) Nearest(p *Params, q []float32, n int) []int64 {
	if n <= 0 || len(c.ids) == 0 {
		return nil
	}
	qsign := packPlane(p.Code(q)[:PlaneBytes(len(q))], c.words)
	// Distances are small integers, so a histogram finds the cutoff that
	// keeps at least m codes without a heap; every code at the cutoff
	// distance is kept, which keeps the choice independent of scan order.
	dist := distPool.Get().(*[]uint16)
	defer distPool.Put(dist)
	if cap(*dist) < len(c.ids) {
		*dist = make([]uint16, len(c.ids))
	}
	ds := (*dist)[:len(c.ids)]
	hamming(c.signCols, qsign, ds)
	hist := histogram(ds, 64*c.words+1)
	m := max(n*prefilterFactor, minPrefilter)
	cutoff, kept := 0, 0
	for ; cutoff < len(hist)-1 && kept+hist[cutoff] < m; cutoff++ {
		kept += hist[cutoff]
	}
	scorer := newBinaryScorer(p, q)
	top := topScored{n: n, heap: make([]scored, 0, n)}
	sign := make([]uint64, c.words)
	for i, d := range ds {
		if int(d) <= cutoff {
			top.push(scored{id: c.ids[i], score: scorer.score(c.Planes(i, sign))})
		}
	}
	slices.SortFunc(top.heap, func(a, b scored) int {
		switch {
		case a.worse(b):
			return 1
		case b.worse(a):
			return -1
		}
		return 0
	})
	ids := make([]int64, len(top.heap))
	for i, cand := range top.heap {
		ids[i] = cand.id
	}
	return ids
}

// distPool recycles the per-code distance buffers of nearest (2 bytes per
// code) across searches.
var distPool = sync.Pool{New: func() any { return new([]uint16) }}

// histogram counts the distances in ds (each below size). Four partial
// counts take turns: distances cluster, and one counter bumped over and
// over waits on its own previous store each time.
func histogram(ds []uint16, size int) []int {
	var part [4][]int
	for j := range part {
		part[j] = make([]int, size)
	}
	i := 0
	for ; i+4 <= len(ds); i += 4 {
		part[0][ds[i]]++
		part[1][ds[i+1]]++
		part[2][ds[i+2]]++
		part[3][ds[i+3]]++
	}
	for ; i < len(ds); i++ {
		part[0][ds[i]]++
	}
	for j := 1; j < len(part); j++ {
		for d, n := range part[j] {
			part[0][d] += n
		}
	}
	return part[0]
}

// hamming sets out[i] to the Hamming distance between code i's sign plane
// (word-major columns, len(out) codes) and q.
func hamming(cols, q []uint64, out []uint16) {
	done := 0
	if vectorScoring {
		done = hammingVector(cols, q, out)
	}
	hammingScalar(cols, q, out, done)
}

// hammingScalar is hamming for codes from the first-th on.
func hammingScalar(cols, q []uint64, out []uint16, first int) {
	n := len(out)
	clear(out[first:])
	for w, qw := range q {
		col := cols[w*n : (w+1)*n]
		for i := first; i < n; i++ {
			out[i] += uint16(bits.OnesCount64(col[i] ^ qw))
		}
	}
}

// prefilterFactor: the Hamming pass keeps this many codes per candidate
// wanted (at least minPrefilter) for the finer scoring. Hamming distance
// costs a few instructions per code where binaryScorer costs a table
// lookup per four dimensions. On bench/retrieval's data recall did not
// change from 4× and 500 codes up to 8× and 4000, but on the isotropic test
// data of TestQuantisedRecallAgainstExact 4× and 500 lost 6 points.
const (
	prefilterFactor = 8
	minPrefilter    = 2000
)
