package main

import (
	"context"
	"fmt"
	"github.com/footnote-app/footnote/backend/engine"
	"io"
	"strings"
)

// listFlag collects a repeatable, comma-separable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// printExplain shows how a hit's score came about, one line per retriever:
// score_norm = Σ weight/(k + k_pos) / max_rrf, where max_rrf = Σ weight/(k + 1)
// is the best score possible under the same weights.
func printExplain(w io.Writer, h engine.Citation, res engine.SearchResult) {
	var sum float64
	for _, c := range h.Explain {
		sum += c.RRF
	}
	fmt.Fprintf(w, "    k_final %d  score_norm %.4f = rrf %.5f / weighted max %.5f (k=%d, %s)\n",
		h.KFinal, h.ScoreNorm, sum, res.MaxRRF, res.RRFK, strings.Join(res.Retrievers, "+"))
	if h.RerankScore != nil {
		fmt.Fprintf(w, "      reranked rerank_score %.4f by %s (k_final is the position after reranking)\n", *h.RerankScore, res.Reranker)
	}
	if h.Context != "" {
		fmt.Fprintf(w, "      indexed with: %s\n", oneLine(h.Context))
	}
	for _, c := range h.Explain {
		raw := "bm25"
		if c.Retriever == engine.RetrieverVector {
			raw = "L2 distance"
		}
		weight := ""
		if c.Weight > 0 {
			weight = fmt.Sprintf(" × weight %.3f", c.Weight)
		}
		fmt.Fprintf(w, "      %-8s k_pos %-3d score_raw %9.4f (%s)  rrf 1/(%d+%d)%s = %.5f\n",
			c.Retriever, c.KPos, c.ScoreRaw, raw, res.RRFK, c.KPos, weight, c.RRF)
	}
	if len(h.Explain) < len(res.Retrievers) {
		fmt.Fprintf(w, "      (not retrieved by the other retriever)\n")
	}
}

func cmdEvalRetrieval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval-retrieval", stderr)
	goldPath := fs.String("gold", "", "gold set: JSON array or JSON lines of {question, snippet_ids|section_ids|doc_ids}")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	mode := fs.String("mode", "", "hybrid, lexical or vector (default: the retrieval_mode setting, hybrid unless changed)")
	k := fs.Int("k", 10, "recall cut-off; MRR and nDCG always use 10")
	var collections listFlag
	fs.Var(&collections, "collection", "only search this collection (repeat or comma-separate)")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if *goldPath == "" {
		return usageError{"give a gold set with --gold FILE"}
	}
	if *k < 1 {
		return usageError{"-k must be at least 1"}
	}
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	if *mode == "" {
		*mode = en.RetrievalMode() // the saved setting, so the report names it
	}
	rep, err := en.EvaluateRetrieval(ctx, *goldPath, *k, *mode, collections)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, struct {
			Mode      string `json:"mode"`
			IndexHash string `json:"index_hash"`
			engine.RetrievalReport
		}{*mode, en.IndexHash(), rep})
	}
	for _, q := range rep.PerQuery {
		fmt.Fprintf(stdout, "recall@%d %.2f  MRR %.2f  nDCG %.2f  %s\n", rep.K, q.Recall, q.MRR, q.NDCG, oneLine(excerpt(q.Question, 80)))
	}
	fmt.Fprintf(stdout, "\n%d questions, mode %s: recall@%d %.3f  MRR@10 %.3f  nDCG@10 %.3f\n",
		rep.Queries, *mode, rep.K, rep.Mean.Recall, rep.Mean.MRR, rep.Mean.NDCG)
	return nil
}
