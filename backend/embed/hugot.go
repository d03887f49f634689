package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
	"github.com/knights-analytics/hugot/pipelines"
)

// ModelEnv is the environment variable that points the app at a model folder.
const ModelEnv = "FOOTNOTE_EMBED_MODEL"

// Files every model folder must hold.
const (
	ModelFile     = "model.onnx"
	TokenizerFile = "tokenizer.json"
)

// DefaultBatchSize is how many passages go through the model per call.
const DefaultBatchSize = 8

// hardMaxTokens caps inputs even when a model claims more positions:
// BERT-family exports are trained up to 512.
const hardMaxTokens = 512

// Hugot embeds text with an ONNX BERT-style model run by hugot's pure-Go
// backend: mean pooling over real tokens, then L2 normalisation.
//
// The Go backend compiles (and keeps) one program per distinct input shape,
// about 135 MB each for a MiniLM-sized model, so Hugot controls shapes
// itself: passages run in batches of exactly BatchSize (or singly for a
// small remainder) and sequence lengths are padded up to a few buckets.
// Safe for concurrent use.
type Hugot struct {
	// BatchSize is the number of passages per inference call. Set it before
	// first use; changing it later adds input shapes (memory).
	BatchSize int

	info      ModelInfo
	tok       *hftokenizer.Tokenizer
	clsID     int
	sepID     int
	seqBucket []int // ascending; the last equals info.MaxTokens

	mu      sync.RWMutex // read-held by inference, write-held by Close
	session *hugot.Session
	pipe    *pipelines.FeatureExtractionPipeline
}

var _ Embedder = (*Hugot)(nil)

// Load opens the model folder dir (model.onnx, tokenizer.json and
// optionally config.json) and checks it produces embeddings.
func Load(ctx context.Context, dir string) (*Hugot, error) {
	if err := checkModelDir(dir); err != nil {
		return nil, err
	}
	tokJSON, err := os.ReadFile(filepath.Join(dir, TokenizerFile))
	if err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}
	tok, err := hftokenizer.NewFromContent(nil, tokJSON)
	if err != nil {
		return nil, fmt.Errorf("embedding model folder %s has an unreadable %s (%v); replace the folder or run `footnote model download`", dir, TokenizerFile, err)
	}
	if err := tok.With(api.EncodeOptions{AddSpecialTokens: true, IncludeSpans: true}); err != nil {
		return nil, fmt.Errorf("configure tokenizer: %w", err)
	}
	h := &Hugot{BatchSize: DefaultBatchSize, tok: tok}
	// The post-processor wraps every input as [CLS] … [SEP]; encoding the
	// empty string reveals both ids, which truncation and padding rows need.
	if ends := tok.Encode(""); len(ends) == 2 {
		h.clsID, h.sepID = ends[0], ends[1]
	} else {
		return nil, fmt.Errorf("embedding model folder %s: %s does not wrap inputs as [CLS] text [SEP], so it is not a BERT-style model; use a sentence-transformers ONNX export", dir, TokenizerFile)
	}

	cfg := readModelConfig(dir)
	h.info.MaxTokens = maxTokens(tokJSON, cfg.MaxPositionEmbeddings)
	h.seqBucket = sequenceBuckets(h.info.MaxTokens)
	h.info.Pooling = "mean+l2"
	sum, err := fileSHA256(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}
	h.info.ID = filepath.Base(filepath.Clean(dir)) + "@" + sum[:8]

	session, err := hugot.NewGoSession(ctx)
	if err != nil {
		return nil, fmt.Errorf("start inference session: %w", err)
	}
	pipe, err := hugot.NewPipeline(session, hugot.FeatureExtractionConfig{
		ModelPath:    dir,
		OnnxFilename: ModelFile,
		Name:         "embed",
	})
	if err != nil {
		_ = session.Destroy()
		return nil, fmt.Errorf("embedding model folder %s could not be loaded (%v); replace it with a sentence-transformers ONNX export or run `footnote model download`", dir, err)
	}
	h.session, h.pipe = session, pipe

	// A probe run proves the graph executes and tells the output width.
	probe, err := h.EmbedQuery(ctx, "probe")
	if err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("embedding model folder %s failed a test run (%v); replace it or run `footnote model download`", dir, err)
	}
	h.info.Dim = len(probe)
	return h, nil
}

