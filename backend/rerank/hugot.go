package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
	"github.com/knights-analytics/hugot/pipelines"
)

// Files a cross-encoder folder must hold (a Hugging Face ONNX export of a
// sequence classifier with one label, e.g. cross-encoder/ms-marco-MiniLM-L-6-v2).
const (
	ModelFile     = embed.ModelFile
	TokenizerFile = embed.TokenizerFile
)

// DefaultBatchSize is how many pairs go through the model per call.
const DefaultBatchSize = 8

// sequenceBuckets are the padded lengths pairs are rounded up to (clipped
// to the model's limit, which is always added). The pure-Go backend
// compiles and keeps one program per (batch, length) shape, so the list is
// short; padded positions are masked out and do not change scores.
var sequenceBuckets = []int{64, 128, 256, 384}

// Hugot scores (query, passage) pairs with an ONNX cross-encoder run by
// hugot's pure-Go backend: the logit of the single label, through a sigmoid,
// so scores are in (0,1) as sentence-transformers reports them.
//
// hugot's CrossEncoderPipeline loads and validates the model, but Hugot
// builds the token batches itself: the pipeline pads each batch to its own
// longest pair, and every new length would compile (and keep) another
// program. Here batches are BatchSize rows (or single rows for a short
// remainder) padded to a few lengths. Safe for concurrent use.
type Hugot struct {
	name      string
	maxTokens int
	batchSize int
	workers   int
	buckets   []int
	tok       *hftokenizer.Tokenizer
	clsID     int
	sepID     int
	roberta   bool // <s> q </s></s> p </s> with one segment, not [CLS] q [SEP] p [SEP]

	pairs atomic.Int64

	mu      sync.RWMutex // read-held by inference, write-held by Close
	session *hugot.Session
	pipe    *pipelines.CrossEncoderPipeline
}

var _ Reranker = (*Hugot)(nil)

// Load opens the cross-encoder folder dir and runs it once, so a broken
// model fails here rather than on the first search.
func Load(ctx context.Context, dir string) (*Hugot, error) {
	if err := embed.CheckModelFolder(dir, "reranker model", "point it at a cross-encoder ONNX export ("+ModelFile+" + "+TokenizerFile+")"); err != nil {
		return nil, err
	}
	tok, tokJSON, err := embed.ReadTokenizer(dir, "reranker model", "replace it with a cross-encoder ONNX export")
	if err != nil {
		return nil, err
	}
	h := &Hugot{tok: tok, batchSize: DefaultBatchSize, workers: runtime.GOMAXPROCS(0)}
	// Encoding the empty string with special tokens reveals the start and
	// separator ids; pairs are then assembled from unwrapped encodings.
	if err := tok.With(api.EncodeOptions{AddSpecialTokens: true}); err != nil {
		return nil, fmt.Errorf("configure tokenizer: %w", err)
	}
	ends := tok.Encode("")
	if len(ends) != 2 {
		return nil, fmt.Errorf("reranker model folder %s: %s does not wrap inputs as [CLS] text [SEP], so it is not a BERT-style cross-encoder", dir, TokenizerFile)
	}
	h.clsID, h.sepID = ends[0], ends[1]
	if sep, _ := tok.IDToToken(h.sepID); sep == "</s>" {
		h.roberta = true
	}
	if err := tok.With(api.EncodeOptions{}); err != nil {
		return nil, fmt.Errorf("configure tokenizer: %w", err)
	}
	h.maxTokens = embed.ModelTokenLimit(dir, tokJSON)
	for _, b := range sequenceBuckets {
		if b < h.maxTokens {
			h.buckets = append(h.buckets, b)
		}
	}
	h.buckets = append(h.buckets, h.maxTokens)
	if h.name, err = embed.ModelID(dir); err != nil {
		return nil, fmt.Errorf("load reranker: %w", err)
	}

	session, pipe, err := embed.StartPipeline(ctx, hugot.CrossEncoderConfig{ModelPath: dir, OnnxFilename: ModelFile, Name: "rerank"},
		"reranker model", "use a cross-encoder ONNX export with one output label")
	if err != nil {
		return nil, err
	}
	h.session, h.pipe = session, pipe
	// The probe proves the graph runs and compiles the shortest shape.
	if _, err := h.run(ctx, []pair{h.encode("probe", "probe")}); err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("reranker model folder %s failed a test run (%v); replace it with a cross-encoder ONNX export", dir, err)
	}
	return h, nil
}

// Name is the folder name and the model file's hash prefix.
func (h *Hugot) Name() string { return h.name }

// MaxTokens is the longest pair the model reads, special tokens included;
// longer pairs are cut, the longer side first.
func (h *Hugot) MaxTokens() int { return h.maxTokens }

// Pairs counts the (query, passage) pairs scored since Load.
func (h *Hugot) Pairs() int64 { return h.pairs.Load() }

// pair is one encoded (query, passage) input.
type pair struct {
	ids, types []int
}

