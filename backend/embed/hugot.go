package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/gomlx/compute-onnx/support/protos"
	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
	"github.com/gomlx/gomlx/core/tensors"
	mlmodel "github.com/gomlx/gomlx/ml/model"
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
// Measured on a MiniLM-L6-shaped model: batch 8 costs ~35% less CPU per
// passage than batch 1 and the same as batch 32, with a smaller peak.
const DefaultBatchSize = 8

// DefaultSequenceBuckets are the padded lengths inputs are rounded up to,
// clipped to the model's limit (which is always the last bucket). Every
// (batch, length) pair the model sees is compiled once and kept. The
// weights are shared by all compiled shapes (see shareWeights), so a shape
// costs only its program and buffers; a finer bucket would still save at
// most the padding (<10% for ~235-token chunks padded to 256).
var DefaultSequenceBuckets = []int{16, 32, 64, 128, 256, 384}

// minPassageBucket is the shortest padded length for passages: short
// passages share the 64 shape rather than adding 16 and 32 shapes at the
// passage batch size; queries still use every bucket.
const minPassageBucket = 64

// hardMaxTokens caps inputs even when a model claims more positions:
// BERT-family exports are trained up to 512.
const hardMaxTokens = 512

// Options tune how Hugot runs the model. Zero values pick the defaults.
type Options struct {
	// BatchSize is the number of passages per inference call.
	BatchSize int
	// Workers is how many inference calls EmbedPassages runs at once; the
	// default is GOMAXPROCS. A call alone on the backend also splits its
	// matrix products across cores; concurrent calls run their ops in
	// sequence and share the backend's worker pool.
	Workers int
	// SequenceBuckets overrides DefaultSequenceBuckets.
	SequenceBuckets []int
}

// Stats counts work done since Load; callers diff two snapshots to attribute
// work (for example truncated passages) to one document.
type Stats struct {
	Passages  int64 `json:"passages"`
	Truncated int64 `json:"truncated"` // passages cut to MaxTokens before embedding
	Queries   int64 `json:"queries"`
}

// Hugot embeds text with an ONNX BERT-style model run by hugot's pure-Go
// backend: mean pooling over real tokens, then L2 normalisation.
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
	clsID         int
	sepID         int
	seqBucket     []int // ascending; the last equals info.MaxTokens
	queryPrefix   string
	passagePrefix string

	passages, truncated, queries atomic.Int64

	mu      sync.RWMutex // read-held by inference, write-held by Close
	session *hugot.Session
	pipe    *pipelines.FeatureExtractionPipeline
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
	if err := CheckModelFolder(dir, "embedding model", "set "+ModelEnv+" to a folder with "+ModelFile+" and "+TokenizerFile+", or run `footnote model download`"); err != nil {
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
	h := &Hugot{opts: opts, tok: tok}
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
	if err := shareWeights(pipe.Model); err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("embedding model folder %s could not be loaded (%v); replace it with a sentence-transformers ONNX export or run `footnote model download`", dir, err)
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

// onnxConstantLimit is the most elements an ONNX initializer can have and
// still be read from the parsed model while a graph is built: onnx-gomlx
// takes initializers of up to 10,000 elements (fewer unless the name says
// "const") as static shapes, axes or scalars. Larger ones are weights, used
// only through the model store.
const onnxConstantLimit = 10_000

// releaseONNXWeights drops the weight bytes the parsed ONNX model still
// holds once they are copied into the model store: as much memory as the
// model file (~88 MB for MiniLM-L6) that nothing reads again. The parsed
// graph itself stays, because compiling a new input shape walks it; so do
// initializers small enough to be read as constants (onnxConstantLimit),
// and any whose variable is not in the store. What hugot can no longer do
// afterwards is write the model back out (GoMLXModel.Save), which Footnote
// never does. It returns the bytes released: 0 when the parsed model is not
// laid out as expected, in which case the memory is simply kept.
func releaseONNXWeights(m *backends.Model) int64 {
	if m == nil || m.GoMLXModel == nil || m.GoMLXModel.OnnxModel == nil {
		return 0
	}
	// onnx-gomlx's model type is internal; its exported Proto field is
	// reachable only by reflection.
	v := reflect.ValueOf(m.GoMLXModel.OnnxModel)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0
	}
	field := v.Elem().FieldByName("Proto")
	if !field.IsValid() || field.Type() != reflect.TypeFor[protos.ModelProto]() || !field.CanAddr() {
		return 0
	}
	graph := field.Addr().Interface().(*protos.ModelProto).GetGraph()
	if graph == nil {
		return 0
	}
	stored := map[string]bool{}
	for sv := range m.GoMLXModel.Store.IterVariables() {
		if sv.HasValue() {
			stored[sv.Name()] = true
		}
	}
	var released int64
	for _, t := range graph.Initializer {
		elements := int64(1)
		for _, d := range t.Dims {
			elements *= d
		}
		// Store variable names replace the scope separator (see onnx-gomlx SafeVarName).
		if elements <= onnxConstantLimit || !stored[strings.ReplaceAll(t.Name, "/", "|")] {
			continue
		}
		released += int64(len(t.RawData)) + 4*int64(len(t.FloatData)+len(t.Int32Data)) +
			8*int64(len(t.Int64Data)+len(t.DoubleData)+len(t.Uint64Data))
		t.RawData, t.FloatData, t.Int32Data, t.Int64Data, t.DoubleData, t.Uint64Data = nil, nil, nil, nil, nil, nil
	}
	return released
}

