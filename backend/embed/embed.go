// Package embed turns text into sentence vectors in-process. It owns the
// Embedder boundary, the hugot (ONNX, pure Go) implementation with its
// choice of engine (the built-in BERT encoder of package encoder where it
// matches hugot's Go backend, else that backend), a deterministic fake for
// tests, and fetching model folders.
package embed

import "context"

// ModelInfo identifies the embedding model for provenance and index identity.
type ModelInfo struct {
	ID        string `json:"id"`         // e.g. "all-MiniLM-L6-v2@1a2b3c4d" (folder name + model file hash)
	Pooling   string `json:"pooling"`    // e.g. "mean+l2"
	Dim       int    `json:"dim"`        // vector length
	MaxTokens int    `json:"max_tokens"` // longest input the model accepts, special tokens included
}

// Name is the embed_model string recorded on every chunk and citation.
func (m ModelInfo) Name() string { return m.ID + "/" + m.Pooling }

// Embedder computes L2-normalised sentence embeddings.
type Embedder interface {
	// EmbedPassages embeds document chunks; one vector per text, same order.
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery embeds a search query.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
	// CountTokens returns the model tokenizer's token count, special tokens included.
	CountTokens(text string) int
	Info() ModelInfo
	Close() error
}
