package embed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/embed/encoder"
	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// TestEncoderMatchesGoBackend: where the CPU runs the built-in encoder, a
// BERT model loads onto it, and its vectors for queries, single passages
// and batches of mixed lengths are the Go backend's.
func TestEncoderMatchesGoBackend(t *testing.T) {
	ctx := context.Background()
	for name, dir := range models(t) {
		t.Run(name, func(t *testing.T) {
			h, err := LoadWith(ctx, dir, Options{BatchSize: 4, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			ref, err := LoadWith(ctx, dir, Options{BatchSize: 4, Workers: 2, Engine: EngineGoBackend})
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Close()
			engine, why := h.Engine()
			if encoder.Supported() && engine != EngineEncoder {
				t.Fatalf("engine %s (%s), want the encoder", engine, why)
			}
			if !encoder.Supported() && (engine != EngineGoBackend || why == "") {
				t.Fatalf("engine %s (%q) on a CPU without the encoder", engine, why)
			}
			if e, _ := ref.Engine(); e != EngineGoBackend {
				t.Fatalf("Options asked for the Go backend, got %s", e)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			var texts []string
			for i := range 11 {
				texts = append(texts, fmt.Sprintf("passage %d: %s", i, longText(1+rng.IntN(60))))
			}
			texts = append(texts, longText(h.Info().MaxTokens+30)) // truncated
			got, err := h.EmbedPassages(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.EmbedPassages(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				if c, d := Cosine(got[i], want[i]), maxAbsDiff(got[i], want[i]); c < encoderAgreement || d > 1e-5 {
					t.Errorf("passage %d: cosine %.7f, max difference %g", i, c, d)
				}
			}
			for _, q := range []string{"x", "error code E-4012", longText(40)} {
				g, err := h.EmbedQuery(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				w, err := ref.EmbedQuery(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(g, w); d > 1e-5 {
					t.Errorf("query %q differs by %g", q, d)
				}
			}
		})
	}
}

// TestEncoderRefusedWhenItComputesSomethingElse: a graph that does more
// than the BERT encoder the weights describe (here, an offset added to its
// output) still loads, on the Go backend, and Engine says why.
func TestEncoderRefusedWhenItComputesSomethingElse(t *testing.T) {
	src := embedtest.TinyDir(t)
	dir := t.TempDir()
	for _, f := range []string{ModelFile, TokenizerFile, "config.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == ModelFile {
			data = offsetOutput(t, data)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	engine, why := h.Engine()
	reason := "differs from the Go backend"
	if !encoder.Supported() {
		reason = "AVX2" // the encoder is never built on this CPU
	}
	if engine != EngineGoBackend || !strings.Contains(why, reason) {
		t.Fatalf("Engine() = %s, %q; want the Go backend because %s", engine, why, reason)
	}
	if _, err := h.EmbedQuery(context.Background(), "still answers"); err != nil {
		t.Fatal(err)
	}
}

// offsetOutput rewrites an ONNX model so that its output is the old output
// plus a fixed vector per hidden unit.
func offsetOutput(t *testing.T, data []byte) []byte {
	t.Helper()
	var m protos.ModelProto
	if err := proto.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	g := m.GetGraph()
	out := g.GetOutput()[0].GetName()
	var width int64
	for _, init := range g.GetInitializer() {
		if strings.HasSuffix(init.GetName(), "embeddings.LayerNorm.bias") {
			width = init.GetDims()[0]
		}
	}
	offset := &protos.TensorProto{Name: "test_offset", Dims: []int64{width}, DataType: int32(protos.TensorProto_FLOAT)}
	for i := range width {
		offset.FloatData = append(offset.FloatData, float32(i%7)-3)
	}
	g.Initializer = append(g.Initializer, offset)
	for _, n := range g.GetNode() {
		for i, o := range n.GetOutput() {
			if o == out {
				n.Output[i] = "before_offset"
			}
		}
	}
	g.Node = append(g.Node, &protos.NodeProto{OpType: "Add", Input: []string{"before_offset", "test_offset"}, Output: []string{out}})
	data, err := proto.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestEncoderEngineClosed: after Close the encoder is gone too.
func TestEncoderEngineClosed(t *testing.T) {
	h, err := Load(context.Background(), models(t)["tiny"])
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.EmbedQuery(context.Background(), "after close"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("EmbedQuery after Close = %v, want an error saying the model is closed", err)
	}
}