// dropUnusedCopies releases what the loaded model holds but inference
// never reads, once a run has compiled its program: hugot's own tokenizer
// (Hugot tokenizes with its own), and the store variables the program does
// not take as parameters. onnx-gomlx fuses each layer's query, key and
// value projections into one matrix when it parses the model and keeps the
// three originals in the store too (~10 MB for MiniLM-L6); every input
// shape builds the same fused graph, so the originals are never read.
// A variable the program reads is on the device after the first run.
// It returns the bytes of the variables dropped.
func dropUnusedCopies(m *backends.Model) int64 {
	if m == nil || m.GoMLXModel == nil {
		return 0
	}
	if m.Tokenizer != nil {
		m.Tokenizer.GoTokenizer = nil
	}
	store := m.GoMLXModel.Store
	var unused []*mlmodel.Variable // collected first: deleting edits the list being iterated
	used := 0
	for v := range store.IterVariables() {
		if t, err := v.Value(); err == nil && t != nil {
			if t.IsOnDevice(0) {
				used++
			} else {
				unused = append(unused, v)
			}
		}
	}
	if used == 0 {
		return 0 // weights are not program parameters (see shareWeights): every shape compiles them in
	}
	var released int64
	for _, v := range unused {
		if err := store.DeleteVariable(v.Path()); err != nil {
			break // the rest stays; nothing depends on it going
		}
		released += int64(v.Shape().Memory())
	}
	return released
}

// MemoryLimit is the Go runtime soft memory limit LimitProcessMemory sets.
// Most of an ingest's peak is garbage: per-call activations and matmul
// scratch. Without a limit the heap grows to twice the live set; with it,
// GC runs earlier and the peak stays bounded.
const MemoryLimit = 1300 << 20

// LimitProcessMemory sets the Go runtime soft memory limit to MemoryLimit
// unless the process already has one (GOMEMLIMIT). It is process-wide, so
// only programs' entry points call it, never Load.
func LimitProcessMemory() {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(MemoryLimit)
	}
}

// queryWarmTokens is the longest query shape compiled at load.
const queryWarmTokens = 32

type modelConfig struct {
	HiddenSize            int    `json:"hidden_size"`
	MaxPositionEmbeddings int    `json:"max_position_embeddings"`
	NameOrPath            string `json:"_name_or_path"`
}

// PrefixFile is Footnote's own per-model file naming the texts put before
// queries and passages: {"query_prefix": "query: ", "passage_prefix": "passage: "}.
const PrefixFile = "footnote.json"

// readPrefixes finds the query and passage prefixes a model was trained
// with. In order: PrefixFile; sentence-transformers' prompts in
// config_sentence_transformers.json ("query", and "passage" or
// "document"); and the E5 family's documented "query: "/"passage: " when
// the folder or model name says e5. Models without any get none.
func readPrefixes(dir string, cfg modelConfig) (query, passage string) {
	var own struct {
		Query   *string `json:"query_prefix"`
		Passage *string `json:"passage_prefix"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, PrefixFile)); err == nil && json.Unmarshal(data, &own) == nil &&
		(own.Query != nil || own.Passage != nil) {
		if own.Query != nil {
			query = *own.Query
		}
		if own.Passage != nil {
			passage = *own.Passage
		}
		return query, passage
	}
	var st struct {
		Prompts map[string]string `json:"prompts"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, "config_sentence_transformers.json")); err == nil &&
		json.Unmarshal(data, &st) == nil && len(st.Prompts) > 0 {
		passage = st.Prompts["passage"]
		if passage == "" {
			passage = st.Prompts["document"]
		}
		return st.Prompts["query"], passage
	}
	for _, name := range []string{filepath.Base(filepath.Clean(dir)), cfg.NameOrPath} {
		if isE5Name(name) {
			return "query: ", "passage: "
		}
	}
	return "", ""
}

