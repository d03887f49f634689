package store

import (
	"context"
	"fmt"
)

// Text index upkeep.
//
// FTS5 adds a segment to its index per write transaction and merges them
// only in groups (automerge), so an index built one document at a time
// holds a dozen or more segments, and every query term is looked up, and
// its rows merged, in each of them. At 100k chunks, 14 segments made
// lexical queries about half again as slow as one segment (bench/retrieval
// lexical p50 6.5 → 4.1 ms); rewriting the index as one segment took 0.3 s.

// textTables are the FTS5 tables the lexical search reads.
var textTables = []string{"chunks_fts", "chunks_cjk"}

// maxTextSegments is how many segments a text index may gather before
// CompactTextIndex rewrites it; a handful costs little, and waiting for
// several keeps the rewrite (which touches the whole index) rare when
// files change one at a time.
const maxTextSegments = 8

// TextSegments returns the number of segments in each text index.
func (s *Store) TextSegments(ctx context.Context) (map[string]int, error) {
	out := make(map[string]int, len(textTables))
	for _, t := range textTables {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM `+t+`_idx`).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s segments: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}

// CompactTextIndex rewrites each text index that has gathered more than
// maxTextSegments segments as a single segment, and reports whether it
// rewrote any. It is meant for when ingest goes idle: the rewrite holds
// the writer for about 3 ms per 1,000 chunks, while readers go on.
func (s *Store) CompactTextIndex(ctx context.Context) (bool, error) {
	segs, err := s.TextSegments(ctx)
	if err != nil {
		return false, err
	}
	rewrote := false
	for _, t := range textTables {
		if segs[t] <= maxTextSegments {
			continue
		}
		if _, err := s.w.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`) VALUES('optimize')`); err != nil {
			return rewrote, fmt.Errorf("compact %s: %w", t, s.explainWrite(ctx, err))
		}
		rewrote = true
	}
	return rewrote, nil
}
