package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// In-memory binary codes.
//
// Reading the bit index out of SQLite took about 6 ms per query at 100k
// chunks, more than scanning it. The codes are small (two 48-byte bit
// planes per chunk at 384 dimensions: 10.4 MB per 100k chunks with their
// rowids), so each Store keeps a copy in memory, loaded on the first
// binary search. Every write
// that changes the bit index bumps a generation number stored in meta in
// the same transaction; a search compares it with the copy's and reloads
// when they differ. Keeping the number in the file rather than in the Store
// also catches writes made by another process (the CLI beside the app).

const metaVectorGen = "vec_gen"

// bumpVectorGen marks the bit index as changed; part of the writer's
// transaction, so readers see the new number together with the new codes.
const bumpVectorGen = `INSERT INTO meta(key, value) VALUES('` + metaVectorGen + `', '1')
	ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`

// codeSet is one immutable snapshot of the bit index. The sign planes are
// kept word-major, apart from the magnitude planes: the Hamming pass reads
// word w of every code as one contiguous column, so a vector load covers
// eight codes and no per-code sums have to be gathered across lanes.
type codeSet struct {
	gen   int64
	words int     // uint64 words per bit plane
	ids   []int64 // chunk rowid of each code
	// signCols[w*len(ids)+i] is word w of code i's sign plane.
	signCols []uint64
	mags     []uint64 // words per code, in ids order
}

// newCodeSet builds a snapshot from planes stored code after code.
func newCodeSet(words int, ids []int64, signs, mags []uint64) *codeSet {
	n := len(ids)
	cols := make([]uint64, len(signs))
	for i := range n {
		for w := range words {
			cols[w*n+i] = signs[i*words+w]
		}
	}
	return &codeSet{words: words, ids: ids, signCols: cols, mags: mags}
}

// planes returns code i's sign plane, gathered into dst, and its
// magnitude plane.
func (c *codeSet) planes(i int, dst []uint64) (sign, mag []uint64) {
	n := len(c.ids)
	for w := range c.words {
		dst[w] = c.signCols[w*n+i]
	}
	at := i * c.words
	return dst[:c.words], c.mags[at : at+c.words]
}

// codeCache holds the current snapshot. Searches read it without locking;
// mu only keeps concurrent searches from loading the same snapshot twice.
type codeCache struct {
	mu  sync.Mutex
	cur atomic.Pointer[codeSet]
}

// binaryCodes returns the bit index as of the current generation, loading
// it through conn when the copy in memory is missing or stale. ok is false
// when the table's storage is not laid out as expected.
func (s *Store) binaryCodes(ctx context.Context, conn *sql.Conn) (set *codeSet, ok bool, err error) {
	gen, err := vectorGen(ctx, conn)
	if err != nil {
		return nil, false, err
	}
	if c := s.mem.cur.Load(); c != nil && c.gen == gen {
		return c, true, nil
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	if c := s.mem.cur.Load(); c != nil && c.gen == gen {
		return c, true, nil // another search loaded it meanwhile
	}
	// The generation was read before the codes, so a write committed in
	// between leaves this snapshot with an older number than its content:
	// the next search reloads once more instead of keeping stale codes.
	set, ok, err = loadCodes(ctx, conn, s.Dim())
	if err != nil || !ok {
		return nil, ok, err
	}
	set.gen = gen
	s.mem.cur.Store(set)
	return set, true, nil
}

func vectorGen(ctx context.Context, conn *sql.Conn) (int64, error) {
	var gen int64
	err := conn.QueryRowContext(ctx, `SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)`,
		metaVectorGen).Scan(&gen)
	if err != nil {
		return 0, fmt.Errorf("read vector index generation: %w", err)
	}
	return gen, nil
}

// loadCodes reads every valid code of the bit table straight from
// sqlite-vec's block storage (one row per 1024 vectors: a validity bitmap,
// the rowids and the packed codes), which is far cheaper than a row per
// vector.
func loadCodes(ctx context.Context, conn *sql.Conn, dim int) (*codeSet, bool, error) {
	table := quantTable(VectorBinary)
	rows, err := conn.QueryContext(ctx, `SELECT c.validity, c.rowids, v.vectors
		FROM "`+table+`_chunks" c JOIN "`+table+`_vector_chunks00" v ON v.rowid = c.chunk_id
		ORDER BY c.chunk_id`)
	if err != nil {
		if strings.Contains(err.Error(), "no such") {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("load binary codes: %w", err)
	}
	defer rows.Close()
	plane := planeBytes(dim)
	width := 2 * plane
	words := (plane + 7) / 8
	var ids []int64
	var signs, mags []uint64
	buf := make([]byte, words*8)
	for rows.Next() {
		var validity, rowids, vectors sql.RawBytes
		if err := rows.Scan(&validity, &rowids, &vectors); err != nil {
			return nil, false, fmt.Errorf("load binary codes: %w", err)
		}
		size := len(validity) * 8
		if len(rowids) != size*8 || len(vectors) != size*width {
			return nil, false, nil
		}
		ids = slices.Grow(ids, size)
		signs = slices.Grow(signs, size*words)
		mags = slices.Grow(mags, size*words)
		for i := range size {
			if validity[i/8]&(1<<(i%8)) == 0 {
				continue
			}
			ids = append(ids, int64(binary.LittleEndian.Uint64(rowids[i*8:])))
			code := vectors[i*width : (i+1)*width]
			signs = appendWords(signs, code[:plane], buf)
			mags = appendWords(mags, code[plane:], buf)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("load binary codes: %w", err)
	}
	return newCodeSet(words, ids, signs, mags), true, nil
}

// appendWords appends one bit plane as little-endian words; buf holds a
// plane whose length is not a whole number of words (padding stays 0).
func appendWords(dst []uint64, plane, buf []byte) []uint64 {
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

// packPlane turns one bit plane into the little-endian words codeSet keeps.
func packPlane(b []byte, words int) []uint64 {
	buf := make([]byte, words*8)
	copy(buf, b)
	out := make([]uint64, words)
	for w := range out {
		out[w] = binary.LittleEndian.Uint64(buf[w*8:])
	}
	return out
}

// nearest returns the rowids of the n codes that score best against q,
// best first: a Hamming pass over every code's sign plane keeps the nearest
// few thousand (prefilterFactor), which binaryScorer then ranks. Ties go to
// the lower rowid, so the answer depends only on the index content.
func (c *codeSet) nearest(p *quantParams, q []float32, n int) []int64 {
	if n <= 0 || len(c.ids) == 0 {
		return nil
	}
	qsign := packPlane(p.code(q)[:planeBytes(len(q))], c.words)
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
			top.push(scored{id: c.ids[i], score: scorer.score(c.planes(i, sign))})
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