// isE5Name matches model names like "multilingual-e5-small" or "e5-base-v2".
func isE5Name(name string) bool {
	name = strings.ToLower(filepath.Base(name))
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if part == "e5" {
			return true
		}
	}
	return false
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
func sequenceBuckets(buckets []int, maxTokens int) []int {
	var out []int
	for _, b := range buckets {
		if b > 2 && b < maxTokens && (len(out) == 0 || b > out[len(out)-1]) {
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

// CountTokens returns the number of tokens text encodes to as a passage
// (passage prefix and special tokens included), before any truncation.
// Chunkers compare it with Info().MaxTokens.
func (h *Hugot) CountTokens(text string) int {
	return len(h.tok.Encode(h.passagePrefix + text))
}

// Truncate returns the longest prefix of text that fits in MaxTokens tokens
// as a passage (special tokens and passage prefix included), cut at a token
// boundary, and whether anything was cut. Embedding a passage embeds
// exactly this prefix.
func (h *Hugot) Truncate(text string) (string, bool) {
	p := len(h.passagePrefix)
	enc := h.tok.EncodeWithAnnotations(h.passagePrefix + text)
	if len(enc.IDs) <= h.info.MaxTokens {
		return text, false
	}
	// Positions 0 and len-1 are the special tokens; keep MaxTokens-2
	// content tokens and cut after the last one's span.
	spans := enc.Spans[1 : h.info.MaxTokens-1]
	end, monotonic := 0, true
	for _, s := range spans {
		monotonic = monotonic && s.Start >= 0 && s.End >= end
		end = max(end, s.End)
	}
	if monotonic && end >= p {
		return text[:end-p], true
	}
	// Some pre-tokenizers (Metaspace in a Sequence) report spans relative
	// to each word; fall back to the longest whitespace-ended prefix that
	// fits, found by binary search.
	cuts := []int{0}
	for i, r := range text {
		if unicode.IsSpace(r) {
			cuts = append(cuts, i)
		}
	}
	lo, hi := 0, len(cuts)-1 // cuts[lo] fits
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if h.CountTokens(text[:cuts[mid]]) <= h.info.MaxTokens {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return text[:cuts[lo]], true
}

// tokenIDs encodes text and truncates it the way Hugging Face does: keep
// the first MaxTokens-1 ids and close with the end token.
func (h *Hugot) tokenIDs(text string) (ids []int, cut bool) {
	ids = h.tok.Encode(text)
	if len(ids) > h.info.MaxTokens {
		return append(ids[:h.info.MaxTokens-1:h.info.MaxTokens-1], h.sepID), true
	}
	return ids, false
}

// EmbedQuery embeds one search query (with the model's query prefix).
func (h *Hugot) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	ids, _ := h.tokenIDs(h.queryPrefix + text)
	vecs, err := h.run(ctx, [][]int{ids}, 0)
	if err != nil {
		return nil, err
	}
	h.queries.Add(1)
	return vecs[0], nil
}

// EmbedPassages embeds texts (with the model's passage prefix) in batches
// of BatchSize, running up to Workers batches at once, and returns one
// vector per text in order. Texts over MaxTokens are truncated (see
// Truncate) and counted in Stats. Cancelling ctx stops between batches.
func (h *Hugot) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	batchSize := h.opts.BatchSize
	items := h.workItems(len(texts))
	out := make([][]float32, len(texts))
	embedBatch := func(ctx context.Context, b int) error {
		start, end := items[b][0], items[b][1]
		ids := make([][]int, end-start)
		cut := 0
		for i, t := range texts[start:end] {
			var c bool
			ids[i], c = h.tokenIDs(h.passagePrefix + t)
			if c {
				cut++
			}
		}
		vecs, err := h.runBatch(ctx, ids, batchSize, minPassageBucket)
		if err != nil {
			return fmt.Errorf("embed passages %d-%d: %w", start, end-1, err)
		}
		copy(out[start:end], vecs)
		h.passages.Add(int64(end - start))
		h.truncated.Add(int64(cut))
		return nil
	}

	workers := min(h.opts.Workers, len(items))
	if workers <= 1 {
		for b := range items {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := embedBatch(ctx, b); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	// Each worker takes the next batch; the first error stops the rest.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= len(items) || ctx.Err() != nil {
					return
				}
				if err := embedBatch(ctx, b); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

// workItems splits n texts into [start, end) ranges: full batches, then the
// remainder either as one padded batch (one worker: padding is cheaper than
// singles once the batch is ¾ full) or as single texts, so that several
// workers share a short input instead of one doing all of it.
func (h *Hugot) workItems(n int) [][2]int {
	b := h.opts.BatchSize
	var items [][2]int
	start := 0
	for ; start+b <= n; start += b {
		items = append(items, [2]int{start, start + b})
	}
	if r := n - start; r > 0 {
		if h.opts.Workers <= 1 || len(items) >= h.opts.Workers {
			items = append(items, [2]int{start, n})
		} else {
			for i := start; i < n; i++ {
				items = append(items, [2]int{i, i + 1})
			}
		}
	}
	return items
}

// runBatch keeps the batch dimension at batchSize: a short final batch is
// either padded with dummy rows or, when padding would cost more than it
// saves, run one text at a time (batch 1 is a shape queries use anyway).
func (h *Hugot) runBatch(ctx context.Context, ids [][]int, batchSize, minLen int) ([][]float32, error) {
	n := len(ids)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n == batchSize || batchSize == 1 {
		return h.run(ctx, ids, minLen)
	}
	if n*4 >= batchSize*3 {
		padded := append([][]int(nil), ids...)
		for len(padded) < batchSize {
			padded = append(padded, []int{h.clsID, h.sepID})
		}
		vecs, err := h.run(ctx, padded, minLen)
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
		vecs, err := h.run(ctx, [][]int{one}, minLen)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs[0])
	}
	return out, nil
}

// run executes the model on already-encoded texts, padded to at least
// minLen tokens, and mean-pools each row over its real tokens.
//
// The model call itself cannot be interrupted: ctx is checked before it,
// and the input tensors are released only after it returns. (hugot's own
// runner returns as soon as ctx ends while the backend still reads the
// inputs, which the deferred release would then free under it.)
func (h *Hugot) run(ctx context.Context, ids [][]int, minLen int) ([][]float32, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.pipe == nil {
		return nil, errors.New("embedding model is closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
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
	// hugot pads every row to MaxSequenceLength with id 0 and attention 0.
	seqLen := h.bucket(max(longest, minLen))
	batch.MaxSequenceLength = seqLen
	if err := backends.CreateInputTensors(batch, h.pipe.Model); err != nil {
		return nil, fmt.Errorf("prepare model input: %w", err)
	}
	outputs, err := h.exec(batch.InputValues.([]*tensors.Tensor))
	if err != nil && ctx.Err() == nil {
		// Under heavy load the Go backend has been seen to fail one
		// execution with a nil-pointer panic inside a compiled graph (about
		// once in a few hundred engine tests on a 2-core machine with a load
		// average above 10); the same inputs then run fine. One retry keeps
		// a file from failing for it; a second failure is reported.
		outputs, err = h.exec(batch.InputValues.([]*tensors.Tensor))
	}
	defer func() {
		for _, t := range outputs {
			_ = t.FinalizeAll()
		}
	}()
	if err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	if h.pipe.OutputIndex >= len(outputs) {
		return nil, errors.New("run model: no output")
	}
	tokens := outputs[h.pipe.OutputIndex]
	dims := tokens.Shape().Dimensions
	if len(dims) != 3 || dims[0] != len(ids) || dims[1] != seqLen {
		return nil, fmt.Errorf("run model: output has shape %v, want per-token vectors [%d %d hidden]", dims, len(ids), seqLen)
	}
	out := make([][]float32, len(ids))
	err = tensors.ConstFlatData(tokens, func(flat []float32) {
		hidden := dims[2]
		for i, row := range ids {
			start := i * seqLen * hidden
			out[i] = meanL2(flat[start:start+len(row)*hidden], hidden)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("run model: read output: %w", err)
	}
	return out, nil
}

// exec runs the compiled model synchronously, turning a backend panic into
// an error.
func (h *Hugot) exec(inputs []*tensors.Tensor) (outputs []*tensors.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("model panicked: %v", r)
		}
	}()
	return h.pipe.Model.GoMLXModel.Exec.Exec(inputs)
}

// meanL2 averages the token vectors in flat (rows of width hidden) and
// scales the result to unit length, accumulating in float64 so batch and
// single runs agree closely.
func meanL2(flat []float32, hidden int) []float32 {
	sum := make([]float64, hidden)
	for r := 0; r+hidden <= len(flat); r += hidden {
		for k, v := range flat[r : r+hidden] {
			sum[k] += float64(v)
		}
	}
	var norm float64
	for _, v := range sum {
		norm += v * v
	}
	norm = math.Sqrt(norm)
	out := make([]float32, hidden)
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
