//go:build goexperiment.simd && amd64

package encoder

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// tinyModel returns the generated one-layer test model, parsed, and its
// config.json.
func tinyModel(t *testing.T) (*protos.ModelProto, []byte) {
	t.Helper()
	return parsedModel(t, embedtest.TinyDir(t))
}

// parsedModel returns dir's model.onnx, parsed, and its config.json.
func parsedModel(t *testing.T, dir string) (*protos.ModelProto, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	var m protos.ModelProto
	if err := proto.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return &m, cfg
}

// referenceForward is the BERT encoder written out plainly in float64,
// from the same weights: what Run must compute.
func referenceForward(w *weights, ids []int) [][]float64 {
	h, heads := w.cfg.Hidden, w.cfg.Heads
	dh := h / heads
	eps := float64(w.eps)
	layerNorm := func(x []float64, gamma, beta []float32) {
		var mean, variance float64
		for _, v := range x {
			mean += v
		}
		mean /= float64(len(x))
		for _, v := range x {
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(len(x))
		for i := range x {
			x[i] = (x[i]-mean)/math.Sqrt(variance+eps)*float64(gamma[i]) + float64(beta[i])
		}
	}
	dense := func(x []float64, m matrix, bias []float32) []float64 {
		out := make([]float64, m.cols)
		for j := range m.cols {
			s := float64(bias[j])
			for i := range m.rows {
				s += x[i] * float64(m.data[i*m.cols+j])
			}
			out[j] = s
		}
		return out
	}
	x := make([][]float64, len(ids))
	for p, id := range ids {
		x[p] = make([]float64, h)
		for i := range h {
			x[p][i] = float64(w.word.data[id*h+i]) + float64(w.position.data[p*h+i]) + float64(w.tokenType.data[i])
		}
		layerNorm(x[p], w.embNormGamma, w.embNormBeta)
	}
	for _, l := range w.layers {
		q, k, v := make([][]float64, len(ids)), make([][]float64, len(ids)), make([][]float64, len(ids))
		for p := range ids {
			q[p], k[p], v[p] = dense(x[p], l.query, l.queryBias), dense(x[p], l.key, l.keyBias), dense(x[p], l.value, l.valueBias)
		}
		for p := range ids {
			ctx := make([]float64, h)
			for hd := range heads {
				scores := make([]float64, len(ids))
				maxScore := math.Inf(-1)
				for j := range ids {
					for d := range dh {
						scores[j] += q[p][hd*dh+d] * k[j][hd*dh+d]
					}
					scores[j] /= math.Sqrt(float64(dh))
					maxScore = math.Max(maxScore, scores[j])
				}
				var sum float64
				for j := range scores {
					scores[j] = math.Exp(scores[j] - maxScore)
					sum += scores[j]
				}
				for j := range ids {
					for d := range dh {
						ctx[hd*dh+d] += scores[j] / sum * v[j][hd*dh+d]
					}
				}
			}
			a := dense(ctx, l.attnOut, l.attnOutBias)
			for i := range a {
				a[i] += x[p][i]
			}
			layerNorm(a, l.attnNormGamma, l.attnNormBeta)
			f := dense(a, l.up, l.upBias)
			for i, v := range f {
				f[i] = v * 0.5 * (1 + math.Erf(v/math.Sqrt2))
			}
			y := dense(f, l.down, l.downBias)
			for i := range y {
				y[i] += a[i]
			}
			layerNorm(y, l.outNormGamma, l.outNormBeta)
			x[p] = y
		}
	}
	return x
}

// randomWeights is a two-layer encoder with widths off every tile size
// (hidden 40 in 4 heads of 10, intermediate 72) and weights large enough
// that attention is far from uniform, unlike the generated test model's.
func randomWeights(rng *rand.Rand) *weights {
	cfg := Config{ModelType: "bert", Hidden: 40, Heads: 4, Intermediate: 72, Layers: 2, Activation: "gelu"}
	mat := func(rows, cols int, scale float64) matrix {
		m := matrix{rows: rows, cols: cols, data: make([]float32, rows*cols)}
		for i := range m.data {
			m.data[i] = float32(rng.NormFloat64() * scale)
		}
		return m
	}
	vec := func(n int, mean, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(mean + rng.NormFloat64()*scale)
		}
		return v
	}
	h, in := cfg.Hidden, cfg.Intermediate
	w := &weights{
		cfg: cfg, eps: 1e-12,
		word: mat(50, h, 1), position: mat(64, h, 0.5), tokenType: mat(2, h, 0.1),
		embNormGamma: vec(h, 1, 0.2), embNormBeta: vec(h, 0, 0.2),
	}
	for range cfg.Layers {
		w.layers = append(w.layers, layerWeights{
			query: mat(h, h, 0.5), key: mat(h, h, 0.5), value: mat(h, h, 0.3), attnOut: mat(h, h, 0.3),
			up: mat(h, in, 0.3), down: mat(in, h, 0.2),
			queryBias: vec(h, 0, 0.3), keyBias: vec(h, 0, 0.3), valueBias: vec(h, 0, 0.3), attnOutBias: vec(h, 0, 0.3),
			upBias: vec(in, 0, 0.3), downBias: vec(h, 0, 0.3),
			attnNormGamma: vec(h, 1, 0.2), attnNormBeta: vec(h, 0, 0.2), outNormGamma: vec(h, 1, 0.2), outNormBeta: vec(h, 0, 0.2),
		})
	}
	return w
}