// checkModelDir gives one actionable sentence for the common setup mistakes.
func checkModelDir(dir string) error {
	const fix = "set " + ModelEnv + " to a folder with " + ModelFile + " and " + TokenizerFile + ", or run `footnote model download`"
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("embedding model folder %s does not exist; %s", dir, fix)
	}
	if !st.IsDir() {
		return fmt.Errorf("embedding model path %s is not a folder; %s", dir, fix)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("embedding model folder %s cannot be read (%v); %s", dir, err, fix)
	}
	for _, e := range entries {
		// hugot opens model files through a sandbox that rejects links.
		if e.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("embedding model folder %s contains a symbolic link (%s), which the model loader refuses; copy the real file into the folder", dir, e.Name())
		}
	}
	for _, name := range []string{ModelFile, TokenizerFile} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("embedding model folder %s has no %s; %s", dir, name, fix)
		}
	}
	return nil
}

type modelConfig struct {
	HiddenSize            int `json:"hidden_size"`
	MaxPositionEmbeddings int `json:"max_position_embeddings"`
}

// readModelConfig reads config.json if present; a missing or odd file just
// means fewer limits are known.
func readModelConfig(dir string) modelConfig {
	var cfg modelConfig
	if data, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
		_ = json.Unmarshal(data, &cfg)
	}
	return cfg
}

// maxTokens is the smallest of the tokenizer's truncation length, the
// model's position count and hardMaxTokens.
func maxTokens(tokenizerJSON []byte, positions int) int {
	limit := hardMaxTokens
	var tj struct {
		Truncation *struct {
			MaxLength int `json:"max_length"`
		} `json:"truncation"`
	}
	if json.Unmarshal(tokenizerJSON, &tj) == nil && tj.Truncation != nil && tj.Truncation.MaxLength > 0 {
		limit = min(limit, tj.Truncation.MaxLength)
	}
	if positions > 0 {
		limit = min(limit, positions)
	}
	return limit
}

// sequenceBuckets lists the padded lengths inputs are rounded up to. Few
// buckets mean few compiled shapes; padding costs compute but not accuracy
// because padded positions are masked out.
func sequenceBuckets(maxTokens int) []int {
	var out []int
	for _, b := range []int{16, 32, 64, 128, 256, 384} {
		if b < maxTokens {
			out = append(out, b)
		}
	}
	return append(out, maxTokens)
}

