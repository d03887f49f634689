package engine

import (
	"context"
	"fmt"

	"github.com/footnote-app/footnote/backend/rag"
)

// The ΔS answerability signal (rag/deltas.go) reads the question's vector
// from the embedder (remembered from retrieval, so not embedded twice) and
// the passages' stored vectors from the index.

// backgroundSample is how many of the library's passages the question's
// background ΔS is the median over.
const backgroundSample = 64

// relevanceVectors is rag.RelevanceVectors over this engine.
type relevanceVectors struct{ e *Engine }

func (v relevanceVectors) QuestionVector(ctx context.Context, question string) ([]float32, error) {
	if v.e.embedder == nil {
		return nil, fmt.Errorf("the embedding model is not loaded")
	}
	return v.e.embedder.EmbedQuery(ctx, question)
}

func (v relevanceVectors) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	if v.e.embedder == nil {
		return nil, fmt.Errorf("the embedding model is not loaded")
	}
	return v.e.embedder.EmbedPassages(ctx, texts)
}

func (v relevanceVectors) PassageVectors(ctx context.Context, ids []string) (map[string][]float32, error) {
	return v.e.index().SnippetVectors(ctx, ids)
}

func (v relevanceVectors) Background(ctx context.Context) (string, []rag.BackgroundPassage, error) {
	st := v.e.index()
	stamp, err := st.ContentStamp(ctx)
	if err != nil {
		return "", nil, err
	}
	sample, err := st.SamplePassages(ctx, backgroundSample)
	if err != nil {
		return "", nil, err
	}
	out := make([]rag.BackgroundPassage, len(sample))
	for i, p := range sample {
		out[i] = rag.BackgroundPassage{Text: p.Text, Vector: p.Vector}
	}
	return stamp + " " + v.e.EmbedModel(), out, nil
}
