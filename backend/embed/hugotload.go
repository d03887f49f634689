package embed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
)

// The embedder and the reranker (backend/rerank) load their models the same
// way: read and parse the folder's tokenizer, then start a pure-Go hugot
// session with one pipeline in it. That sequence lives here once; what
// names the model in messages ("embedding model") and fix says what to do.

// ReadTokenizer reads and parses dir's TokenizerFile. It returns the parsed
// tokenizer and the raw JSON (which also tells the truncation length).
func ReadTokenizer(dir, what, fix string) (*hftokenizer.Tokenizer, []byte, error) {
	tokJSON, err := os.ReadFile(filepath.Join(dir, TokenizerFile))
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", what, err)
	}
	tok, err := hftokenizer.NewFromContent(nil, tokJSON)
	if err != nil {
		return nil, nil, fmt.Errorf("%s folder %s has an unreadable %s (%v); %s", what, dir, TokenizerFile, err, fix)
	}
	return tok, tokJSON, nil
}

// StartPipeline starts a pure-Go hugot session and builds the pipeline cfg
// describes in it. On failure nothing is left open.
func StartPipeline[T backends.Pipeline](ctx context.Context, cfg backends.PipelineConfig[T], what, fix string) (*hugot.Session, T, error) {
	var none T
	session, err := hugot.NewGoSession(ctx)
	if err != nil {
		return nil, none, fmt.Errorf("start inference session: %w", err)
	}
	pipe, err := hugot.NewPipeline(session, cfg)
	if err != nil {
		_ = session.Destroy()
		return nil, none, fmt.Errorf("%s folder %s could not be loaded (%v); %s", what, cfg.ModelPath, err, fix)
	}
	return session, pipe, nil
}
