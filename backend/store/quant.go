package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/footnote-app/footnote/backend/vecindex"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Vector storage kinds. The float32 vectors in chunks_vec are always kept:
// they are the source of truth for rebuilding, for reusing embeddings of
// unchanged chunks and for rescoring. A quantised kind adds a compact copy
// that the nearest-neighbour scan reads instead; its top candidates are then
// rescored with the exact float32 distance, so the distances reported are
// always exact and only the candidate set is approximate.
const (
	VectorFloat32 = vecindex.KindFloat32 // exact scan of float32 vectors
	VectorInt8    = vecindex.KindInt8    // int8 with a per-dimension scale, rescored
	VectorBinary  = vecindex.KindBinary  // one bit per dimension, rescored
)

// DefaultVectorStorage was chosen by bench/retrieval on a loaded 2-core
// machine (load 2–3): at 100k chunks binary search (codes in memory, an
// int8 shortlist, exact rescoring; see searchQuantised) took 6.7 ms p50
// with recall@10 0.977 against exact float32 search, where int8 (vec0 KNN,
// whose int8 distance is a scalar loop) took 88 ms and float32 89 ms; at
// 1M chunks binary took 26 ms with recall@10 0.958. Binary codes are also
// the only copy small enough to keep in memory at a million chunks (two
// bit planes: 96 MB at 384 dimensions).
const DefaultVectorStorage = VectorBinary

// Oversampling: how many quantised candidates are rescored per wanted hit.
// Measured at 10k chunks with queries unlike the corpus: int8 recall@10 was
// 0.785 at 1×, 0.978 at 2× and 1.000 at 4×.
//
// Binary codes (two bit planes ranked by vecindex.Codes.Nearest, then the int8
// shortlist) need binaryCandidates: at 100k chunks recall@10 was 0.945
// from 80 candidates, 0.978 from 120 and 0.990 from 160; recall@20 0.986
// from 160 and 0.998 from 240. The fixed extra serves small k, where the
// estimate errs most relative to k. A larger index packs more chunks
// between the true neighbours and the estimate's error, so the count grows
// with the square root of the index size above binaryScaleFrom: at 1M
// chunks 140 candidates gave recall@10 0.78–0.87, 300 gave 0.97 and 600
// 0.99. Every candidate costs a row read in the shortlist stage.
const (
	int8Oversample   = 4
	binaryOversample = 8
	binaryExtra      = 60
	binaryScaleFrom  = 100_000
	minCandidates    = 64
)

// binaryCandidates is how many codes the in-memory scan passes on for k
// hits out of n codes.
func binaryCandidates(k, n int) int {
	c := float64(k*binaryOversample + binaryExtra)
	if n > binaryScaleFrom {
		c *= math.Sqrt(float64(n) / binaryScaleFrom)
	}
	return min(int(c), maxK)
}

// requantiseBelow: while the index is small its quantisation ranges are
// re-estimated whenever it doubles; above this size they are stable.
const requantiseBelow = 100_000

const metaQuant = "vec_quant"

// dropQuantTables clears every quantised copy; part of a content reset.
const dropQuantTables = `DROP TABLE IF EXISTS chunks_vec_i8;
	DROP TABLE IF EXISTS ` + shortlistTable + `;
	DROP TABLE IF EXISTS chunks_vec_bit;
	DELETE FROM meta WHERE key = '` + metaQuant + `';
	` + bumpVectorGen + `;`

func quantTable(kind string) string {
	switch kind {
	case VectorInt8:
		return "chunks_vec_i8"
	case VectorBinary:
		return "chunks_vec_bit"
	}
	return ""
}

// shortlistTable holds an int8 code per chunk vector, one plain row each,
// for the binary search's middle stage (shortlist in search.go). The int8
// codes are also in chunks_vec_i8 for the int8 kind, but vec0 keeps 1024
// vectors per blob and reading one vector by rowid walks the blob's
// overflow pages: about 25 µs per candidate at 100k chunks on a loaded
// machine against about 8 µs for a plain row read in one statement. The table
// adds a byte per dimension, about 40 MB per 100k chunks at 384 dimensions;
// a float32 copy would add 205 MB for a rescoring only slightly faster.
const shortlistTable = "chunks_i8rows"

func validStorage(kind string) bool {
	return kind == VectorFloat32 || kind == VectorInt8 || kind == VectorBinary
}

// sqlCode wraps a code blob so vec0 knows its element type.
func sqlCode(p *vecindex.Params) string {
	if p.Kind == VectorBinary {
		return "vec_bit(?)"
	}
	return "vec_int8(?)"
}

// VectorStorage is the vector storage kind this store searches with.
func (s *Store) VectorStorage() string { return s.storage }

