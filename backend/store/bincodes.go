package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/footnote-app/footnote/backend/vecindex"
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

// codeCache holds the current snapshot. Searches read it without locking;
// mu only keeps concurrent searches from loading the same snapshot twice.
type codeCache struct {
	mu  sync.Mutex
	cur atomic.Pointer[genCodes]
}

// genCodes is a snapshot with the generation it was loaded at.
type genCodes struct {
	gen   int64
	codes *vecindex.Codes
}

// binaryCodes returns the bit index as of the current generation, loading
// it through conn when the copy in memory is missing or stale. ok is false
// when the table's storage is not laid out as expected.
func (s *Store) binaryCodes(ctx context.Context, conn *sql.Conn) (set *vecindex.Codes, ok bool, err error) {
	gen, err := vectorGen(ctx, conn)
	if err != nil {
		return nil, false, err
	}
	if c := s.mem.cur.Load(); c != nil && c.gen == gen {
		return c.codes, true, nil
	}
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	if c := s.mem.cur.Load(); c != nil && c.gen == gen {
		return c.codes, true, nil // another search loaded it meanwhile
	}
	// The generation was read before the codes, so a write committed in
	// between leaves this snapshot with an older number than its content:
	// the next search reloads once more instead of keeping stale codes.
	set, ok, err = loadCodes(ctx, conn, s.Dim())
	if err != nil || !ok {
		return nil, ok, err
	}
	s.mem.cur.Store(&genCodes{gen: gen, codes: set})
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
func loadCodes(ctx context.Context, conn *sql.Conn, dim int) (*vecindex.Codes, bool, error) {
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
	plane := vecindex.PlaneBytes(dim)
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
			signs = vecindex.AppendWords(signs, code[:plane], buf)
			mags = vecindex.AppendWords(mags, code[plane:], buf)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("load binary codes: %w", err)
	}
	return vecindex.NewCodes(words, ids, signs, mags), true, nil
}