func TestRunMatchesPlainFloat64Encoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	w := randomWeights(rng)
	enc := fromWeights(w)
	// Lengths around every tile edge (4, 6, 16, 24) and the position limit;
	// all texts in one call, as a batch runs.
	var ids [][]int
	for _, n := range []int{1, 2, 5, 7, 17, 25, 49, enc.MaxTokens()} {
		row := make([]int, n)
		for i := range row {
			row[i] = rng.IntN(enc.word.rows)
		}
		ids = append(ids, row)
	}
	seen := 0
	var worst float64
	err := enc.Run(ids, func(i int, hidden []float32) {
		seen++
		want := referenceForward(w, ids[i])
		if len(hidden) != len(ids[i])*enc.Hidden() {
			t.Fatalf("text %d: %d floats for %d tokens", i, len(hidden), len(ids[i]))
		}
		for p := range want {
			for c, v := range want[p] {
				worst = max(worst, math.Abs(float64(hidden[p*enc.Hidden()+c])-v))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(ids) {
		t.Fatalf("called back for %d of %d texts", seen, len(ids))
	}
	// LayerNorm outputs are of order 1; float32 sums in another order
	// differ from float64 by about 1e-6.
	if worst > 1e-4 {
		t.Errorf("hidden states differ from the float64 encoder by up to %g", worst)
	}
}

// TestRunIgnoresWhatItsBuffersHeld: buffers are reused from call to call;
// poisoned leftovers in them, NaN everywhere, must not reach any text's
// vectors (a kernel tile or a padded panel that read past what the call
// wrote would carry a NaN in).
func TestRunIgnoresWhatItsBuffersHeld(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	w := randomWeights(rng)
	enc := fromWeights(w)
	var ids [][]int
	rows := 0
	for _, n := range []int{13, 1, 30} {
		row := make([]int, n)
		for i := range row {
			row[i] = rng.IntN(enc.word.rows)
		}
		ids = append(ids, row)
		rows += n
	}
	collect := func(s *scratch) [][]float32 {
		var out [][]float32
		enc.run(s, ids, rows, func(_ int, hidden []float32) { out = append(out, append([]float32(nil), hidden...)) })
		return out
	}
	want := collect(new(scratch))
	nan := float32(math.NaN())
	poisoned := func(n int) []float32 {
		b := make([]float32, n)
		for i := range b {
			b[i] = nan
		}
		return b
	}
	s := &scratch{
		x: poisoned(8192), qkv: poisoned(1 << 16), context: poisoned(1 << 15), inter: poisoned(1 << 16),
		scores: poisoned(1 << 12), invSums: poisoned(64),
	}
	s.keys.data, s.values.data = poisoned(1<<12), poisoned(1<<12)
	qkv, scores := &s.qkv[0], &s.scores[0]
	got := collect(s)
	if &s.qkv[0] != qkv || &s.scores[0] != scores {
		t.Fatal("the poisoned buffers were replaced, not reused; make them bigger")
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("text %d, float %d: %v after poisoned buffers, %v after fresh ones", i, j, got[i][j], want[i][j])
			}
		}
	}
}

// TestGeneratedModelIsReadAsWritten: the weights New finds in the
// generated ONNX model are the ones the float64 encoder reads, and the
// encoder agrees with it there too.
func TestGeneratedModelIsReadAsWritten(t *testing.T) {
	model, cfg := tinyModel(t)
	w, err := readWeights(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if w.eps != 1 || len(w.layers) != 1 || w.layers[0].up.cols != w.cfg.Intermediate {
		t.Fatalf("read eps %v, %d layers, intermediate %d; the generator writes 1, 1 and %d", w.eps, len(w.layers), w.layers[0].up.cols, w.cfg.Intermediate)
	}
	checkAgainstReference(t, model, cfg)
}

// TestSuiteModelMatchesReference: the model the suite runs with (the
// generated one, or MODEL_SRC's) is read and run as the float64 encoder
// reads and runs it.
func TestSuiteModelMatchesReference(t *testing.T) {
	model, cfg := parsedModel(t, embedtest.Dir(t))
	checkAgainstReference(t, model, cfg)
}

func checkAgainstReference(t *testing.T, model *protos.ModelProto, cfg []byte) {
	t.Helper()
	enc, err := New(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := readWeights(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids := [][]int{{2, 7, 9, 11, 3}, {1, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 6}}
	err = enc.Run(ids, func(i int, hidden []float32) {
		want := referenceForward(w, ids[i])
		for p := range want {
			for c, v := range want[p] {
				if d := math.Abs(float64(hidden[p*enc.Hidden()+c]) - v); d > 1e-4 {
					t.Fatalf("text %d token %d dim %d differs by %g", i, p, c, d)
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	model, cfg := tinyModel(t)
	enc, err := New(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ids  [][]int
		want string
	}{
		{[][]int{{}}, "has 0 tokens"},
		{[][]int{make([]int, enc.MaxTokens()+1)}, "tokens; the encoder takes 1 to"},
		{[][]int{{1, -1}}, "outside the vocabulary"},
		{[][]int{{1, enc.word.rows}}, "outside the vocabulary"},
	} {
		err := enc.Run(c.ids, func(int, []float32) { t.Error("called back for bad input") })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run(%v…) = %v, want an error saying %q", len(c.ids[0]), err, c.want)
		}
	}
}

// TestNewSaysWhyItCannot: models the encoder does not run are refused with
// ErrUnsupported and the reason.
func TestNewSaysWhyItCannot(t *testing.T) {
	model, cfg := tinyModel(t)
	edit := func(from, to string) []byte {
		if !strings.Contains(string(cfg), from) {
			t.Fatalf("config.json has no %q", from)
		}
		return []byte(strings.Replace(string(cfg), from, to, 1))
	}
	renamed := proto.Clone(model).(*protos.ModelProto)
	for _, init := range renamed.GetGraph().GetInitializer() {
		init.Name = strings.Replace(init.GetName(), "attention.self.key.bias", "attention.self.k_bias", 1)
	}
	for _, c := range []struct {
		name   string
		model  *protos.ModelProto
		config []byte
		want   string
	}{
		{"roberta", model, edit(`"model_type": "bert"`, `"model_type": "roberta"`), `model_type "roberta"`},
		{"tanh gelu", model, edit(`"hidden_act": "gelu"`, `"hidden_act": "gelu_new"`), `hidden_act "gelu_new"`},
		{"relative positions", model, edit(`"position_embedding_type": "absolute"`, `"position_embedding_type": "relative_key"`), "position_embedding_type"},
		{"heads do not divide", model, edit(`"num_attention_heads": 4`, `"num_attention_heads": 5`), "heads 5"},
		{"more layers than the graph", model, edit(`"num_hidden_layers": 1`, `"num_hidden_layers": 2`), "layer.1"},
		{"a bias renamed", renamed, cfg, "found 5 of the 6 dense layers"},
		{"not json", model, []byte("{"), "config.json"},
		{"empty model", &protos.ModelProto{}, cfg, "no graph"},
	} {
		_, err := New(c.model, c.config)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New = %v, want ErrUnsupported saying %q", c.name, err, c.want)
		}
	}
}
