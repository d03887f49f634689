package embed

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/encoder"
	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"
)

// Files every model folder must hold.
const (
	ModelFile     = "model.onnx"
	TokenizerFile = "tokenizer.json"
)

// DefaultBatchSize is how many passages go through the model per call.
// Measured on a MiniLM-L6-shaped model on the Go backend: batch 8 costs
// ~35% less CPU per passage than batch 1 and the same as batch 32, with a
// smaller peak. The encoder pads nothing, and batch size matters little
// to it.
const DefaultBatchSize = 8

// Options tune how Hugot runs the model. Zero values pick the defaults.
type Options struct {
	// BatchSize is the number of passages per inference call.
	BatchSize int
	// Workers is how many inference calls EmbedPassages runs at once; the
	// default is GOMAXPROCS. The encoder runs each call on one core. On
	// the Go backend a call alone also splits its matrix products across
	// cores; concurrent calls run their ops in sequence and share the
	// backend's worker pool.
	Workers int
	// SequenceBuckets overrides DefaultSequenceBuckets.
	SequenceBuckets []int
	// Engine is EngineGoBackend to keep the Go backend even where the
	// built-in encoder runs the model; empty picks the encoder when it can.
	Engine string
}

// Stats counts work done since Load; callers diff two snapshots to attribute
// work (for example truncated passages) to one document.
type Stats struct {
	Passages  int64 `json:"passages"`
	Truncated int64 `json:"truncated"` // passages cut to MaxTokens before embedding
	Queries   int64 `json:"queries"`
}

// Hugot embeds text with an ONNX BERT-style model: mean pooling over real
// tokens, then L2 normalisation. hugot's pure-Go backend loads every model;
// where the built-in encoder (package encoder) runs the model and gives the
// same vectors on probe texts, it takes over and the backend is closed
// (Engine says which runs). What follows is about the backend.
//
// The Go backend compiles (and keeps, with its buffers) one program per
// distinct input shape, so Hugot controls shapes itself: passages run in
// batches of exactly BatchSize (or singly for a small remainder), queries
// singly, and sequence lengths are padded up to a few buckets. Concurrent
// calls share the compiled programs. Safe for concurrent use.
type Hugot struct {
	info          ModelInfo
	opts          Options
	tok           *hftokenizer.Tokenizer
	pieces        *pieceRule // which texts may be tokenised piece by piece (tokenpieces.go)
	clsID         int
	sepID         int
	seqBucket     []int // ascending; the last equals info.MaxTokens
	queryPrefix   string
	passagePrefix string

	passages, truncated, queries atomic.Int64

	mu      sync.RWMutex // read-held by inference, write-held by Close
	session *hugot.Session
	pipe    *pipelines.FeatureExtractionPipeline
	// enc, when set, runs the model instead of the Go backend (whose
	// session is then closed); engineNote says why it is not set.
	enc        *encoder.Encoder
	engineNote string
}

var _ Embedder = (*Hugot)(nil)

// Load opens the model folder dir with default Options.
func Load(ctx context.Context, dir string) (*Hugot, error) {
	return LoadWith(ctx, dir, Options{})
}

// LoadWith opens the model folder dir (model.onnx, tokenizer.json and
// optionally config.json and a prefix config, see readPrefixes), checks it
// produces embeddings and compiles the query shapes, so the first search
// does not pay for compilation.
func LoadWith(ctx context.Context, dir string, opts Options) (*Hugot, error) {
	return load(ctx, dir, opts, true)
}