// prepareQuant makes the quantised copy for kind exist and be complete, and
// drops copies of other kinds (nothing would keep them current).
func (s *Store) prepareQuant(ctx context.Context, kind string) error {
	if kind == "" {
		kind = DefaultVectorStorage
	}
	if !validStorage(kind) {
		return fmt.Errorf("unknown vector storage %q (use float32, int8 or binary)", kind)
	}
	s.storage = kind
	return s.withTx(ctx, func(tx *sql.Tx) error {
		p, err := loadQuant(ctx, tx)
		if err != nil {
			return err
		}
		for _, other := range []string{VectorInt8, VectorBinary} {
			if other != kind {
				if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+quantTable(other)); err != nil {
					return err
				}
			}
		}
		if kind != VectorBinary {
			if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+shortlistTable); err != nil {
				return err
			}
		}
		if kind == VectorFloat32 {
			s.quant.Store(nil)
			if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, metaQuant); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, bumpVectorGen) // the bit table may have been dropped
			return err
		}
		exists, err := tableExists(ctx, tx, quantTable(kind))
		if err != nil {
			return err
		}
		if exists && kind == VectorBinary {
			if exists, err = tableExists(ctx, tx, shortlistTable); err != nil {
				return err
			}
		}
		if exists && p.Usable(kind, s.Dim()) {
			s.quant.Store(p)
			return nil
		}
		return s.rebuildQuant(ctx, tx)
	})
}

func tableExists(ctx context.Context, tx *sql.Tx, name string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	return n > 0, err
}

func loadQuant(ctx context.Context, tx *sql.Tx) (*vecindex.Params, error) {
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaQuant).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p vecindex.Params
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return nil, nil // unreadable: rebuild
	}
	return &p, nil
}

// rebuildQuant estimates the quantisation ranges from every stored vector
// and rewrites the quantised copy. Reads go in rowid batches so memory stays
// bounded at any index size.
func (s *Store) rebuildQuant(ctx context.Context, tx *sql.Tx) error {
	kind, dim := s.storage, s.Dim()
	table := quantTable(kind)
	// Emptying an existing table instead of dropping it avoids a schema
	// change, which would make concurrent readers re-prepare their
	// statements. (vec0 does not reuse the deleted slots; rebuilds stop at
	// requantiseBelow rows, which bounds that waste.)
	old, err := loadQuant(ctx, tx)
	if err != nil {
		return err
	}
	exists, err := tableExists(ctx, tx, table)
	if err != nil {
		return err
	}
	stmt := `DELETE FROM ` + table
	width := dim
	if kind == VectorBinary {
		width = 2 * vecindex.PlaneBytes(dim) * 8 // two planes of whole bytes
	}
	if !exists || !old.Usable(kind, dim) {
		stmt = fmt.Sprintf(`DROP TABLE IF EXISTS %s; CREATE VIRTUAL TABLE %s USING vec0(embedding %s[%d], source text)`,
			table, table, map[string]string{VectorInt8: "int8", VectorBinary: "bit"}[kind], width)
	}
	if kind == VectorBinary {
		stmt += `; CREATE TABLE IF NOT EXISTS ` + shortlistTable + `(id INTEGER PRIMARY KEY, code BLOB NOT NULL)` +
			`; DELETE FROM ` + shortlistTable
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("create %s vector index: %w", kind, err)
	}
	ranges := vecindex.NewRanges(dim)
	err = scanVectors(ctx, tx, func(_ int64, v []float32, _ string) error {
		ranges.Add(v)
		return nil
	})
	if err != nil {
		return err
	}
	p := ranges.Params(kind)
	ins, err := prepareQuantInsert(ctx, tx, p)
	if err != nil {
		return err
	}
	defer ins.close()
	levels := vecindex.NewLevels(p)
	err = scanVectors(ctx, tx, func(id int64, v []float32, source string) error {
		levels.Add(v)
		return ins.exec(ctx, p, id, v, source)
	})
	if err != nil {
		return fmt.Errorf("fill %s vector index: %w", kind, err)
	}
	levels.Finish()
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, upsertMeta, metaQuant, string(raw)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, bumpVectorGen); err != nil {
		return err
	}
	s.quant.Store(p)
	return nil
}

