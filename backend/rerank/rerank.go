// Package rerank owns optional second-stage scoring: a cross-encoder reads
// a query and a passage together and scores how well the passage answers
// the query. It is slower than retrieval (one model run per passage), so
// search applies it only to the top few fused candidates. Hugot runs an
// ONNX cross-encoder in-process (pure Go); Fake scores by word overlap for
// tests. Hugot also runs cross-encoders with several output labels
// (LoadClassifier), such as the NLI model claim verification can use.
package rerank

import "context"

// Reranker scores passages against a query.
type Reranker interface {
	// Rerank returns one score per passage, in order; higher means more
	// relevant. Scores of one call are comparable with each other only.
	Rerank(ctx context.Context, query string, passages []string) ([]float32, error)
	// Name identifies the model in explain trails and provenance.
	Name() string
}
