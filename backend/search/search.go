// Package search owns hybrid retrieval: it asks the index for a lexical
// (FTS5 BM25) and a vector (sqlite-vec KNN) candidate list, fuses them by
// reciprocal rank fusion, normalises scores to [0,1], enforces evidence
// eligibility and returns hits that carry their own explain trail.
package search

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/store"
)

// Retriever names as recorded in explain trails and derivation chains.
const (
	Lexical = "lexical"
	Vector  = "vector"
)

// DefaultRRFK is the usual reciprocal rank fusion constant.
const DefaultRRFK = 60

// Modes select which retrievers run.
const (
	ModeHybrid  = "hybrid"
	ModeLexical = "lexical"
	ModeVector  = "vector"
)

// ParseMode checks a mode name; empty means hybrid.
func ParseMode(mode string) (string, error) {
	switch mode {
	case "":
		return ModeHybrid, nil
	case ModeHybrid, ModeLexical, ModeVector:
		return mode, nil
	}
	return "", fmt.Errorf("unknown search mode %q (use hybrid, lexical or vector)", mode)
}

// Index is the part of the store retrieval reads from.
type Index interface {
	SearchLexicalFiltered(ctx context.Context, query string, k int, f store.Filter) ([]store.Match, error)
	SearchVectorFiltered(ctx context.Context, vec []float32, k int, f store.Filter) ([]store.Match, error)
	Chunks(ctx context.Context, snippetIDs []string) (map[string]store.ChunkRecord, error)
}

// QueryEmbedder turns a question into a vector.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Coverer is a QueryEmbedder that says how much of a query its vocabulary
// knows (embed.Coverer); hybrid search weighs the vector list by it.
type Coverer interface {
	Coverage(text string) float64
}

// Options tune one search.
type Options struct {
	Mode  string    // hybrid (default), lexical, vector
	TopK  int       // candidates per retriever
	Limit int       // hits returned after fusion (0 = all)
	AsOf  time.Time // only evidence created at or before this instant (zero = now)
	RRFK  int       // reciprocal rank fusion constant (0 = the Searcher's, else 60)

	Collections []string // only these collections (none = all)
	DocIDs      []string // only these documents (none = all)

	NoRerank bool // skip the configured reranker (rerank.go) for this search
}

// Hit is a fused, hydrated, eligible result.
type Hit struct {
	store.ChunkRecord
	RRF       float64        `json:"rrf"`
	ScoreNorm float64        `json:"score_norm"`
	KFinal    int            `json:"k_final"` // 1-based position after fusion
	Explain   []Contribution `json:"explain"`
	// RerankScore is the reranker's score when this hit was reranked (rerank.go).
	RerankScore *float64 `json:"rerank_score,omitempty"`
	// Evidence is what the passage's text says of the match (evidence.go);
	// it breaks ties of the fused score.
	Evidence Evidence `json:"evidence"`
}

// Result is a ranked list plus what it took to get it.
type Result struct {
	Hits             []Hit         `json:"hits"`
	Mode             string        `json:"mode"`
	Retrievers       []string      `json:"retrievers"`
	RRFK             int           `json:"rrf_k"`
	MaxRRF           float64       `json:"max_rrf"` // the weighted fused score that normalises to 1
	TotalRetrieved   int           `json:"total_retrieved"`
	TotalAfterFusion int           `json:"total_after_fusion"`
	Elapsed          time.Duration `json:"elapsed_ns"`
	Reranker         string        `json:"reranker,omitempty"` // model that reordered the top hits (rerank.go)
	// QueryCoverage is the share of the query's words the embedding model
	// knows (Coverer), when the vector retriever ran and could say.
	QueryCoverage *float64 `json:"query_coverage,omitempty"`
}

// Searcher runs hybrid retrieval over an Index.
type Searcher struct {
	Index    Index
	Embedder QueryEmbedder
	RRFK     int
	TopK     int
}