// load is LoadWith; with trim false it keeps the copies of the model that
// inference does not need (see releaseONNXWeights, dropUnusedCopies), for
// tests to compare against.
func load(ctx context.Context, dir string, opts Options, trim bool) (*Hugot, error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if len(opts.SequenceBuckets) == 0 {
		opts.SequenceBuckets = DefaultSequenceBuckets
	}
	if err := CheckModelFolder(dir, "embedding model", "set "+config.EnvEmbedModel+" to a folder with "+ModelFile+" and "+TokenizerFile+", or run `footnote model download`"); err != nil {
		return nil, err
	}
	tok, tokJSON, err := ReadTokenizer(dir, "embedding model", "replace the folder or run `footnote model download`")
	if err != nil {
		return nil, err
	}
	if err := tok.With(api.EncodeOptions{AddSpecialTokens: true, IncludeSpans: true}); err != nil {
		return nil, fmt.Errorf("configure tokenizer: %w", err)
	}
	h := &Hugot{opts: opts, tok: tok, pieces: newPieceRule(tokJSON, tok)}
	// The post-processor wraps every input as [CLS] … [SEP] (or <s> … </s>); encoding the
	// empty string reveals both ids, which truncation and padding rows need.
	if ends := tok.Encode(""); len(ends) == 2 {
		h.clsID, h.sepID = ends[0], ends[1]
	} else {
		return nil, fmt.Errorf("embedding model folder %s: %s does not wrap inputs as [CLS] text [SEP], so it is not a BERT-style model; use a sentence-transformers ONNX export", dir, TokenizerFile)
	}

	cfg := readModelConfig(dir)
	h.info.MaxTokens = maxTokens(tokJSON, cfg.MaxPositionEmbeddings)
	h.seqBucket = sequenceBuckets(opts.SequenceBuckets, h.info.MaxTokens)
	h.queryPrefix, h.passagePrefix = readPrefixes(dir, cfg)
	h.info.Pooling = "mean+l2"
	if h.info.ID, err = ModelID(dir); err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}

	session, pipe, err := StartPipeline(ctx, hugot.FeatureExtractionConfig{
		ModelPath:    dir,
		OnnxFilename: ModelFile,
		Name:         "embed",
	}, "embedding model", "replace it with a sentence-transformers ONNX export or run `footnote model download`")
	if err != nil {
		return nil, err
	}
	h.session, h.pipe = session, pipe
	if err := shareWeights(pipe.Model); err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("embedding model folder %s could not be loaded (%v); replace it with a sentence-transformers ONNX export or run `footnote model download`", dir, err)
	}
	// The built-in encoder copies its weights from the parsed model, so it
	// is built before they are released; it is used only once its vectors
	// are shown to match the Go backend's (adoptEncoder).
	var enc *encoder.Encoder
	encErr := errors.New("the Go backend was chosen in Options")
	if opts.Engine != EngineGoBackend {
		enc, encErr = newEncoder(dir, pipe.Model)
	}
	if trim {
		releaseONNXWeights(pipe.Model)
	}

	// A probe run proves the graph executes and tells the output width;
	// it also compiles the shortest query shape.
	probe, err := h.run(ctx, [][]int{h.tok.Encode("probe")}, 0)
	if err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("embedding model folder %s failed a test run (%v); replace it or run `footnote model download`", dir, err)
	}
	h.info.Dim = len(probe[0])
	if enc != nil {
		if err := h.adoptEncoder(ctx, enc); err != nil {
			encErr = err
		} else {
			return h, nil
		}
	}
	h.engineNote = encErr.Error()
	// Queries are short; compiling their shapes now keeps the first
	// search fast. Longer queries compile on first use.
	for _, b := range h.seqBucket[1:] {
		if b > queryWarmTokens {
			break
		}
		ids := make([]int, b)
		ids[0], ids[b-1] = h.clsID, h.sepID
		for i := 1; i < b-1; i++ {
			ids[i] = h.clsID
		}
		if _, err := h.run(ctx, [][]int{ids}, 0); err != nil {
			_ = h.Close()
			return nil, fmt.Errorf("embedding model folder %s failed a test run (%v); replace it or run `footnote model download`", dir, err)
		}
	}
	if trim {
		dropUnusedCopies(pipe.Model)
	}
	return h, nil
}

// Engine names what runs the model (EngineEncoder or EngineGoBackend)
// and, for the Go backend, why the encoder does not.
func (h *Hugot) Engine() (name, why string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.enc != nil {
		return EngineEncoder, ""
	}
	return EngineGoBackend, h.engineNote
}

// Info describes the loaded model.
func (h *Hugot) Info() ModelInfo { return h.info }

// Options returns the options in effect, defaults filled in.
func (h *Hugot) Options() Options { return h.opts }

// Stats returns the work counters since Load.
func (h *Hugot) Stats() Stats {
	return Stats{Passages: h.passages.Load(), Truncated: h.truncated.Load(), Queries: h.queries.Load()}
}

// Prefixes returns the texts put before queries and passages (often empty).
func (h *Hugot) Prefixes() (query, passage string) { return h.queryPrefix, h.passagePrefix }

// Close releases the model. In-flight calls finish first; later calls fail.
func (h *Hugot) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.enc = nil
	if h.session == nil {
		return nil
	}
	err := h.session.Destroy()
	h.session, h.pipe = nil, nil
	if err != nil {
		return fmt.Errorf("close embedding model: %w", err)
	}
	return nil
}
