package rag_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/clock"
	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/verify"
)

type fixedHits []search.Hit

func (f fixedHits) Search(context.Context, string, search.Options) (search.Result, error) {
	return search.Result{Hits: f}, nil
}

// oneShot answers with the same text at once, so the time measured is Footnote's.
type oneShot string

func (o oneShot) Chat(_ context.Context, _ *llm.ChatRequest, fn llm.ChatFunc) error {
	if err := fn(llm.ChatResponse{Message: llm.Message{Role: "assistant", Content: string(o)}}); err != nil {
		return err
	}
	var done llm.ChatResponse
	done.Done, done.DoneReason = true, "stop"
	return fn(done)
}

// verifyBenchAnswer is an answer of 8 claims, each citing one of 8 packed
// passages (whole sample-library files, longer than a packed chunk).
func verifyBenchAnswer(b *testing.B) (string, []search.Hit, []string) {
	b.Helper()
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
	var hits []search.Hit
	var texts []string
	var answer strings.Builder
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join("..", "..", "sample", "library", f))
		if err != nil {
			b.Fatal(err)
		}
		var h search.Hit
		h.Chunk = corpus.Chunk{SnippetID: f, DocID: "doc_" + f, SectionID: f, Text: string(data), Tokens: 10,
			Offsets: corpus.Offsets{Start: 0, End: len([]rune(string(data))), Unit: corpus.UnitChar}, Source: corpus.SourceCorpus}
		h.Title, h.Path, h.Rev, h.EmbedModel = f, "/lib/"+f, "r", "e"
		h.ScoreNorm, h.RRF, h.KFinal = 1-float64(i)/100, 0.03, i+1
		h.Explain = []search.Contribution{{Retriever: search.Lexical, ScoreRaw: -1, KPos: i + 1, RRF: 0.03}}
		hits = append(hits, h)
		texts = append(texts, string(data))
		fmt.Fprintf(&answer, "%s [#%d]. ", claims[i], i+1)
	}
	return answer.String(), hits, texts
}

// BenchmarkAskVerification is one whole Ask (retrieval faked, the model
// answering at once with 8 cited claims) with verification off and on; the
// difference in ns/op is what verification adds to an answer, and
// verify-p50-ms is the verification step alone as the answer records it.
//
//	go test -tags sqlite_fts5 -run '^$' -bench AskVerification ./backend/rag
func BenchmarkAskVerification(b *testing.B) {
	answer, hits, texts := verifyBenchAnswer(b)
	stats := verify.NewCountStats(texts...)
	tiny := func(b *testing.B) embed.Embedder {
		emb, err := embed.Load(context.Background(), embedtest.TinyDir(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { emb.Close() })
		return emb
	}
	for _, c := range []struct {
		name string
		mode string
		v    func(b *testing.B) *verify.Verifier
	}{
		{"off", rag.VerifyOff, func(*testing.B) *verify.Verifier { return nil }},
		{"strict-lexical", rag.VerifyStrict, func(*testing.B) *verify.Verifier { return &verify.Verifier{Stats: stats} }},
		{"strict-tiny-model", rag.VerifyStrict, func(b *testing.B) *verify.Verifier {
			return &verify.Verifier{Stats: stats, Embedder: tiny(b), SemanticOnlyIfUndecided: true}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := &rag.Pipeline{Retriever: fixedHits(hits), LLM: oneShot(answer), Clock: clock.System{}, Model: "m", EmbedModel: "e",
				Mode: search.ModeHybrid, TopK: 20, EvidenceK: 8, ContextTokens: 1800, WordMatchGate: 0,
				IndexHash: "idx", Analyzer: "an", Verification: c.mode, Verifier: c.v(b)}
			ask := func(i int) rag.Answer {
				ans, err := p.Ask(context.Background(), rag.Request{ID: fmt.Sprint(i), Question: "What does Footnote need?"}, nil)
				if err != nil {
					b.Fatal(err)
				}
				if c.mode != rag.VerifyOff && (ans.Verification == nil || ans.Verification.Supported != 8 || !ans.Grounded) {
					b.Fatalf("benchmark answer not verified: %+v %v %+v", ans.Verification, *ans.RefusalReason, ans.Validation)
				}
				return ans
			}
			ask(-1) // warm up: model programs compile on first use
			var ms []float64
			b.ResetTimer()
			for i := range b.N {
				if ans := ask(i); ans.Verification != nil {
					ms = append(ms, ans.Verification.ElapsedMS)
				}
			}
			b.StopTimer()
			if len(ms) > 0 {
				sort.Float64s(ms)
				b.ReportMetric(ms[len(ms)/2], "verify-p50-ms")
			}
		})
	}
}
