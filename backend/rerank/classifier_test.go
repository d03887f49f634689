package rerank

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// loadNLI loads the generated three-label NLI cross-encoder (RoBERTa
// layout) once per test binary.
func loadNLI(t testing.TB) *Hugot {
	t.Helper()
	return nliModel.load(t, embedtest.NLIDir(t), func(dir string) (*Hugot, error) {
		return LoadClassifier(context.Background(), dir, "entailment model")
	})
}

func TestClassifierRunsTheNLIExportLayout(t *testing.T) {
	h := loadNLI(t)
	if got := h.Labels(); !slices.Equal(got, embedtest.NLILabels) {
		t.Fatalf("labels %v, want config.json's id2label order %v", got, embedtest.NLILabels)
	}
	if !h.roberta || h.MaxTokens() != 512 {
		t.Errorf("roberta %v, max tokens %d: want RoBERTa pairs and 512 tokens (514 positions less the padding offset)", h.roberta, h.MaxTokens())
	}
	p := h.encode("the river runs past the mill", "the mill")
	if p.ids[0] != h.clsID || p.ids[len(p.ids)-1] != h.sepID || slices.Max(p.types) != 0 {
		t.Errorf("pair %v %v is not <s> a </s></s> b </s> in one segment", p.ids, p.types)
	}
	if sep := slices.Index(p.ids, h.sepID); p.ids[sep+1] != h.sepID {
		t.Errorf("pair %v lacks RoBERTa's double separator", p.ids)
	}

	ctx := context.Background()
	var pairs [][2]string
	for i := range 11 { // a full batch of 8, then three single pairs
		pairs = append(pairs, [2]string{strings.Repeat("the river runs past the old mill ", i+1), "The mill is old."})
	}
	batched, err := h.Logits(ctx, pairs)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		if len(batched[i]) != 3 {
			t.Fatalf("pair %d: %d logits, want 3", i, len(batched[i]))
		}
		one, err := h.Logits(ctx, [][2]string{p})
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			if d := math.Abs(float64(one[0][j] - batched[i][j])); d > 1e-5 || math.IsNaN(d) {
				t.Errorf("pair %d label %d: batched %.6f, alone %.6f", i, j, batched[i][j], one[0][j])
			}
		}
	}
	if slices.Equal(batched[0], batched[10]) {
		t.Errorf("different pairs got identical logits %v: the model does not read its input", batched[0])
	}
	// Truncation keeps positions inside the table: a pair far past 512
	// tokens runs.
	long := strings.Repeat("water ", 900)
	if _, err := h.Logits(ctx, [][2]string{{long, long}}); err != nil {
		t.Errorf("long pair: %v", err)
	}
	if _, err := h.Rerank(ctx, "q", []string{"p"}); err == nil || !strings.Contains(err.Error(), "3 labels") {
		t.Errorf("reranking with a three-label model: %v", err)
	}
}

// The label order comes from config.json: the favoured label (the largest
// logit bias) is found where id2label puts it, whatever the order.
func TestClassifierLabelOrderFromConfig(t *testing.T) {
	for _, labels := range [][]string{
		{"contradiction", "entailment", "neutral"},
		{"entailment", "neutral", "contradiction"},
		{"ENTAILMENT", "NEUTRAL", "CONTRADICTION"},
	} {
		dir := filepath.Join(t.TempDir(), "nli")
		favoured := labels[1]
		if err := embedtest.WriteNLIModel(dir, embedtest.NLIOptions{Labels: labels, Bias: map[string]float32{favoured: 4}}); err != nil {
			t.Fatal(err)
		}
		h, err := LoadClassifier(context.Background(), dir, "entailment model")
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Logits(context.Background(), [][2]string{{"The mill is old.", "The mill is old."}})
		_ = h.Close()
		if err != nil {
			t.Fatal(err)
		}
		best := 0
		for i, l := range got[0] {
			if l > got[0][best] {
				best = i
			}
		}
		if !slices.Equal(h.Labels(), labels) || h.Labels()[best] != favoured {
			t.Errorf("labels %v, logits %v: the favoured label %q is not the largest", h.Labels(), got[0], favoured)
		}
	}
}

// A one-label cross-encoder loads as a classifier too, and its logit is the
// one Rerank turns into a score.
func TestClassifierOneLabel(t *testing.T) {
	h, err := LoadClassifier(context.Background(), embedtest.CrossEncoderDir(t), "entailment model")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if got := h.Labels(); !slices.Equal(got, []string{"LABEL_0"}) {
		t.Errorf("labels %v", got)
	}
	logits, err := h.Logits(context.Background(), [][2]string{{"install linux", "Install on Linux."}})
	if err != nil {
		t.Fatal(err)
	}
	scores, err := h.Rerank(context.Background(), "install linux", []string{"Install on Linux."})
	if err != nil {
		t.Fatal(err)
	}
	if want := float32(1 / (1 + math.Exp(-float64(logits[0][0])))); len(logits[0]) != 1 || scores[0] != want {
		t.Errorf("logits %v, score %v, want sigmoid %v", logits, scores, want)
	}
}

