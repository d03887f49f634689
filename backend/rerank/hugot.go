package rerank

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
)

// Files a cross-encoder folder must hold (a Hugging Face ONNX export of a
// sequence classifier: one label for a reranker, e.g.
// cross-encoder/ms-marco-MiniLM-L-6-v2, or several, e.g. an NLI model's
// entailment / neutral / contradiction named in config.json's id2label).
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

// Hugot runs an ONNX cross-encoder with hugot's pure-Go backend. As a
// Reranker it scores (query, passage) pairs by the logit of the model's
// single label, through a sigmoid, so scores are in (0,1) as
// sentence-transformers reports them; Logits gives every label's logit of
// any pairs, for classifiers with several labels (LoadClassifier).
//
// hugot's pipelines load and validate the model, but Hugot builds the token
// batches itself: the pipelines pad each batch to its own longest pair, and
// every new length would compile (and keep) another program. Here batches
// are BatchSize rows (or single rows for a short remainder) padded to a few
// lengths. Safe for concurrent use.
type Hugot struct {
	name      string
	maxTokens int
	batchSize int
	workers   int
	buckets   []int
	tok       *hftokenizer.Tokenizer
	clsID     int
	sepID     int
	roberta   bool     // <s> q </s></s> p </s> with one segment, not [CLS] q [SEP] p [SEP]
	labels    []string // output labels in logit order

	pairs atomic.Int64

	mu      sync.RWMutex // read-held by inference, write-held by Close
	session *hugot.Session
	pipe    *backends.BasePipeline
}

var _ Reranker = (*Hugot)(nil)

// Load opens the one-label cross-encoder folder dir as a reranker and runs
// it once, so a broken model fails here rather than on the first search.
func Load(ctx context.Context, dir string) (*Hugot, error) {
	h, err := load(ctx, dir, "reranker model", "point it at a cross-encoder ONNX export ("+ModelFile+" + "+TokenizerFile+")")
	if err != nil {
		return nil, err
	}
	if len(h.labels) != 1 {
		_ = h.Close()
		return nil, fmt.Errorf("reranker model folder %s holds a classifier with %d labels (%s); a reranker has one: use a one-label cross-encoder ONNX export such as ms-marco-MiniLM-L-6-v2",
			dir, len(h.labels), strings.Join(h.labels, ", "))
	}
	return h, nil
}

// LoadClassifier opens the cross-encoder folder dir with any number of
// output labels, named in config.json's id2label (a folder without id2label
// is a one-label cross-encoder), and runs it once. what names the model in
// errors ("entailment model").
func LoadClassifier(ctx context.Context, dir, what string) (*Hugot, error) {
	return load(ctx, dir, what, "point it at a cross-encoder ONNX export ("+ModelFile+" + "+TokenizerFile+" + config.json)")
}

func load(ctx context.Context, dir, what, fix string) (*Hugot, error) {
	if err := embed.CheckModelFolder(dir, what, fix); err != nil {
		return nil, err
	}
	labels, err := folderLabels(dir)
	if err != nil {
		return nil, fmt.Errorf("%s folder %s: %w; %s", what, dir, err, fix)
	}
	tok, tokJSON, err := embed.ReadTokenizer(dir, what, "replace it with a cross-encoder ONNX export")
	if err != nil {
		return nil, err
	}
	h := &Hugot{tok: tok, batchSize: DefaultBatchSize, workers: runtime.GOMAXPROCS(0), labels: labels}
	// Encoding the empty string with special tokens reveals the start and
	// separator ids; pairs are then assembled from unwrapped encodings.
	if err := tok.With(api.EncodeOptions{AddSpecialTokens: true}); err != nil {
		return nil, fmt.Errorf("configure tokenizer: %w", err)
	}
	ends := tok.Encode("")
	if len(ends) != 2 {
		return nil, fmt.Errorf("%s folder %s: %s does not wrap inputs as [CLS] text [SEP], so it is not a BERT-style cross-encoder", what, dir, TokenizerFile)
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
		return nil, fmt.Errorf("load %s: %w", what, err)
	}

	// hugot's pipelines validate the graph's output: a cross-encoder's is
	// [batch, 1]; a classifier's is [batch, labels], as many as id2label names.
	if labels == nil {
		h.labels = []string{"LABEL_0"}
		session, pipe, err := embed.StartPipeline(ctx, hugot.CrossEncoderConfig{ModelPath: dir, OnnxFilename: ModelFile, Name: "pairs"},
			what, "use a cross-encoder ONNX export with one output label, or name its labels in config.json's id2label")
		if err != nil {
			return nil, err
		}
		h.session, h.pipe = session, pipe.BasePipeline
	} else {
		session, pipe, err := embed.StartPipeline(ctx, hugot.TextClassificationConfig{ModelPath: dir, OnnxFilename: ModelFile, Name: "pairs"},
			what, fmt.Sprintf("use a cross-encoder ONNX export whose output has one logit per label config.json's id2label names (%s)", strings.Join(labels, ", ")))
		if err != nil {
			return nil, err
		}
		h.session, h.pipe = session, pipe.BasePipeline
	}
	if err := embed.LeanModel(h.pipe.Model); err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("%s folder %s could not be loaded (%v); replace it with a cross-encoder ONNX export", what, dir, err)
	}
	// The probe proves the graph runs and compiles the shortest shape.
	if _, err := h.run(ctx, []pair{h.encode("probe", "probe")}); err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("%s folder %s failed a test run (%v); replace it with a cross-encoder ONNX export", what, dir, err)
	}
	embed.DropUnusedCopies(h.pipe.Model)
	return h, nil
}

