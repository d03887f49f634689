package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Vector storage kinds. The float32 vectors in chunks_vec are always kept:
// they are the source of truth for rebuilding, for reusing embeddings of
// unchanged chunks and for rescoring. A quantised kind adds a compact copy
// that the nearest-neighbour scan reads instead; its top candidates are then
// rescored with the exact float32 distance, so the distances reported are
// always exact and only the candidate set is approximate.
const (
	VectorFloat32 = "float32" // exact scan of float32 vectors
	VectorInt8    = "int8"    // int8 with a per-dimension scale, rescored
	VectorBinary  = "binary"  // one bit per dimension, rescored
)

// DefaultVectorStorage was chosen by bench/retrieval on a 2-core machine
// without AVX in sqlite-vec: int8 scans a quarter of the bytes of float32,
// keeps recall@10 ≥ 0.95 after rescoring, and costs 25% more disk.
const DefaultVectorStorage = VectorInt8

// Oversampling: how many quantised candidates are rescored per wanted hit.
// Binary codes are much coarser than int8, so they need more candidates.
// Measured at 10k chunks with queries unlike the corpus: int8 recall@10 was
// 0.785 at 1×, 0.978 at 2× and 1.000 at 4×; binary reached only 0.67 at 32×,
// and sqlite-vec's KNN cost grows with k (k=640 took 20× the time of k=20),
// so binary oversampling is expensive.
const (
	int8Oversample   = 4
	binaryOversample = 32
	minCandidates    = 64
)

// requantiseBelow: while the index is small its quantisation ranges are
// re-estimated whenever it doubles; above this size they are stable.
const requantiseBelow = 100_000

const metaQuant = "vec_quant"

// dropQuantTables clears every quantised copy; part of a content reset.
const dropQuantTables = `DROP TABLE IF EXISTS chunks_vec_i8;
	DROP TABLE IF EXISTS chunks_vec_bit;
	DELETE FROM meta WHERE key = '` + metaQuant + `';`

// quantParams map float32 vectors to int8 and bit codes. Mid and Scale are
// per dimension: int8 = round((x-Mid)·Scale), so each dimension uses the whole
// int8 range; a bit is set when x > Mean.
type quantParams struct {
	Kind  string    `json:"kind"`
	N     int       `json:"n"` // vectors the ranges were estimated from
	Mid   []float32 `json:"mid"`
	Scale []float32 `json:"scale"`
	Mean  []float32 `json:"mean"`
}

func quantTable(kind string) string {
	switch kind {
	case VectorInt8:
		return "chunks_vec_i8"
	case VectorBinary:
		return "chunks_vec_bit"
	}
	return ""
}

func validStorage(kind string) bool {
	return kind == VectorFloat32 || kind == VectorInt8 || kind == VectorBinary
}

func (p *quantParams) code(v []float32) []byte {
	if p.Kind == VectorBinary {
		b := make([]byte, (len(v)+7)/8)
		for i, x := range v {
			if x > p.Mean[i] {
				b[i/8] |= 1 << (i % 8)
			}
		}
		return b
	}
	b := make([]byte, len(v))
	for i, x := range v {
		q := math.Round(float64((x - p.Mid[i]) * p.Scale[i]))
		b[i] = byte(int8(max(-127, min(127, q))))
	}
	return b
}