// scanVectors calls fn for every stored float32 vector, in one streaming
// scan. (vec0 has no plan for a rowid range: reading in rowid batches
// rescanned the table from its start for every batch, which made a
// rebuild at a million chunks take hours.) fn may write to other tables
// of tx.
func scanVectors(ctx context.Context, tx *sql.Tx, fn func(id int64, v []float32, source string) error) error {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, embedding, source FROM chunks_vec`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var blob sql.RawBytes
		var source string
		if err := rows.Scan(&id, &blob, &source); err != nil {
			return err
		}
		if err := fn(id, decodeVector(blob), source); err != nil {
			return err
		}
	}
	return rows.Err()
}

// putQuantised adds the quantised copies of docID's freshly inserted chunk
// vectors, or re-estimates the ranges and rebuilds while the index is small
// and has doubled since they were estimated.
func (s *Store) putQuantised(ctx context.Context, tx *sql.Tx, docID string, snippetVectors map[string][]float32) error {
	if s.storage == VectorFloat32 || s.storage == "" || len(snippetVectors) == 0 {
		return nil
	}
	if rebuild, err := s.quantNeedsRebuild(ctx, tx); err != nil || rebuild {
		if err != nil {
			return err
		}
		return s.rebuildQuant(ctx, tx)
	}
	p := s.quant.Load()
	rows, err := tx.QueryContext(ctx, `SELECT id, snippet_id, source FROM chunks WHERE doc_id = ?`, docID)
	if err != nil {
		return err
	}
	type row struct {
		id              int64
		snippet, source string
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.snippet, &r.source); err != nil {
			rows.Close()
			return err
		}
		got = append(got, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	ins, err := prepareQuantInsert(ctx, tx, p)
	if err != nil {
		return err
	}
	defer ins.close()
	for _, r := range got {
		v, ok := snippetVectors[r.snippet]
		if !ok {
			continue
		}
		if err := ins.exec(ctx, p, r.id, v, r.source); err != nil {
			return fmt.Errorf("insert quantised vector of %s: %w", r.snippet, err)
		}
	}
	_, err = tx.ExecContext(ctx, bumpVectorGen)
	return err
}

// quantNeedsRebuild reports whether the quantised copies must be rebuilt
// from every stored vector (rebuildQuant) rather than added to: none yet,
// made for another storage or length, or too few vectors went into their
// parameters.
func (s *Store) quantNeedsRebuild(ctx context.Context, tx *sql.Tx) (bool, error) {
	p := s.quant.Load()
	if !p.Usable(s.storage, s.Dim()) {
		return true, nil
	}
	if p.N < requantiseBelow {
		var total int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&total); err != nil {
			return false, err
		}
		return total >= 2*p.N, nil
	}
	return false, nil
}

// quantInsert writes one vector's quantised copies.
type quantInsert struct{ code, shortlist *sql.Stmt }

func prepareQuantInsert(ctx context.Context, tx *sql.Tx, p *vecindex.Params) (quantInsert, error) {
	var ins quantInsert
	var err error
	ins.code, err = tx.PrepareContext(ctx, `INSERT INTO `+quantTable(p.Kind)+`(rowid, embedding, source) VALUES (?, `+sqlCode(p)+`, ?)`)
	if err != nil || p.Kind != VectorBinary {
		return ins, err
	}
	ins.shortlist, err = tx.PrepareContext(ctx, `INSERT INTO `+shortlistTable+`(id, code) VALUES (?, ?)`)
	if err != nil {
		ins.code.Close()
	}
	return ins, err
}

func (ins quantInsert) exec(ctx context.Context, p *vecindex.Params, id int64, v []float32, source string) error {
	if _, err := ins.code.ExecContext(ctx, id, p.Code(v), source); err != nil {
		return err
	}
	if ins.shortlist == nil {
		return nil
	}
	_, err := ins.shortlist.ExecContext(ctx, id, p.Int8Code(v))
	return err
}

func (ins quantInsert) close() {
	ins.code.Close()
	if ins.shortlist != nil {
		ins.shortlist.Close()
	}
}

// deleteQuantised removes the quantised copies of chunk rowids (vec0 deletes
// are cheap only by exact rowid).
func deleteQuantised(ctx context.Context, tx *sql.Tx, ids []int64) error {
	changed := false
	for _, table := range []string{quantTable(VectorInt8), quantTable(VectorBinary), shortlistTable} {
		exists, err := tableExists(ctx, tx, table)
		if err != nil {
			return err
		}
		if !exists {
			continue
		}
		stmt, err := tx.PrepareContext(ctx, `DELETE FROM `+table+` WHERE rowid = ?`)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := stmt.ExecContext(ctx, id); err != nil {
				stmt.Close()
				return fmt.Errorf("delete quantised vector: %w", err)
			}
		}
		stmt.Close()
		changed = true
	}
	if !changed {
		return nil
	}
	_, err := tx.ExecContext(ctx, bumpVectorGen)
	return err
}

func snippetVectors(doc corpus.Document, vectors [][]float32) map[string][]float32 {
	out := make(map[string][]float32, len(doc.Chunks))
	for i, c := range doc.Chunks {
		if len(vectors[i]) > 0 {
			out[c.SnippetID] = vectors[i]
		}
	}
	return out
}
