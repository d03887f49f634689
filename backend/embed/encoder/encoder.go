//go:build goexperiment.simd && amd64

package encoder

import (
	"fmt"
	"math"
	"sync"

	"github.com/gomlx/compute-onnx/support/protos"
)

// Encoder runs one BERT encoder. Safe for concurrent use: each call takes
// its own scratch buffers from a pool.
type Encoder struct {
	cfg      Config
	eps      float32
	scale    float32 // 1/√(head size), applied to attention scores
	word     matrix
	position matrix // position embeddings plus token type 0's (every token is segment A), summed at load
	embGamma []float32
	embBeta  []float32
	layers   []layer
	scratch  sync.Pool
}

type layer struct {
	qkv                 packed    // query, key and value side by side: [hidden, 3·hidden]
	queryBias           []float32 // the only bias of query, key and value added to them (see fromWeights)
	attnOut, up, down   packed
	attnOutBias, upBias []float32
	downBias            []float32
	attnGamma, attnBeta []float32
	outGamma, outBeta   []float32
}

// scratch holds one call's activations; buffers grow to the largest call.
type scratch struct {
	x, qkv, context, inter, scores []float32
	invSums                        []float32 // one over each score row's sum of exps
	keys, values                   packed
}

// New builds the encoder for a parsed ONNX model and its Hugging Face
// config.json. It copies the weights, so model may be released after. It
// returns an error wrapping ErrUnsupported when this CPU or this model is
// not one the encoder runs.
func New(model *protos.ModelProto, configJSON []byte) (*Encoder, error) {
	if !supported {
		return nil, fmt.Errorf("%w: the CPU has no AVX2 with FMA", ErrUnsupported)
	}
	w, err := readWeights(model, configJSON)
	if err != nil {
		return nil, err
	}
	return fromWeights(w), nil
}

// fromWeights packs w for the kernels.
func fromWeights(w *weights) *Encoder {
	cfg := w.cfg
	h := cfg.Hidden
	e := &Encoder{
		cfg: cfg, eps: w.eps, scale: float32(1 / math.Sqrt(float64(h/cfg.Heads))),
		word: w.word, position: positionsOfSegmentA(w.position, w.tokenType.data[:h]),
		embGamma: w.embNormGamma, embBeta: w.embNormBeta,
		layers: make([]layer, len(w.layers)),
	}
	for i, lw := range w.layers {
		l := &e.layers[i]
		qkv := make([]float32, h*3*h)
		for r := range h {
			copy(qkv[r*3*h:], lw.query.data[r*h:(r+1)*h])
			copy(qkv[r*3*h+h:], lw.key.data[r*h:(r+1)*h])
			copy(qkv[r*3*h+2*h:], lw.value.data[r*h:(r+1)*h])
		}
		pack(&l.qkv, qkv, 3*h, h, 3*h, false)
		// Of the three projections' biases only the query's is added. The
		// key's adds q·b to every score of a query's row, which softmax
		// cancels; the value's adds b to every context row (each row of
		// probabilities sums to 1), so it becomes b·W in the output
		// projection's bias. Exact in real arithmetic; it saves adding
		// two thirds of the biases to every token.
		l.queryBias = lw.queryBias
		pack(&l.attnOut, lw.attnOut.data, h, h, h, false)
		pack(&l.up, lw.up.data, cfg.Intermediate, h, cfg.Intermediate, false)
		pack(&l.down, lw.down.data, h, cfg.Intermediate, h, false)
		l.attnOutBias = append([]float32(nil), lw.attnOutBias...)
		for j := range h {
			var sum float64
			for i, b := range lw.valueBias {
				sum += float64(b) * float64(lw.attnOut.data[i*h+j])
			}
			l.attnOutBias[j] += float32(sum)
		}
		l.upBias, l.downBias = lw.upBias, lw.downBias
		l.attnGamma, l.attnBeta = lw.attnNormGamma, lw.attnNormBeta
		l.outGamma, l.outBeta = lw.outNormGamma, lw.outNormBeta
	}
	e.scratch.New = func() any { return new(scratch) }
	return e
}

// positionsOfSegmentA returns a copy of the position embeddings with the
// token type embedding every token gets added to each row.
func positionsOfSegmentA(position matrix, tokenType []float32) matrix {
	out := matrix{rows: position.rows, cols: position.cols, data: append([]float32(nil), position.data...)}
	addRows(out.data, out.cols, out.rows, tokenType)
	return out
}

