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

// codeSet is one immutable snapshot of the bit index. The sign planes of
// all codes are kept apart from their magnitude planes so the Hamming pass,
// which reads every sign plane, streams through contiguous memory.
type codeSet struct {
	gen   int64
	words int      // uint64 words per bit plane
	ids   []int64  // chunk rowid of each code
	signs []uint64 // words per code, in ids order
	mags  []uint64 // words per code, in ids order
}

// planes returns code i's sign and magnitude planes.
func (c *codeSet) planes(i int) (sign, mag []uint64) {
	at := i * c.words
	return c.signs[at : at+c.words], c.mags[at : at+c.words]
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
	set := &codeSet{words: (plane + 7) / 8}
	buf := make([]byte, set.words*8)
	for rows.Next() {
		var validity, rowids, vectors sql.RawBytes
		if err := rows.Scan(&validity, &rowids, &vectors); err != nil {
			return nil, false, fmt.Errorf("load binary codes: %w", err)
		}
		size := len(validity) * 8
		if len(rowids) != size*8 || len(vectors) != size*width {
			return nil, false, nil
		}
		set.ids = slices.Grow(set.ids, size)
		set.signs = slices.Grow(set.signs, size*set.words)
		set.mags = slices.Grow(set.mags, size*set.words)
		for i := range size {
			if validity[i/8]&(1<<(i%8)) == 0 {
				continue
			}
			set.ids = append(set.ids, int64(binary.LittleEndian.Uint64(rowids[i*8:])))
			code := vectors[i*width : (i+1)*width]
			set.signs = appendWords(set.signs, code[:plane], buf)
			set.mags = appendWords(set.mags, code[plane:], buf)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("load binary codes: %w", err)
	}
	return set, true, nil
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
	hist := make([]int, 64*c.words+1)
	if c.words == 6 { // 384 dimensions, the usual model size: unrolled
		q0, q1, q2, q3, q4, q5 := qsign[0], qsign[1], qsign[2], qsign[3], qsign[4], qsign[5]
		signs := c.signs
		for i := range ds {
			x := signs[6*i : 6*i+6 : 6*i+6]
			d := bits.OnesCount64(x[0]^q0) + bits.OnesCount64(x[1]^q1) + bits.OnesCount64(x[2]^q2) +
				bits.OnesCount64(x[3]^q3) + bits.OnesCount64(x[4]^q4) + bits.OnesCount64(x[5]^q5)
			ds[i] = uint16(d)
			hist[d]++
		}
	} else {
		for i := range ds {
			d := hammingWords(c.signs[i*c.words:(i+1)*c.words], qsign)
			ds[i] = uint16(d)
			hist[d]++
		}
	}
	m := max(n*prefilterFactor, minPrefilter)
	cutoff, kept := 0, 0
	for ; cutoff < len(hist)-1 && kept+hist[cutoff] < m; cutoff++ {
		kept += hist[cutoff]
	}
	scorer := newBinaryScorer(p, q)
	top := topScored{n: n, heap: make([]scored, 0, n)}
	for i, d := range ds {
		if int(d) <= cutoff {
			top.push(scored{id: c.ids[i], score: scorer.score(c.planes(i))})
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

func hammingWords(a, b []uint64) int32 {
	var n int
	b = b[:len(a)]
	for i, x := range a {
		n += bits.OnesCount64(x ^ b[i])
	}
	return int32(n)
}
