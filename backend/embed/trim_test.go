package embed

import (
	"context"
	"strconv"
	"testing"
)

// TestTrimmedModelEmbedsIdentically checks that dropping the copies Load
// releases (the ONNX weights, unused store variables, hugot's tokenizer)
// changes no vector at any input shape the embedder compiles, and that the
// trimmed model still closes cleanly.
func TestTrimmedModelEmbedsIdentically(t *testing.T) {
	ctx := context.Background()
	for name, dir := range models(t) {
		t.Run(name, func(t *testing.T) {
			opts := Options{BatchSize: 4, Workers: 2, Engine: EngineGoBackend} // trimming concerns the Go backend
			full, err := load(ctx, dir, opts, false)
			if err != nil {
				t.Fatal(err)
			}
			defer full.Close()
			trimmed, err := load(ctx, dir, opts, true)
			if err != nil {
				t.Fatal(err)
			}

			if trimmed.pipe.Model.Tokenizer.GoTokenizer != nil {
				t.Error("hugot's tokenizer is still held")
			}
			fullVars, trimmedVars := 0, 0
			for range full.pipe.Model.GoMLXModel.Store.IterVariables() {
				fullVars++
			}
			for v := range trimmed.pipe.Model.GoMLXModel.Store.IterVariables() {
				trimmedVars++
				if val, err := v.Value(); err != nil || !val.IsOnDevice(0) {
					t.Errorf("variable %s is kept but no program reads it", v.Path())
				}
			}
			if trimmedVars >= fullVars {
				t.Errorf("trimmed store holds %d variables, the full one %d: nothing unused was dropped", trimmedVars, fullVars)
			}
			if n := releaseONNXWeights(trimmed.pipe.Model); n != 0 {
				t.Errorf("the trimmed model still held %d bytes of ONNX weights", n)
			}

			// Inputs that round up to every sequence bucket, as queries
			// (batch 1) and as passages (full batches, a padded batch and
			// single remainders), plus one over the limit.
			var texts []string
			for _, b := range trimmed.seqBucket {
				texts = append(texts, textOfTokens(t, trimmed, b-1), textOfTokens(t, trimmed, b))
			}
			texts = append(texts, longText(trimmed.Info().MaxTokens+20))
			for i, text := range texts {
				want, err := full.EmbedQuery(ctx, text)
				if err != nil {
					t.Fatal(err)
				}
				got, err := trimmed.EmbedQuery(ctx, text)
				if err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
				if d := maxAbsDiff(got, want); d > 1e-6 {
					t.Errorf("query %d differs by %g", i, d)
				}
			}
			for _, n := range []int{len(texts), opts.BatchSize - 1, 1} {
				want, err := full.EmbedPassages(ctx, texts[:n])
				if err != nil {
					t.Fatal(err)
				}
				got, err := trimmed.EmbedPassages(ctx, texts[:n])
				if err != nil {
					t.Fatalf("%d passages: %v", n, err)
				}
				for i := range got {
					if d := maxAbsDiff(got[i], want[i]); d > 1e-6 {
						t.Errorf("%d passages: passage %d differs by %g", n, i, d)
					}
				}
			}

			if err := trimmed.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := trimmed.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			if _, err := trimmed.EmbedQuery(ctx, "after close"); err == nil {
				t.Error("EmbedQuery after Close succeeded")
			}
		})
	}
}

// TestReleaseONNXWeights checks that releasing finds the weights in the
// parsed model (so a hugot or onnx-gomlx upgrade that moves them is caught)
// and keeps the small initializers graph building reads as constants.
func TestReleaseONNXWeights(t *testing.T) {
	h, err := load(context.Background(), models(t)["tiny"], Options{Engine: EngineGoBackend}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if n := releaseONNXWeights(h.pipe.Model); n == 0 {
		t.Fatal("released nothing from an untrimmed model")
	}
	if n := releaseONNXWeights(h.pipe.Model); n != 0 {
		t.Errorf("a second release found %d more bytes", n)
	}
	// Longer inputs compile new shapes from the parsed graph.
	if _, err := h.EmbedPassages(context.Background(), []string{longText(h.Info().MaxTokens)}); err != nil {
		t.Fatalf("compiling a new shape after the release: %v", err)
	}
}

// textOfTokens returns a passage of exactly n tokens (special tokens and
// prefix included), or fails the test.
func textOfTokens(t *testing.T, h *Hugot, n int) string {
	t.Helper()
	text := ""
	for i := 0; ; i++ {
		next := text + " " + []string{"a", "the", "w" + strconv.Itoa(i%10)}[i%3]
		if h.CountTokens(next) > n {
			next = text + " a" // one token in any vocabulary, as a word or as [UNK]
		}
		if h.CountTokens(next) > n {
			break
		}
		text = next
	}
	if c := h.CountTokens(text); c != n {
		t.Fatalf("could not build a %d-token text (got %d)", n, c)
	}
	return text
}