// Search retrieves, fuses, hydrates, filters and ranks.
func (s *Searcher) Search(ctx context.Context, query string, opts Options) (Result, error) {
	start := time.Now()
	if opts.TopK <= 0 {
		opts.TopK = s.TopK
	}
	if opts.AsOf.IsZero() {
		opts.AsOf = time.Now()
	}
	k := opts.RRFK
	if k <= 0 {
		k = s.RRFK
	}
	if k <= 0 {
		k = DefaultRRFK
	}
	// Eligibility is applied inside the index queries, so ineligible chunks
	// never take candidate slots, and again after hydration (hydrate).
	filter := store.Filter{Collections: opts.Collections, DocIDs: opts.DocIDs, AsOf: opts.AsOf}
	lists := map[string][]Candidate{}
	var res Result
	mode, err := ParseMode(opts.Mode)
	if err != nil {
		return Result{}, err
	}
	// The retrievers run concurrently: the store reads on a pool of
	// connections, so a hybrid query costs about the slower of the two.
	var lexical, vector []store.Match
	var lexErr, vecErr error
	var wg sync.WaitGroup
	if mode == ModeHybrid || mode == ModeLexical {
		wg.Go(func() {
			lexical, lexErr = s.Index.SearchLexicalFiltered(ctx, query, opts.TopK, filter)
		})
	}
	if mode == ModeHybrid || mode == ModeVector {
		wg.Go(func() {
			vec, err := s.Embedder.EmbedQuery(ctx, query)
			if err != nil {
				vecErr = fmt.Errorf("embed query: %w", err)
				return
			}
			if vector, err = s.Index.SearchVectorFiltered(ctx, vec, opts.TopK, filter); err != nil {
				vecErr = fmt.Errorf("vector search: %w", err)
			}
		})
	}
	wg.Wait()
	if lexErr != nil {
		return Result{}, fmt.Errorf("lexical search: %w", lexErr)
	}
	if vecErr != nil {
		return Result{}, vecErr
	}
	idents := identifiers(query)
	if mode == ModeHybrid || mode == ModeLexical {
		list, err := s.leadWithIdentifiers(ctx, query, idents, candidates(lexical))
		if err != nil {
			return Result{}, fmt.Errorf("lexical search: %w", err)
		}
		lists[Lexical] = list
		res.Retrievers = append(res.Retrievers, Lexical)
	}
	if mode == ModeHybrid || mode == ModeVector {
		lists[Vector] = candidates(vector)
		res.Retrievers = append(res.Retrievers, Vector)
	}
	for _, l := range lists {
		res.TotalRetrieved += len(l)
	}
	// The order follows the weighted sum, and score_norm is that sum over
	// the best one possible under the same weights.
	coverage := map[string]float64{}
	if cv, ok := s.Embedder.(Coverer); ok && lists[Vector] != nil {
		cov := cv.Coverage(query)
		coverage[Vector], res.QueryCoverage = cov, &cov
	}
	fused := FuseRRF(lists, k)
	weights := WeighRetrievers(lists, coverage)
	ApplyWeights(fused, weights, coverage)
	Normalize(fused, k, weights)
	res.TotalAfterFusion = len(fused)
	res.Mode, res.RRFK, res.MaxRRF = mode, k, MaxRRF(k, weights)

	hits, err := s.hydrate(ctx, fused, opts.AsOf, opts.DocIDs)
	if err != nil {
		return Result{}, err
	}
	for i := range hits {
		hits[i].Evidence = evidenceOf(query, idents, hits[i].Text)
	}
	Rank(hits)
	if opts.Limit > 0 && len(hits) > opts.Limit {
		hits = hits[:opts.Limit]
	}
	res.Hits = hits
	res.Elapsed = time.Since(start)
	return res, nil
}

func candidates(matches []store.Match) []Candidate {
	out := make([]Candidate, len(matches))
	for i, m := range matches {
		out[i] = Candidate{SnippetID: m.SnippetID, ScoreRaw: m.Score, Rank: m.Rank}
	}
	return out
}

func (s *Searcher) hydrate(ctx context.Context, fused []Fused, asOf time.Time, docIDs []string) ([]Hit, error) {
	ids := make([]string, len(fused))
	for i, f := range fused {
		ids[i] = f.SnippetID
	}
	records, err := s.Index.Chunks(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load chunks: %w", err)
	}
	hits := make([]Hit, 0, len(fused))
	for _, f := range fused {
		rec, ok := records[f.SnippetID]
		if !ok || !Eligible(rec.Chunk, asOf) || (len(docIDs) > 0 && !slices.Contains(docIDs, rec.DocID)) {
			continue
		}
		hits = append(hits, Hit{ChunkRecord: rec, RRF: f.RRF, ScoreNorm: f.ScoreNorm, Explain: f.Explain})
	}
	return hits, nil
}

// Eligible says whether a chunk may be used as evidence for a question asked
// at asOf (corpus.NotEvidence: corpus text only, nothing from reserved
// namespaces, nothing created after the question started).
func Eligible(c corpus.Chunk, asOf time.Time) bool {
	return corpus.NotEvidence(c.Source, c.SnippetID, c.DocID, c.SectionID, c.CreatedAt, asOf) == ""
}

// Rank orders hits deterministically — weighted score desc, then evidence strength
// (evidence.go), then section_id asc, then snippet_id asc — and records each
// hit's final position.
func Rank(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.RRF != b.RRF { // weighted by how informative each retriever was (score_norm orders alike)
			return a.RRF > b.RRF
		}
		if a.Evidence != b.Evidence {
			return a.Evidence.stronger(b.Evidence)
		}
		if a.SectionID != b.SectionID {
			return a.SectionID < b.SectionID
		}
		return a.SnippetID < b.SnippetID
	})
	for i := range hits {
		hits[i].KFinal = i + 1
	}
}
