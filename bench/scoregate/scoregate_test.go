// Package scoregate measures the score distributions behind the default
// score_gate setting.
package scoregate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/search"
)

// Questions the sample library answers, and questions it cannot answer.
var (
	answerable = []string{
		"How do I install Footnote on Linux?",
		"Which runtime does Footnote need on Windows 10?",
		"How do I start Ollama?",
		"What does a normalised score of 1.0 mean?",
		"When is an answer grounded?",
		"Where is the index stored?",
		"How do I stop an answer while it is written?",
		"Which embedding model does Footnote use?",
		"Does Footnote send my documents anywhere?",
		"What happens to files Footnote cannot read?",
		"How do I install Footnote on macOS?",
		"What does reciprocal rank fusion merge?",
	}
	unanswerable = []string{
		"What is the capital of Australia?",
		"How many moons does Jupiter have?",
		"Who painted the Mona Lisa?",
		"What is a good recipe for banana bread?",
		"When did the Roman Empire fall?",
		"How do penguins stay warm?",
		"What is the boiling point of ethanol?",
		"Which football club won the 1998 league?",
		"How tall is Mount Kilimanjaro?",
		"Explain the rules of cricket.",
		"What is quantum entanglement?",
		"Translate hello into Japanese.",
	}
	// noOverlap shares no word with the library, so keyword search finds
	// nothing and only the vector retriever contributes.
	noOverlap = []string{
		"Wie spät ist es heute?",
		"xyzzy plugh quux",
		"¿Dónde está la biblioteca?",
		"Combien coûte un billet?",
	}
)

// BenchmarkScoreGateMeasurement is a measurement, not a speed benchmark: it
// indexes the sample library and prints the top normalised hybrid score of
// answerable and unanswerable questions, the data behind the default
// score_gate. Run it with the tiny test model, or MODEL_SRC=<model folder>:
//
//	go test -tags sqlite_fts5 -run '^$' -bench ScoreGateMeasurement -benchtime 1x ./bench/scoregate
func BenchmarkScoreGateMeasurement(b *testing.B) {
	ctx := context.Background()
	emb, err := embed.Load(ctx, embedtest.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Config{Home: b.TempDir(), Settings: config.Defaults()}
	en, err := engine.New(cfg, engine.WithEmbedder(emb))
	if err != nil {
		b.Fatal(err)
	}
	defer en.Close()
	lib, err := filepath.Abs(filepath.Join("..", "..", "sample", "library"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(lib); err != nil {
		b.Fatal(err)
	}
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		b.Fatal(err)
	}
	top := func(qs []string) []float64 {
		var out []float64
		for _, q := range qs {
			res, err := en.Search(ctx, q, search.Options{Mode: search.ModeHybrid})
			if err != nil {
				b.Fatal(err)
			}
			s := 0.0
			if len(res.Hits) > 0 {
				s = res.Hits[0].ScoreNorm
			}
			out = append(out, s)
		}
		sort.Float64s(out)
		return out
	}
	for range b.N {
		yes, no, none := top(answerable), top(unanswerable), top(noOverlap)
		fmt.Printf("embed model %s\n", emb.Info().Name())
		fmt.Printf("answerable   top score_norm (sorted): %s\n", fmtScores(yes))
		fmt.Printf("unanswerable top score_norm (sorted): %s\n", fmtScores(no))
		fmt.Printf("no shared word top score_norm (sorted): %s\n", fmtScores(none))
		b.ReportMetric(yes[0], "min-answerable")
		b.ReportMetric(no[len(no)-1], "max-unanswerable")
	}
}

func fmtScores(s []float64) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%.3f", v)
	}
	return out
}
