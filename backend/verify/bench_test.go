package verify_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/rerank"
	"github.com/footnote-app/footnote/backend/verify"
)

// benchAnswer is an answer of 8 claims, each citing one of 8 passages (the
// sample library's Markdown files, whole: 10–14 sentences each, longer than
// a packed chunk, so the figures are on the heavy side).
func benchAnswer(tb testing.TB) (string, []verify.Passage, []string) {
	tb.Helper()
	files := []string{"install.md", "asking-questions.md", "citations.md", "command-line.md",
		"settings.md", "library-and-collections.md", "getting-started.md", "troubleshooting.md"}
	claims := []string{
		"Footnote needs about 200 MB of disk space",
		"At most 6 passages are packed into the prompt within a budget of 1800 tokens",
		"Keyword search uses SQLite FTS5 with BM25 ranking",
		"Every command accepts --json for machine-readable output",
		"Footnote requests a context window of 8192 tokens",
		"Removing a collection never deletes your files",
		"Press Ctrl+K to focus the question box",
		"The index is a single SQLite file named footnote.db",
	}
	var passages []verify.Passage
	var texts []string
	var b strings.Builder
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join("..", "..", "sample", "library", f))
		if err != nil {
			tb.Fatal(err)
		}
		passages = append(passages, verify.Passage{N: i + 1, Text: string(data)})
		texts = append(texts, string(data))
		fmt.Fprintf(&b, "%s [#%d]. ", claims[i], i+1)
	}
	return b.String(), passages, texts
}

// BenchmarkVerifyAnswer verifies one answer of 8 claims against 8 passages:
// segmentation, echo detection, span search and all signals. p50-ms and
// p95-ms are per answer; cpu-ms/claim is the CPU time per claim.
func BenchmarkVerifyAnswer(b *testing.B) {
	answer, passages, texts := benchAnswer(b)
	stats := verify.NewCountStats(texts...)
	type config struct {
		name string
		v    func(b *testing.B) *verify.Verifier
		// random is set for a model with random weights whose verdicts mean
		// nothing: the run checks only that every claim got the model's signal.
		random bool
	}
	configs := []config{
		{name: "lexical", v: func(*testing.B) *verify.Verifier { return &verify.Verifier{Stats: stats} }},
		{name: "tiny-model", v: func(b *testing.B) *verify.Verifier {
			return &verify.Verifier{Stats: stats, Embedder: loadEmbedder(b, embedtest.TinyDir(b))}
		}},
		{name: "tiny-model+entailment", v: func(b *testing.B) *verify.Verifier {
			return &verify.Verifier{Stats: stats, Embedder: loadEmbedder(b, embedtest.TinyDir(b)),
				Entailer: loadEntailer(b, embedtest.CrossEncoderDir(b))}
		}},
		// The generated three-label NLI model, tiny, and at the size of the
		// one `footnote model download --verify` fetches (6 layers, hidden
		// 768: that model's compute per token), on every claim.
		{name: "nli-tiny", random: true, v: func(b *testing.B) *verify.Verifier {
			return &verify.Verifier{Stats: stats, Entailer: loadEntailer(b, embedtest.NLIDir(b))}
		}},
		{name: "nli-full-size", random: true, v: func(b *testing.B) *verify.Verifier {
			return &verify.Verifier{Stats: stats, Entailer: loadEntailer(b, embedtest.FullNLIDir(b))}
		}},
	}
	if os.Getenv(embedtest.ModelSrcEnv) != "" {
		configs = append(configs, config{name: "model-src", v: func(b *testing.B) *verify.Verifier {
			return &verify.Verifier{Stats: stats, Embedder: loadEmbedder(b, embedtest.Dir(b))}
		}}, config{name: "model-src-undecided-only", v: func(b *testing.B) *verify.Verifier {
			return &verify.Verifier{Stats: stats, Embedder: loadEmbedder(b, embedtest.Dir(b)), SemanticOnlyIfUndecided: true}
		}})
	}
	for _, c := range configs {
		b.Run(c.name, func(b *testing.B) {
			v := c.v(b)
			ctx := context.Background()
			run := func() {
				claims := verify.Claims(answer, "What does Footnote need?", texts...)
				res, err := v.VerifyAnswer(ctx, claims, passages)
				if err != nil {
					b.Fatal(err)
				}
				if s := verify.Summarize(res); s.Claims != 8 || s.Supported != 8 && !c.random {
					b.Fatalf("benchmark answer not fully supported: %+v", s)
				}
				if c.random {
					for _, cr := range res {
						for _, r := range cr.Results {
							if r.Signals.Entailment == nil || r.Signals.Contradiction == nil {
								b.Fatalf("claim %q got no entailment model signals: %+v", cr.Claim.Plain, r.Signals)
							}
						}
					}
				}
			}
			run() // warm up: model programs compile on first use
			durs := make([]time.Duration, 0, b.N)
			cpu0 := cpuTime(b)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				run()
				durs = append(durs, time.Since(t0))
			}
			b.StopTimer()
			sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
			b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
			// CPU time is what a busy shared machine does not inflate.
			cpuMS := float64((cpuTime(b) - cpu0).Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(cpuMS, "cpu-ms/op")
			b.ReportMetric(cpuMS/8, "cpu-ms/claim")
		})
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

// loadEntailer loads the cross-encoder in dir as the entailment model.
func loadEntailer(tb testing.TB, dir string) verify.Entailer {
	tb.Helper()
	h, err := rerank.LoadClassifier(context.Background(), dir, "entailment model")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = h.Close() })
	e, err := verify.NewCrossEncoder(h)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}