func (h *Hugot) bucket(n int) int {
	for _, b := range h.seqBucket {
		if n <= b {
			return b
		}
	}
	return h.seqBucket[len(h.seqBucket)-1]
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hash := sha256.New()
	if _, err := io.Copy(hash, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(hash.Sum(nil)), nil
}

// Info describes the loaded model.
func (h *Hugot) Info() ModelInfo { return h.info }

// CountTokens returns the number of tokens text encodes to, special tokens
// included, before any truncation.
func (h *Hugot) CountTokens(text string) int {
	return len(h.tok.Encode(text))
}

// Truncate returns the longest prefix of text that fits in MaxTokens tokens
// (special tokens included), cut at a token boundary, and whether anything
// was cut. Embedding a text embeds exactly this prefix.
func (h *Hugot) Truncate(text string) (string, bool) {
	enc := h.tok.EncodeWithAnnotations(text)
	if len(enc.IDs) <= h.info.MaxTokens {
		return text, false
	}
	// Positions 0 and len-1 are [CLS] and [SEP]; keep MaxTokens-2 content
	// tokens and cut after the last one's span.
	end := 0
	for _, s := range enc.Spans[1 : h.info.MaxTokens-1] {
		end = max(end, s.End)
	}
	return text[:end], true
}

// tokenIDs encodes text and truncates it the way Hugging Face does: keep
// the first MaxTokens-1 ids and close with [SEP].
func (h *Hugot) tokenIDs(text string) []int {
	ids := h.tok.Encode(text)
	if len(ids) > h.info.MaxTokens {
		ids = append(ids[:h.info.MaxTokens-1:h.info.MaxTokens-1], h.sepID)
	}
	return ids
}

// EmbedQuery embeds one text.
func (h *Hugot) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vecs, err := h.run(ctx, [][]int{h.tokenIDs(text)})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// EmbedPassages embeds texts in batches of BatchSize, returning one vector
// per text in order. Cancelling ctx stops between batches.
func (h *Hugot) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	batchSize := max(h.BatchSize, 1)
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batchSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+batchSize, len(texts))
		ids := make([][]int, end-start)
		for i, t := range texts[start:end] {
			ids[i] = h.tokenIDs(t)
		}
		vecs, err := h.runBatch(ctx, ids, batchSize)
		if err != nil {
			return nil, fmt.Errorf("embed passages %d-%d: %w", start, end-1, err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// runBatch keeps the batch dimension at batchSize: a short final batch is
// either padded with dummy rows or, when padding would cost more than it
// saves, run one text at a time (batch 1 is a shape queries use anyway).
func (h *Hugot) runBatch(ctx context.Context, ids [][]int, batchSize int) ([][]float32, error) {
	n := len(ids)
	if n == batchSize || batchSize == 1 {
		return h.run(ctx, ids)
	}
	if n*4 >= batchSize*3 {
		padded := append([][]int(nil), ids...)
		for len(padded) < batchSize {
			padded = append(padded, []int{h.clsID, h.sepID})
		}
		vecs, err := h.run(ctx, padded)
		if err != nil {
			return nil, err
		}
		return vecs[:n], nil
	}
	out := make([][]float32, 0, n)
	for _, one := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vecs, err := h.run(ctx, [][]int{one})
		if err != nil {
			return nil, err
		}
		out = append(out, vecs[0])
	}
	return out, nil
}

// run executes the model on already-encoded texts and mean-pools.
func (h *Hugot) run(ctx context.Context, ids [][]int) ([][]float32, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.pipe == nil {
		return nil, errors.New("embedding model is closed")
	}
	longest := 0
	batch := backends.NewBatch(len(ids))
	defer batch.Destroy()
	batch.Input = make([]backends.TokenizedInput, len(ids))
	for i, row := range ids {
		in := backends.TokenizedInput{
			TokenIDs:          make([]uint32, len(row)),
			TypeIDs:           make([]uint32, len(row)),
			AttentionMask:     make([]uint32, len(row)),
			MaxAttentionIndex: len(row) - 1,
		}
		for j, id := range row {
			in.TokenIDs[j] = uint32(id)
			in.AttentionMask[j] = 1
		}
		batch.Input[i] = in
		longest = max(longest, len(row))
	}
	// hugot pads every row to MaxSequenceLength with id 0 and attention 0,
	// and returns only the unpadded positions.
	batch.MaxSequenceLength = h.bucket(longest)
	if err := backends.CreateInputTensors(batch, h.pipe.Model); err != nil {
		return nil, fmt.Errorf("prepare model input: %w", err)
	}
	if err := backends.RunSessionOnBatch(ctx, batch, h.pipe.BasePipeline); err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	if len(batch.OutputValues) == 0 {
		return nil, errors.New("run model: no output")
	}
	tokens, ok := batch.OutputValues[h.pipe.OutputIndex].([][][]float32)
	if !ok {
		return nil, fmt.Errorf("run model: output is %T, want per-token vectors [batch][seq][hidden]", batch.OutputValues[h.pipe.OutputIndex])
	}
	out := make([][]float32, len(ids))
	for i := range ids {
		if i >= len(tokens) || len(tokens[i]) == 0 {
			return nil, fmt.Errorf("run model: missing output for input %d", i)
		}
		out[i] = meanL2(tokens[i])
	}
	return out, nil
}

// meanL2 averages token vectors and scales the result to unit length,
// accumulating in float64 so batch and single runs agree closely.
func meanL2(tokens [][]float32) []float32 {
	sum := make([]float64, len(tokens[0]))
	for _, t := range tokens {
		for k, v := range t {
			sum[k] += float64(v)
		}
	}
	var norm float64
	for _, v := range sum {
		norm += v * v
	}
	norm = math.Sqrt(norm)
	out := make([]float32, len(sum))
	if norm == 0 {
		return out
	}
	for k, v := range sum {
		out[k] = float32(v / norm)
	}
	return out
}

// Close releases the model. In-flight calls finish first; later calls fail.
func (h *Hugot) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
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