// sqlCode wraps a code blob so vec0 knows its element type.
func (p *quantParams) sqlCode() string {
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
		if kind == VectorFloat32 {
			s.quant.Store(nil)
			_, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, metaQuant)
			return err
		}
		exists, err := tableExists(ctx, tx, quantTable(kind))
		if err != nil {
			return err
		}
		if exists && p != nil && p.Kind == kind && len(p.Mid) == s.Dim() {
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

func loadQuant(ctx context.Context, tx *sql.Tx) (*quantParams, error) {
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaQuant).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p quantParams
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
	if !exists || old == nil || old.Kind != kind || len(old.Mid) != dim {
		stmt = fmt.Sprintf(`DROP TABLE IF EXISTS %s; CREATE VIRTUAL TABLE %s USING vec0(embedding %s[%d], source text)`,
			table, table, map[string]string{VectorInt8: "int8", VectorBinary: "bit"}[kind], dim)
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("create %s vector index: %w", kind, err)
	}
	lo, hi, sum := make([]float32, dim), make([]float32, dim), make([]float64, dim)
	n := 0
	err = scanVectors(ctx, tx, func(_ int64, v []float32, _ string) error {
		for i, x := range v {
			if n == 0 || x < lo[i] {
				lo[i] = x
			}
			if n == 0 || x > hi[i] {
				hi[i] = x
			}
			sum[i] += float64(x)
		}
		n++
		return nil
	})
	if err != nil {
		return err
	}
	p := &quantParams{Kind: kind, N: n, Mid: make([]float32, dim), Scale: make([]float32, dim), Mean: make([]float32, dim)}
	for i := range dim {
		p.Mid[i] = (lo[i] + hi[i]) / 2
		p.Scale[i] = 1
		if half := (hi[i] - lo[i]) / 2; half > 0 {
			p.Scale[i] = 127 / half
		}
		if n > 0 {
			p.Mean[i] = float32(sum[i] / float64(n))
		}
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+table+`(rowid, embedding, source) VALUES (?, `+p.sqlCode()+`, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	err = scanVectors(ctx, tx, func(id int64, v []float32, source string) error {
		_, err := ins.ExecContext(ctx, id, p.code(v), source)
		return err
	})
	if err != nil {
		return fmt.Errorf("fill %s vector index: %w", kind, err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, upsertMeta, metaQuant, string(raw)); err != nil {
		return err
	}
	s.quant.Store(p)
	return nil
}

// scanVectors calls fn for every stored float32 vector in rowid order.
func scanVectors(ctx context.Context, tx *sql.Tx, fn func(id int64, v []float32, source string) error) error {
	const batch = 5000
	last := int64(math.MinInt64)
	for {
		rows, err := tx.QueryContext(ctx, `SELECT rowid, embedding, source FROM chunks_vec
			WHERE rowid > ? ORDER BY rowid LIMIT ?`, last, batch)
		if err != nil {
			return err
		}
		type row struct {
			id     int64
			v      []float32
			source string
		}
		var got []row
		for rows.Next() {
			var r row
			var blob []byte
			if err := rows.Scan(&r.id, &blob, &r.source); err != nil {
				rows.Close()
				return err
			}
			r.v = decodeVector(blob)
			got = append(got, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range got {
			if err := fn(r.id, r.v, r.source); err != nil {
				return err
			}
		}
		if len(got) < batch {
			return nil
		}
		last = got[len(got)-1].id
	}
}

// putQuantised adds the quantised copies of docID's freshly inserted chunk
// vectors, or re-estimates the ranges and rebuilds while the index is small
// and has doubled since they were estimated.
func (s *Store) putQuantised(ctx context.Context, tx *sql.Tx, docID string, snippetVectors map[string][]float32) error {
	if s.storage == VectorFloat32 || s.storage == "" || len(snippetVectors) == 0 {
		return nil
	}
	p := s.quant.Load()
	if p == nil || p.Kind != s.storage || len(p.Mid) != s.Dim() {
		return s.rebuildQuant(ctx, tx)
	}
	if p.N < requantiseBelow {
		var total int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&total); err != nil {
			return err
		}
		if total >= 2*p.N {
			return s.rebuildQuant(ctx, tx)
		}
	}
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
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+quantTable(p.Kind)+`(rowid, embedding, source) VALUES (?, `+p.sqlCode()+`, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, r := range got {
		v, ok := snippetVectors[r.snippet]
		if !ok {
			continue
		}
		if _, err := ins.ExecContext(ctx, r.id, p.code(v), r.source); err != nil {
			return fmt.Errorf("insert quantised vector of %s: %w", r.snippet, err)
		}
	}
	return nil
}

// deleteQuantised removes the quantised copies of chunk rowids (vec0 deletes
// are cheap only by exact rowid).
func deleteQuantised(ctx context.Context, tx *sql.Tx, ids []int64) error {
	for _, kind := range []string{VectorInt8, VectorBinary} {
		table := quantTable(kind)
		exists, err := tableExists(ctx, tx, table)
		if err != nil || !exists {
			if err != nil {
				return err
			}
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
	}
	return nil
}

func snippetVectors(doc corpus.Document, vectors [][]float32) map[string][]float32 {
	out := make(map[string][]float32, len(doc.Chunks))
	for i, c := range doc.Chunks {
		out[c.SnippetID] = vectors[i]
	}
	return out
}