// Name is the folder name and the model file's hash prefix.
func (h *Hugot) Name() string { return h.name }

// MaxTokens is the longest pair the model reads, special tokens included;
// longer pairs are cut, the longer side first.
func (h *Hugot) MaxTokens() int { return h.maxTokens }

// Pairs counts the text pairs scored since Load.
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

// Labels names the model's outputs in logit order: config.json's id2label,
// or "LABEL_0" for a one-label cross-encoder without it.
func (h *Hugot) Labels() []string { return slices.Clone(h.labels) }

// Rerank scores every passage against query: the sigmoid of the model's one
// logit. A classifier with several labels has no single score and fails.
func (h *Hugot) Rerank(ctx context.Context, query string, passages []string) ([]float32, error) {
	if len(h.labels) != 1 {
		return nil, fmt.Errorf("model %s has %d labels; reranking needs a one-label cross-encoder", h.name, len(h.labels))
	}
	pairs := make([][2]string, len(passages))
	for i, p := range passages {
		pairs[i] = [2]string{query, p}
	}
	logits, err := h.Logits(ctx, pairs)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(logits))
	for i, l := range logits {
		out[i] = float32(1 / (1 + math.Exp(-float64(l[0]))))
	}
	return out, nil
}

// Logits runs the model on each (first, second) text pair and returns its
// logits, one per label (Labels). Pairs run in batches on up to GOMAXPROCS
// goroutines; cancelling ctx stops between batches.
func (h *Hugot) Logits(ctx context.Context, pairs [][2]string) ([][]float32, error) {
	out := make([][]float32, len(pairs))
	if len(pairs) == 0 {
		return out, nil
	}
	rows := make([]pair, len(pairs))
	var wg sync.WaitGroup
	for w := range min(h.workers, len(pairs)) {
		wg.Go(func() {
			for i := w; i < len(pairs); i += h.workers {
				rows[i] = h.encode(pairs[i][0], pairs[i][1])
			}
		})
	}
	wg.Wait()
	order, items := h.batches(rows)

	var next atomic.Int64
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	for range min(h.workers, len(items)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(items) || ctx.Err() != nil {
					return
				}
				batch := order[items[i][0]:items[i][1]]
				in := make([]pair, len(batch))
				for j, k := range batch {
					in[j] = rows[k]
				}
				logits, err := h.run(ctx, in)
				if err != nil {
					cancel(fmt.Errorf("score pairs %v: %w", batch, err))
					return
				}
				for j, k := range batch {
					out[k] = logits[j]
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	h.pairs.Add(int64(len(pairs)))
	return out, nil
}

// batches orders the rows by the length they pad to and splits that order
// into work items ([start, end) ranges of it) of one padded length each: a
// long pair among short ones would make every row of its batch pay for its
// length.
func (h *Hugot) batches(rows []pair) (order []int, items [][2]int) {
	order = make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	padded := func(k int) int { return h.bucket(len(rows[k].ids)) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(padded(a), padded(b)) })
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && padded(order[end]) == padded(order[start]) {
			end++
		}
		for _, it := range h.workItems(end - start) {
			items = append(items, [2]int{start + it[0], start + it[1]})
		}
		start = end
	}
	return order, items
}

// workItems splits n pairs of one padded length into full batches of
// BatchSize and single pairs, which the workers run side by side. A batch
// of 8 NLI pairs of 64 tokens costs about a fifth less CPU a pair than
// single pairs (BenchmarkNLIPairs), but padding rows cost as much as real
// ones: padding 6 pairs to a batch of 8 cost more than it saved on the 8
// claims of BenchmarkVerifyAnswer, and batches of 4 saved nothing there.
func (h *Hugot) workItems(n int) [][2]int {
	var items [][2]int
	start := 0
	for ; n-start >= h.batchSize; start += h.batchSize {
		items = append(items, [2]int{start, start + h.batchSize})
	}
	for ; start < n; start++ {
		items = append(items, [2]int{start, start + 1})
	}
	return items
}

// run executes the model on one batch and returns each row's logits.
func (h *Hugot) run(ctx context.Context, rows []pair) ([][]float32, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.pipe == nil {
		return nil, errors.New("cross-encoder is closed")
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
	if err := backends.RunSessionOnBatch(ctx, batch, h.pipe); err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	if len(batch.OutputValues) == 0 {
		return nil, errors.New("run model: no output")
	}
	logits, ok := batch.OutputValues[0].([][]float32)
	if !ok || len(logits) < len(rows) {
		return nil, fmt.Errorf("run model: output is %T, want %d logits per pair [batch][%d]", batch.OutputValues[0], len(h.labels), len(h.labels))
	}
	for i := range rows {
		if len(logits[i]) != len(h.labels) {
			return nil, fmt.Errorf("run model: %d logits for pair %d, want one per label (%d)", len(logits[i]), i, len(h.labels))
		}
	}
	return logits[:len(rows)], nil
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
		return fmt.Errorf("close cross-encoder %s: %w", h.name, err)
	}
	return nil
}

// folderLabels reads the output labels, in logit order, from config.json's
// id2label in dir; nil when there is no config.json or it names none.
func folderLabels(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cfg struct {
		ID2Label map[string]string `json:"id2label"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("config.json is not valid JSON (%v)", err)
	}
	if len(cfg.ID2Label) == 0 {
		return nil, nil
	}
	labels := make([]string, len(cfg.ID2Label))
	for key, label := range cfg.ID2Label {
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(labels) {
			return nil, fmt.Errorf("config.json's id2label has the key %q; its keys must be the logit indexes 0 to %d", key, len(labels)-1)
		}
		labels[i] = label
	}
	return labels, nil
}
