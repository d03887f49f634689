package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/knights-analytics/hugot/backends"
)

// CountTokens returns the number of tokens text encodes to as a passage
// (passage prefix and special tokens included), before any truncation.
// Chunkers compare it with Info().MaxTokens.
func (h *Hugot) CountTokens(text string) int {
	return len(h.encode(h.passagePrefix + text))
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

// encode returns text's token ids as the model's tokenizer gives them,
// special tokens included; long texts go piece by piece when that gives
// the same ids (tokenpieces.go).
func (h *Hugot) encode(text string) []int {
	if h.pieces == nil {
		return h.tok.Encode(text)
	}
	return h.pieces.encode(h.tok, text)
}

// encodeInner returns text's token ids without the [CLS] … [SEP] the
// tokenizer's post-processor wraps them in.
func (h *Hugot) encodeInner(text string) []int {
	ids := h.tok.Encode(text)
	if len(ids) >= 2 && ids[0] == h.clsID && ids[len(ids)-1] == h.sepID {
		return ids[1 : len(ids)-1]
	}
	return ids
}

// tokenIDs encodes text and truncates it the way Hugging Face does: keep
// the first MaxTokens-1 ids and close with the end token.
func (h *Hugot) tokenIDs(text string) (ids []int, cut bool) {
	ids = h.encode(text)
	if len(ids) > h.info.MaxTokens {
		return append(ids[:h.info.MaxTokens-1:h.info.MaxTokens-1], h.sepID), true
	}
	return ids, false
}

// PassageTokenIDs returns the token ids EmbedPassages feeds the model for
// text (passage prefix and special tokens included, truncated as it
// truncates), so a peer runtime can be measured on exactly the same input.
func (h *Hugot) PassageTokenIDs(text string) []int {
	ids, _ := h.tokenIDs(h.passagePrefix + text)
	return ids
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
// Long texts always run one at a time (soloTokens).
func (h *Hugot) runBatch(ctx context.Context, ids [][]int, batchSize, minLen int) ([][]float32, error) {
	n := len(ids)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if h.usesEncoder() {
		// The encoder pads nothing: the batch runs as it is.
		return h.run(ctx, ids, 0)
	}
	if batchSize > 1 && h.bucket(max(longest(ids), minLen)) >= soloTokens {
		return h.runEach(ctx, ids, minLen)
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
	return h.runEach(ctx, ids, minLen)
}

func (h *Hugot) usesEncoder() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.enc != nil
}

// soloTokens: texts padded to this many tokens or more run one at a time.
// A long text alone already gives every matrix product enough rows, and a
// batch of them outgrows the CPU caches: on MiniLM-L6 (one thread, 32
// passages, best of 3) a 228-token passage cost 45 ms alone and 48–57 ms
// in batches of 8, a 188-token one 33 ms against 39 ms; at 148 tokens and
// below batches of 8 were cheaper (27 against 29 ms). Each text also gets
// its own length bucket instead of the batch's longest.
var soloTokens = 176 // a variable so tests can reach it with the small test model

func longest(ids [][]int) int {
	n := 0
	for _, one := range ids {
		n = max(n, len(one))
	}
	return n
}

// runEach runs texts one at a time.
func (h *Hugot) runEach(ctx context.Context, ids [][]int, minLen int) ([][]float32, error) {
	out := make([][]float32, 0, len(ids))
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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if h.enc != nil {
		return runEncoder(h.enc, ids)
	}
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