func TestClassifierRejectsMismatchedLabels(t *testing.T) {
	ctx := context.Background()
	if _, err := Load(ctx, embedtest.NLIDir(t)); err == nil || !strings.Contains(err.Error(), "3 labels (contradiction, entailment, neutral); a reranker has one") {
		t.Errorf("a three-label model as reranker: %v", err)
	}

	// config.json names two labels, the graph outputs three logits.
	two := embedtest.CopyFolder(t, embedtest.NLIDir(t))
	embedtest.SetLabels(t, two, map[string]string{"0": "entailment", "1": "not_entailment"})
	_, err := LoadClassifier(ctx, two, "entailment model")
	if err == nil || !strings.Contains(err.Error(), two) || !strings.Contains(err.Error(), "entailment, not_entailment") {
		t.Errorf("two labels named, three logits: %v", err)
	}

	bad := embedtest.CopyFolder(t, embedtest.NLIDir(t))
	embedtest.SetLabels(t, bad, map[string]string{"0": "entailment", "x": "neutral", "2": "contradiction"})
	if _, err := LoadClassifier(ctx, bad, "entailment model"); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `key "x"`) {
		t.Errorf("a bad id2label key: %v", err)
	}
}

// BenchmarkNLIPairs scores 8 (span, claim) pairs, as an answer of 8 cited
// claims gives, with the NLI model at the public model's size: pairs that
// pad to 64 tokens (a claim and a sentence or two) and to 128, in one call
// (batched) and in a call per pair. cpu-ms/pair is the CPU time per pair.
func BenchmarkNLIPairs(b *testing.B) {
	h, err := LoadClassifier(context.Background(), embedtest.FullNLIDir(b), "entailment model")
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	words := strings.Fields("the water in the river ran past the old mill while a boy and his dog walked along the road to the town " +
		"where people live and work in a house by the sea")
	ctx := context.Background()
	for _, tokens := range []int{60, 120} {
		var pairs [][2]string
		for i := range 8 {
			claim := strings.Join(words[i:i+10], " ")
			span := ""
			for j := 0; len(h.encode(span, claim).ids) < tokens-i; j++ {
				span += words[(i+j)%len(words)] + " "
			}
			pairs = append(pairs, [2]string{span, claim})
		}
		length := 0
		for _, p := range pairs {
			length += len(h.encode(p[0], p[1]).ids)
		}
		for _, c := range []struct {
			name string
			run  func() error
		}{
			{"one-call", func() error { _, err := h.Logits(ctx, pairs); return err }},
			{"call-per-pair", func() error {
				for _, p := range pairs {
					if _, err := h.Logits(ctx, [][2]string{p}); err != nil {
						return err
					}
				}
				return nil
			}},
		} {
			b.Run(fmt.Sprintf("pad-%d/%s", h.bucket(tokens), c.name), func(b *testing.B) {
				if err := c.run(); err != nil { // compile the shapes
					b.Fatal(err)
				}
				cpu0 := cpuTime(b)
				b.ResetTimer()
				for b.Loop() {
					if err := c.run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(b.N*len(pairs)), "cpu-ms/pair")
				b.ReportMetric(float64(length)/float64(len(pairs)), "tokens/pair")
			})
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Batches hold pairs of one padded length, 8 of them or one, unpadded, and
// every pair is in one batch.
func TestBatchesGroupByPaddedLength(t *testing.T) {
	h := loadTiny(t)
	var rows []pair
	for _, n := range []int{10, 100, 20, 30, 110, 40, 50, 60, 5, 120, 70, 33, 44, 12, 9, 8, 61, 62, 63, 1, 2, 3, 4, 6, 7, 11, 13} {
		rows = append(rows, pair{ids: make([]int, n)})
	}
	order, items := h.batches(rows)
	seen := map[int]bool{}
	for _, it := range items {
		lengths := map[int]bool{}
		for _, k := range order[it[0]:it[1]] {
			if seen[k] {
				t.Errorf("pair %d in two batches", k)
			}
			seen[k] = true
			lengths[h.bucket(len(rows[k].ids))] = true
		}
		if n := it[1] - it[0]; len(lengths) != 1 || n != 1 && n != h.batchSize {
			t.Errorf("batch %+v pads to %v, holds %d pairs", it, lengths, n)
		}
	}
	if len(seen) != len(rows) {
		t.Errorf("%d of %d pairs batched", len(seen), len(rows))
	}
}

func TestWorkItems(t *testing.T) {
	h := &Hugot{batchSize: 8}
	for n, want := range map[int][]int{ // batch sizes run
		1: {1}, 3: {1, 1, 1}, 7: {1, 1, 1, 1, 1, 1, 1}, 8: {8}, 11: {8, 1, 1, 1}, 16: {8, 8}, 18: {8, 8, 1, 1},
	} {
		var sizes []int
		covered := 0
		for _, it := range h.workItems(n) {
			if it[0] != covered {
				t.Errorf("n=%d: item %v does not start where the last ended (%d)", n, it, covered)
			}
			covered = it[1]
			sizes = append(sizes, it[1]-it[0])
		}
		if covered != n || !slices.Equal(sizes, want) {
			t.Errorf("n=%d: batch sizes %v covering %d pairs, want %v", n, sizes, covered, want)
		}
	}
}
