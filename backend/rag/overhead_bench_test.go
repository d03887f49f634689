package rag_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/clock"
	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

// vocabulary for synthetic chunks: common words plus a long tail, so BM25
// and the vectors have something to separate.
var benchWords = strings.Fields(`install linux windows macos ollama model index passage citation answer
question evidence search vector keyword score fusion offset document section folder privacy network
download runtime webkit appimage installer server port host token context window budget prompt`)

func synthText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "w%d", r.IntN(20000))
		} else {
			b.WriteString(benchWords[r.IntN(len(benchWords))])
		}
	}
	return b.String()
}

// buildIndex writes n synthetic chunks (100 per document) into a new store.
func buildIndex(b *testing.B, n int) (*store.Store, *embed.Fake) {
	b.Helper()
	ctx := context.Background()
	emb := embed.NewFake(384)
	st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.Options{Dim: 384})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	r := rand.New(rand.NewPCG(1, 2))
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := 0; d*100 < n; d++ {
		path := fmt.Sprintf("/bench/doc%05d.md", d)
		doc := corpus.Document{DocID: corpus.DocID(path), Path: path, Title: fmt.Sprintf("Doc %d", d), Format: "md", Rev: "r", ModTime: created}
		var texts []string
		for c := 0; c < 100 && d*100+c < n; c++ {
			text := synthText(r, 120)
			start := len([]rune(doc.Text))
			doc.Text += text + "\n"
			doc.Chunks = append(doc.Chunks, corpus.Chunk{
				SnippetID: corpus.SnippetID(doc.DocID, "s", text, c), DocID: doc.DocID, SectionID: "s", Ordinal: c,
				Text: text, Offsets: corpus.Offsets{Start: start, End: start + len([]rune(text)), Unit: corpus.UnitChar},
				Tokens: emb.CountTokens(text), Source: corpus.SourceCorpus, CreatedAt: created,
			})
			texts = append(texts, text)
		}
		vecs, err := emb.EmbedPassages(ctx, texts)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.PutDocument(ctx, doc, vecs, emb.Info().Name()); err != nil {
			b.Fatal(err)
		}
	}
	// As the engine does when ingest goes idle.
	if _, err := st.CompactTextIndex(ctx); err != nil {
		b.Fatal(err)
	}
	return st, emb
}

// firstRequest is an LLM that notes when the request reaches it and answers
// at once, so the time measured is Footnote's alone.
type firstRequest struct {
	mu   sync.Mutex
	sent time.Time
}

func (f *firstRequest) Chat(_ context.Context, _ *llm.ChatRequest, fn llm.ChatFunc) error {
	f.mu.Lock()
	f.sent = time.Now()
	f.mu.Unlock()
	var done llm.ChatResponse
	done.Done, done.DoneReason = true, "stop"
	return fn(done)
}

// timedRetriever adds up the time spent in retrieval.
type timedRetriever struct {
	rag.Retriever
	spent time.Duration
}

func (t *timedRetriever) Search(ctx context.Context, q string, o search.Options) (search.Result, error) {
	start := time.Now()
	res, err := t.Retriever.Search(ctx, q, o)
	t.spent += time.Since(start)
	return res, err
}

// BenchmarkOverheadBeforeFirstToken measures question in → request sent to
// the LLM (retrieve, gate, pack, prompt) at 1k and 100k chunks. The figure
// is the ms/to-request metric (ms/retrieval is the search part of it); ns/op
// also includes validating the answer. Building the 100k index takes minutes.
//
//	go test -tags sqlite_fts5 -run '^$' -bench OverheadBeforeFirstToken -benchtime 20x ./backend/rag
func BenchmarkOverheadBeforeFirstToken(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		// Built here, not in the sub-benchmark, which the framework runs
		// more than once (b.N = 1 first): building 100k chunks twice made
		// this benchmark take twice as long.
		st, emb := buildIndex(b, n)
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			model := &firstRequest{}
			retriever := &timedRetriever{Retriever: &search.Searcher{Index: st, Embedder: emb, RRFK: 60, TopK: 20}}
			p := &rag.Pipeline{
				Retriever: retriever,
				LLM:       model, Clock: clock.System{}, Provider: "ollama", Model: "m", EmbedModel: emb.Info().Name(),
				Mode: search.ModeHybrid, TopK: 20, EvidenceK: 6, ContextTokens: 1800, WordMatchGate: 0,
				NumCtx: 8192, AnswerReserve: 512, Seed: 42, CountTokens: emb.CountTokens,
				Window: func(context.Context, string) llm.ContextWindow {
					return llm.ContextWindow{Tokens: 8192, Source: "bench", Trained: 131072}
				},
			}
			questions := []string{"How do I install on linux with the appimage?", "Which port does the ollama server use?",
				"What is the context window budget for a prompt?", "Where is the index folder?"}
			var total time.Duration
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if _, err := p.Ask(context.Background(), rag.Request{ID: fmt.Sprint(i), Question: questions[i%len(questions)]}, nil); err != nil {
					b.Fatal(err)
				}
				model.mu.Lock()
				total += model.sent.Sub(start)
				model.mu.Unlock()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/to-request")
			b.ReportMetric(float64(retriever.spent.Microseconds())/1000/float64(b.N), "ms/retrieval")
		})
	}
}