// Hidden is the width of the encoder's token vectors.
func (e *Encoder) Hidden() int { return e.cfg.Hidden }

// MaxTokens is the number of positions the encoder has embeddings for.
func (e *Encoder) MaxTokens() int { return e.position.rows }

// Run encodes each row of token ids (special tokens included, every token
// attended: nothing is padded) and calls each(i, hidden) with text i's
// last hidden state, len(ids[i]) rows of Hidden() floats, valid only
// during the call.
func (e *Encoder) Run(ids [][]int, each func(i int, hidden []float32)) error {
	rows := 0
	for i, row := range ids {
		if len(row) == 0 || len(row) > e.position.rows {
			return fmt.Errorf("text %d has %d tokens; the encoder takes 1 to %d", i, len(row), e.position.rows)
		}
		for _, id := range row {
			if id < 0 || id >= e.word.rows {
				return fmt.Errorf("text %d has token id %d outside the vocabulary of %d", i, id, e.word.rows)
			}
		}
		rows += len(row)
	}
	s := e.scratch.Get().(*scratch)
	defer e.scratch.Put(s)
	e.run(s, ids, rows, each)
	return nil
}

// run is Run with its scratch buffers, for valid ids of rows tokens in all.
func (e *Encoder) run(s *scratch, ids [][]int, rows int, each func(i int, hidden []float32)) {
	h := e.cfg.Hidden
	x := grow(&s.x, rows*h)
	r := 0
	for _, row := range ids {
		for pos, id := range row {
			out := x[r*h : (r+1)*h]
			copy(out, e.word.data[id*h:(id+1)*h])
			addRows(out, h, 1, e.position.data[pos*h:(pos+1)*h])
			r++
		}
	}
	layerNorm(x, h, rows, nil, e.embGamma, e.embBeta, e.eps)
	for i := range e.layers {
		e.layer(&e.layers[i], s, ids, rows)
	}
	r = 0
	for i, row := range ids {
		each(i, x[r*h:(r+len(row))*h])
		r += len(row)
	}
}

// layer runs one encoder layer on the rows×hidden activations in s.x.
func (e *Encoder) layer(l *layer, s *scratch, ids [][]int, rows int) {
	h, heads := e.cfg.Hidden, e.cfg.Heads
	dh := h / heads
	x := s.x[:rows*h]
	qkv := grow(&s.qkv, rows*3*h)
	gemm(qkv, 3*h, x, h, rows, &l.qkv, false)
	addRows(qkv, 3*h, rows, l.queryBias)
	context := grow(&s.context, rows*h)
	r0 := 0
	for _, row := range ids {
		t := len(row)
		scores := grow(&s.scores, t*t)
		inv := grow(&s.invSums, t)
		base := r0 * 3 * h
		for hd := range heads {
			q := qkv[base+hd*dh:]
			pack(&s.keys, qkv[base+h+hd*dh:], 3*h, dh, t, true)
			gemm(scores, t, q, 3*h, t, &s.keys, false)
			expRows(scores, t, t, t, e.scale, inv)
			pack(&s.values, qkv[base+2*h+hd*dh:], 3*h, t, dh, false)
			gemm(context[r0*h+hd*dh:], h, scores, t, t, &s.values, false)
			scaleRows(context[r0*h+hd*dh:], h, t, dh, inv)
		}
		r0 += t
	}
	// x += context·W, then the bias, then LayerNorm: the residual branch.
	gemm(x, h, context, h, rows, &l.attnOut, true)
	layerNorm(x, h, rows, l.attnOutBias, l.attnGamma, l.attnBeta, e.eps)
	inter := grow(&s.inter, rows*e.cfg.Intermediate)
	gemm(inter, e.cfg.Intermediate, x, h, rows, &l.up, false)
	addBiasGELU(inter, e.cfg.Intermediate, rows, l.upBias)
	gemm(x, h, inter, e.cfg.Intermediate, rows, &l.down, true)
	layerNorm(x, h, rows, l.downBias, l.outGamma, l.outBeta, e.eps)
}

// grow returns (*buf)[:n], reallocating when it is too short.
func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}