// encode builds [CLS] q [SEP] p [SEP] (segment ids 0 then 1), or RoBERTa's
// <s> q </s></s> p </s>, cutting the longer side first to fit maxTokens as
// Hugging Face's longest_first truncation does.
func (h *Hugot) encode(query, passage string) pair {
	q, p := h.tok.Encode(clipWords(query, h.maxTokens)), h.tok.Encode(clipWords(passage, h.maxTokens))
	specials := 3
	if h.roberta {
		specials = 4
	}
	budget := max(h.maxTokens-specials, 0)
	if over := len(q) + len(p) - budget; over > 0 {
		// Trim the longer side down to the shorter, then share the rest.
		long, short := &p, &q
		if len(q) > len(p) {
			long, short = &q, &p
		}
		cut := min(over, len(*long)-len(*short))
		*long = (*long)[:len(*long)-cut]
		if over -= cut; over > 0 {
			p = p[:len(p)-(over+1)/2]
			q = q[:len(q)-over/2]
		}
	}
	ids := make([]int, 0, len(q)+len(p)+specials)
	ids = append(append(append(ids, h.clsID), q...), h.sepID)
	if h.roberta {
		ids = append(ids, h.sepID)
	}
	second := len(ids)
	ids = append(append(ids, p...), h.sepID)
	types := make([]int, len(ids))
	if !h.roberta {
		for i := second; i < len(types); i++ {
			types[i] = 1
		}
	}
	return pair{ids: ids, types: types}
}

// clipWords returns text up to the end of its n-th whitespace-separated
// word. Every word is at least one token, so the model never reads past
// that point; clipping first keeps tokenizing long texts cheap (the
// tokenizer's pre-tokenizer is quadratic in a text's length).
func clipWords(text string, n int) string {
	inWord := false
	for i, r := range text {
		if unicode.IsSpace(r) {
			if inWord {
				if n--; n == 0 {
					return text[:i]
				}
			}
			inWord = false
		} else {
			inWord = true
		}
	}
	return text
}

// Rerank scores every passage against query. Pairs run in batches on up to
// GOMAXPROCS goroutines; cancelling ctx stops between batches.
func (h *Hugot) Rerank(ctx context.Context, query string, passages []string) ([]float32, error) {
	out := make([]float32, len(passages))
	if len(passages) == 0 {
		return out, nil
	}
	var next atomic.Int64
	items := h.workItems(len(passages))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for range min(h.workers, len(items)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(items) || ctx.Err() != nil {
					return
				}
				start, end := items[i][0], items[i][1]
				rows := make([]pair, 0, h.batchSize)
				for _, p := range passages[start:end] {
					rows = append(rows, h.encode(query, p))
				}
				n := len(rows)
				for len(rows) > 1 && len(rows) < h.batchSize { // keep the batch shape
					rows = append(rows, h.encode("", ""))
				}
				scores, err := h.run(ctx, rows)
				if err != nil {
					cancel(fmt.Errorf("rerank passages %d-%d: %w", start, end-1, err))
					return
				}
				copy(out[start:end], scores[:n])
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	h.pairs.Add(int64(len(passages)))
	return out, nil
}

// workItems splits n pairs into [start, end) ranges of BatchSize; a
// remainder at least ¾ of a batch is one padded batch, a smaller one runs
// as single pairs (padding would cost more than it saves).
func (h *Hugot) workItems(n int) [][2]int {
	b := h.batchSize
	var items [][2]int
	start := 0
	for ; start+b <= n; start += b {
		items = append(items, [2]int{start, start + b})
	}
	if r := n - start; r*4 >= b*3 {
		items = append(items, [2]int{start, n})
	} else {
		for i := start; i < n; i++ {
			items = append(items, [2]int{i, i + 1})
		}
	}
	return items
}

// run executes the model on one batch and returns sigmoid(logit) per row.
func (h *Hugot) run(ctx context.Context, rows []pair) ([]float32, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.pipe == nil {
		return nil, errors.New("reranker is closed")
	}
	batch := backends.NewBatch(len(rows))
	defer batch.Destroy()
	batch.Input = make([]backends.TokenizedInput, len(rows))
	longest := 0
	for i, r := range rows {
		in := backends.TokenizedInput{
			TokenIDs:          make([]uint32, len(r.ids)),
			TypeIDs:           make([]uint32, len(r.ids)),
			AttentionMask:     make([]uint32, len(r.ids)),
			MaxAttentionIndex: len(r.ids) - 1,
		}
		for j, id := range r.ids {
			in.TokenIDs[j], in.TypeIDs[j], in.AttentionMask[j] = uint32(id), uint32(r.types[j]), 1
		}
		batch.Input[i] = in
		longest = max(longest, len(r.ids))
	}
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
	logits, ok := batch.OutputValues[0].([][]float32)
	if !ok || len(logits) < len(rows) {
		return nil, fmt.Errorf("run model: output is %T, want one logit per pair [batch][1]", batch.OutputValues[0])
	}
	out := make([]float32, len(rows))
	for i := range rows {
		if len(logits[i]) == 0 {
			return nil, fmt.Errorf("run model: no logit for pair %d", i)
		}
		out[i] = float32(1 / (1 + math.Exp(-float64(logits[i][0]))))
	}
	return out, nil
}

func (h *Hugot) bucket(n int) int {
	for _, b := range h.buckets {
		if n <= b {
			return b
		}
	}
	return h.buckets[len(h.buckets)-1]
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
		return fmt.Errorf("close reranker: %w", err)
	}
	return nil
}
