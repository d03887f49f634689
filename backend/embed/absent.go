package embed

import (
	"context"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
)

// ErrNoModel matches the refusal of Absent to embed.
var ErrNoModel = errors.New("no embedding model is loaded")

// Absent stands in for an embedding model that could not be loaded (not
// downloaded yet, a broken folder): it embeds nothing, so search runs on
// words alone, but it counts tokens, so documents can still be chunked and
// indexed. It counts with the model folder's tokenizer when that loads;
// otherwise with an estimate that never counts fewer tokens than a
// WordPiece or SentencePiece tokenizer would, so the chunks still fit the
// model that arrives later.
type Absent struct {
	cause  error
	tok    *hftokenizer.Tokenizer // nil: estimate
	pieces *pieceRule             // long texts tokenised in pieces (tokenpieces.go)
}

// DefaultDim is the vector length the default model (all-MiniLM-L6-v2)
// makes; an index built without a model is prepared for it, and takes
// another model's length when its vectors are first added.
const DefaultDim = 384

// absentMaxTokens is the limit chunks are cut to without a model: the
// default model's.
const absentMaxTokens = 256

// NewAbsent returns the stand-in for the model folder dir, which failed to
// load with cause.
func NewAbsent(dir string, cause error) *Absent {
	a := &Absent{cause: cause}
	if tok, tokJSON, err := ReadTokenizer(dir, "embedding model", ""); err == nil && tok.With(api.EncodeOptions{AddSpecialTokens: true}) == nil {
		a.tok, a.pieces = tok, newPieceRule(tokJSON, tok)
	}
	return a
}

// Cause is why no model is loaded.
func (a *Absent) Cause() error { return a.cause }

func (a *Absent) refuse() error { return fmt.Errorf("%w: %w", ErrNoModel, a.cause) }

// EmbedPassages refuses: there is no model.
func (a *Absent) EmbedPassages(context.Context, []string) ([][]float32, error) {
	return nil, a.refuse()
}

// EmbedQuery refuses: there is no model.
func (a *Absent) EmbedQuery(context.Context, string) ([]float32, error) { return nil, a.refuse() }

// Coverage is 0: nothing of any text can be read without a model.
func (a *Absent) Coverage(string) float64 { return 0 }

// CountTokens counts text's tokens, special tokens included.
func (a *Absent) CountTokens(text string) int {
	if a.pieces != nil {
		return len(a.pieces.encode(a.tok, text))
	}
	if a.tok != nil {
		return len(a.tok.Encode(text))
	}
	return EstimateTokens(text)
}

// Info names no model: its ID is what the index records while it lasts.
func (a *Absent) Info() ModelInfo {
	return ModelInfo{ID: "none", Pooling: "lexical-only", Dim: DefaultDim, MaxTokens: absentMaxTokens}
}

// Close releases nothing.
func (a *Absent) Close() error { return nil }

// EstimateTokens bounds from above what a BERT-style tokenizer makes of
// text: two special tokens; each run of ASCII letters and digits a token
// per three characters (WordPiece pieces of unknown words are rarely
// shorter), rounded up; every other character a token of its own, and
// three for a Hangul syllable (an English vocabulary spells it out in
// jamo) or any other character outside Latin, which may fall back to its
// bytes.
func EstimateTokens(text string) int {
	n, run := 2, 0
	flush := func() {
		n += (run + 2) / 3
		run = 0
	}
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			run++
			continue
		case unicode.IsSpace(r):
		case r < utf8.RuneSelf || unicode.Is(unicode.Latin, r):
			n++
		default:
			n += 3
		}
		flush()
	}
	flush()
	return n
}
