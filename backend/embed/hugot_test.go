package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/knights-analytics/hugot"
)

// models returns the folders the hugot tests run against: a freshly
// generated tiny model, plus $MODEL_SRC when set.
func models(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := embedtest.WriteTinyModel(dir); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"tiny": dir}
	if src := os.Getenv(embedtest.ModelSrcEnv); src != "" {
		out["MODEL_SRC"] = src
	}
	return out
}

func loadModel(t *testing.T, dir string) *Hugot {
	t.Helper()
	h, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s / (norm(a) * norm(b))
}

func maxAbsDiff(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

// longText is about n words of varied prose.
func longText(n int) string {
	base := strings.Fields("the quick brown fox jumps over the lazy dog while the river runs past the old mill and children play in the green field near the school")
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(base[i%len(base)])
	}
	return b.String()
}

func TestHugotEmbeds(t *testing.T) {
	ctx := context.Background()
	for name, dir := range models(t) {
		t.Run(name, func(t *testing.T) {
			h := loadModel(t, dir)
			info := h.Info()
			if info.Dim <= 0 || info.MaxTokens <= 0 || info.Pooling != "mean+l2" {
				t.Fatalf("Info = %+v", info)
			}
			if want := filepath.Base(dir) + "@"; !strings.HasPrefix(info.ID, want) || len(info.ID) != len(want)+8 {
				t.Errorf("ID = %q, want %s + 8 hex digits", info.ID, want)
			}

			texts := []string{
				"How do I install the app on Linux?",
				"Résumé of the café meeting notes",
				"한국어 문서 검색",
				"",
				longText(40),
				"Payment is due within thirty days of the invoice date.",
				"x",
				longText(200),
				"The budget for the project was approved in March.",
				"Security policy: rotate every password each quarter.",
			}
			batch, err := h.EmbedPassages(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(batch) != len(texts) {
				t.Fatalf("got %d vectors for %d texts", len(batch), len(texts))
			}
			for i, v := range batch {
				if len(v) != info.Dim {
					t.Fatalf("vector %d has %d dims, want %d", i, len(v), info.Dim)
				}
				if n := norm(v); math.Abs(n-1) > 1e-5 {
					t.Errorf("vector %d norm = %v, want 1", i, n)
				}
			}
			// Batch and single runs agree, and runs are deterministic.
			for i, text := range texts {
				q, err := h.EmbedQuery(ctx, text)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(q, batch[i]); d > 1e-5 {
					t.Errorf("text %d: single vs batch differ by %g", i, d)
				}
			}
			again, err := h.EmbedPassages(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				if d := maxAbsDiff(again[i], batch[i]); d > 1e-6 {
					t.Errorf("text %d: repeated run differs by %g", i, d)
				}
			}
		})
	}
}

func TestHugotTokensAndTruncation(t *testing.T) {
	ctx := context.Background()
	for name, dir := range models(t) {
		t.Run(name, func(t *testing.T) {
			h := loadModel(t, dir)
			max := h.Info().MaxTokens
			if got := h.CountTokens(""); got != 2 {
				t.Errorf("CountTokens(\"\") = %d, want 2 ([CLS] [SEP])", got)
			}
			if got := h.CountTokens("the the the"); got != 5 {
				t.Errorf("CountTokens(\"the the the\") = %d, want 5", got)
			}
			short := "the cat sat on the mat"
			if got, cut := h.Truncate(short); cut || got != short {
				t.Errorf("Truncate(short) = %q, %v; want unchanged", got, cut)
			}

			long := longText(3 * max)
			if h.CountTokens(long) <= max {
				t.Fatalf("test text too short: %d tokens", h.CountTokens(long))
			}
			prefix, cut := h.Truncate(long)
			if !cut || !strings.HasPrefix(long, prefix) || len(prefix) >= len(long) {
				t.Fatalf("Truncate(long) cut=%v, prefix len %d of %d", cut, len(prefix), len(long))
			}
			if n := h.CountTokens(prefix); n != max {
				t.Errorf("truncated text has %d tokens, want %d", n, max)
			}
			// The embedding of an over-long text is the embedding of its prefix.
			vl, err := h.EmbedQuery(ctx, long)
			if err != nil {
				t.Fatal(err)
			}
			vp, err := h.EmbedQuery(ctx, prefix)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(vl, vp); d > 1e-5 {
				t.Errorf("long text and its truncated prefix differ by %g", d)
			}
		})
	}
}

func TestHugotSimilarity(t *testing.T) {
	ctx := context.Background()
	h := loadModel(t, models(t)["tiny"])
	cases := []struct{ text, near, far string }{
		{
			"How do I install the app on Linux?",
			"Install the app on Linux with the package manager.",
			"The budget meeting moved to Friday afternoon.",
		},
		{
			"Payment is due within thirty days of the invoice date.",
			"The invoice payment is due in thirty days.",
			"Children play music in the school garden.",
		},
		{
			"rotate every password each quarter for security",
			"Security policy: change your password every quarter.",
			"The river runs past the old mill.",
		},
	}
	for _, c := range cases {
		v, err := h.EmbedPassages(ctx, []string{c.text, c.near, c.far})
		if err != nil {
			t.Fatal(err)
		}
		near, far := cosine(v[0], v[1]), cosine(v[0], v[2])
		t.Logf("near %.3f far %.3f: %q", near, far, c.text)
		if near <= far+0.1 {
			t.Errorf("%q: sim(near)=%.3f not clearly above sim(far)=%.3f", c.text, near, far)
		}
	}
}

func TestHugotConcurrent(t *testing.T) {
	ctx := context.Background()
	h := loadModel(t, models(t)["tiny"])
	texts := make([]string, 12)
	for i := range texts {
		texts[i] = fmt.Sprintf("document %d about %s", i, longText(5+i*3))
	}
	want, err := h.EmbedPassages(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got [][]float32
			var err error
			if g%2 == 0 {
				got, err = h.EmbedPassages(ctx, texts)
			} else {
				got = make([][]float32, len(texts))
				for i, text := range texts {
					if got[i], err = h.EmbedQuery(ctx, text); err != nil {
						break
					}
				}
			}
			if err != nil {
				errs <- err
				return
			}
			for i := range texts {
				if d := maxAbsDiff(got[i], want[i]); d > 1e-5 {
					errs <- fmt.Errorf("goroutine %d text %d differs by %g", g, i, d)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHugotCancelAndClose(t *testing.T) {
	h, err := Load(context.Background(), models(t)["tiny"])
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.EmbedPassages(ctx, []string{"a", "b"}); err == nil {
		t.Error("EmbedPassages with a cancelled context succeeded")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := h.EmbedQuery(context.Background(), "a"); err == nil {
		t.Error("EmbedQuery after Close succeeded")
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	good := models(t)["tiny"]

	missingTok := t.TempDir()
	copyFile(t, filepath.Join(good, ModelFile), filepath.Join(missingTok, ModelFile))

	missingModel := t.TempDir()
	copyFile(t, filepath.Join(good, TokenizerFile), filepath.Join(missingModel, TokenizerFile))

	linked := t.TempDir()
	copyFile(t, filepath.Join(good, TokenizerFile), filepath.Join(linked, TokenizerFile))
	if err := os.Symlink(filepath.Join(good, ModelFile), filepath.Join(linked, ModelFile)); err != nil {
		t.Fatal(err)
	}

	badModel := t.TempDir()
	copyFile(t, filepath.Join(good, TokenizerFile), filepath.Join(badModel, TokenizerFile))
	if err := os.WriteFile(filepath.Join(badModel, ModelFile), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}

	badTok := t.TempDir()
	copyFile(t, filepath.Join(good, ModelFile), filepath.Join(badTok, ModelFile))
	if err := os.WriteFile(filepath.Join(badTok, TokenizerFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, dir string
		want      []string
	}{
		{"no folder", filepath.Join(t.TempDir(), "nope"), []string{"does not exist", config.EnvEmbedModel, "footnote model download"}},
		{"no tokenizer", missingTok, []string{missingTok, "no " + TokenizerFile, config.EnvEmbedModel}},
		{"no model", missingModel, []string{missingModel, "no " + ModelFile, config.EnvEmbedModel}},
		{"symlink", linked, []string{"symbolic link", ModelFile}},
		{"bad model", badModel, []string{badModel, "could not be loaded"}},
		{"bad tokenizer", badTok, []string{badTok, "unreadable " + TokenizerFile}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Load(ctx, c.dir)
			if err == nil {
				h.Close()
				t.Fatal("Load succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkEmbedPassages reports ms per ~250-token passage, on $MODEL_SRC
// when set, else on the tiny model.
func BenchmarkEmbedPassages(b *testing.B) {
	h, err := Load(context.Background(), embedtest.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	passages := make([]string, h.Options().BatchSize)
	for i := range passages {
		passages[i] = fmt.Sprintf("passage %d: %s", i, longText(230))
	}
	tokens := h.CountTokens(passages[0])
	ctx := context.Background()
	if _, err := h.EmbedPassages(ctx, passages); err != nil { // compile the shape outside the timer
		b.Fatal(err)
	}
	runs := 0
	for b.Loop() {
		if _, err := h.EmbedPassages(ctx, passages); err != nil {
			b.Fatal(err)
		}
		runs++
	}
	perPassage := float64(b.Elapsed().Microseconds()) / 1000 / float64(runs*len(passages))
	b.ReportMetric(perPassage, "ms/passage")
	b.ReportMetric(float64(min(tokens, h.Info().MaxTokens)), "tokens/passage")
}

// TestHugotMatchesPipeline checks the padded, bucketed path, with weights
// shared as graph parameters, against hugot's own unpadded
// feature-extraction pipeline in a separate session, which keeps the
// weights as graph constants.
func TestHugotMatchesPipeline(t *testing.T) {
	ctx := context.Background()
	for name, dir := range models(t) {
		t.Run(name, func(t *testing.T) {
			h := loadModel(t, dir)
			texts := []string{"a short query", "Résumé of the café meeting notes", longText(50)}
			ours, err := h.EmbedPassages(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			session, err := hugot.NewGoSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer session.Destroy()
			pipe, err := hugot.NewPipeline(session, hugot.FeatureExtractionConfig{ModelPath: dir, OnnxFilename: ModelFile, Name: "reference"})
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				res, err := pipe.RunPipeline(ctx, []string{text})
				if err != nil {
					t.Fatal(err)
				}
				ref := res.Embeddings[0]
				n := norm(ref)
				for k := range ref {
					ref[k] = float32(float64(ref[k]) / n)
				}
				if d := maxAbsDiff(ours[i], ref); d > 1e-5 {
					t.Errorf("text %d differs from hugot's pipeline by %g", i, d)
				}
			}
		})
	}
}

// TestHugotWorkersAgree checks that parallel workers, batches and the
// single-text remainder give the same vectors, in order, as one worker.
func TestHugotWorkersAgree(t *testing.T) {
	ctx := context.Background()
	dir := models(t)["tiny"]
	texts := make([]string, 11)
	for i := range texts {
		texts[i] = fmt.Sprintf("note %d: %s", i, longText(3+i*7))
	}
	var want [][]float32
	for _, opts := range []Options{{Workers: 1, BatchSize: 4}, {Workers: 3, BatchSize: 4}, {Workers: 2, BatchSize: 8}} {
		h, err := LoadWith(ctx, dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.EmbedPassages(ctx, texts)
		h.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			continue
		}
		for i := range texts {
			if d := maxAbsDiff(got[i], want[i]); d > 1e-5 {
				t.Errorf("%+v: text %d differs by %g", opts, i, d)
			}
		}
	}
}

// TestHugotCancelMidEmbedding cancels while model calls are in flight, at
// many different moments. Each call must end with the full result or the
// context's error, and (under -race) the inputs of a running call must
// never be released before the call returns.
func TestHugotCancelMidEmbedding(t *testing.T) {
	h, err := LoadWith(context.Background(), models(t)["tiny"], Options{BatchSize: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	texts := make([]string, 16)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage %d: %s", i, longText(20+i))
	}
	want, err := h.EmbedPassages(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	cancelled := 0
	for i := range 24 {
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		go func() {
			<-started
			// Cancel at a different point of the run each time.
			for range i * 50 {
				runtime.Gosched()
			}
			cancel()
		}()
		close(started)
		got, err := h.EmbedPassages(ctx, texts)
		cancel()
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: %v, want the context's error", i, err)
			}
			cancelled++
			continue
		}
		for k := range texts {
			if d := maxAbsDiff(got[k], want[k]); d > 1e-5 {
				t.Fatalf("run %d: text %d differs by %g after a late cancel", i, k, d)
			}
		}
	}
	if cancelled == 0 {
		t.Error("no run was cancelled; the test did not exercise cancellation")
	}
	// The model still works after all those cancellations.
	if _, err := h.EmbedQuery(context.Background(), "still alive"); err != nil {
		t.Fatal(err)
	}
}

// TestLongTextsRunAlone: texts past soloTokens run one at a time, each in
// its own length bucket, and get the vectors a padded batch gives them, in
// order.
func TestLongTextsRunAlone(t *testing.T) {
	// Solo runs and buckets are how the Go backend pads; the encoder pads nothing.
	h, err := LoadWith(context.Background(), models(t)["tiny"], Options{BatchSize: 8, Workers: 1, Engine: EngineGoBackend})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	var texts []string
	for i := range 8 {
		texts = append(texts, fmt.Sprintf("text %d %s", i, longText(40+8*i)))
	}
	batched, err := h.EmbedPassages(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	saved := soloTokens
	soloTokens = 32
	t.Cleanup(func() { soloTokens = saved })
	alone, err := h.EmbedPassages(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if c := cosine(batched[i], alone[i]); c < 0.99999 {
			t.Errorf("text %d: cosine %.6f between its batched and solo vectors", i, c)
		}
		if i > 0 && cosine(alone[i], alone[i-1]) > 0.999999 {
			t.Errorf("texts %d and %d got the same vector", i-1, i)
		}
	}
}
