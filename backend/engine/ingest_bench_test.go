package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// BenchmarkIngestLibrary indexes a generated library of 2,000 mixed files
// (Markdown with sections, plain text, and files that are skipped) and then
// rescans it unchanged. Run with MODEL_SRC=<model folder> for a real-sized
// model, e.g.:
//
//	MODEL_SRC=models/minilm-l6-random go test -tags sqlite_fts5 -run '^$' -bench IngestLibrary -benchtime 1x ./backend/engine/
func BenchmarkIngestLibrary(b *testing.B) {
	const files = 2000
	lib := b.TempDir()
	generateLibrary(b, lib, files)
	emb, err := embed.Load(context.Background(), embedtest.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer emb.Close()
	for b.Loop() {
		cfg := config.Config{Home: b.TempDir(), Settings: config.Defaults()}
		en, err := New(cfg, WithEmbedder(closeless{emb}))
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if err := en.Ready(ctx); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		sum, err := en.AddToCollection(ctx, "bench", []string{lib}, nil)
		if err != nil {
			b.Fatal(err)
		}
		secs := time.Since(start).Seconds()
		files := sum.FilesIndexed + sum.FilesUnchanged + sum.FilesFailed
		c, _ := en.index().CountIndex(ctx)
		rescanStart := time.Now()
		again, err := en.Rescan(ctx, "bench", nil)
		if err != nil {
			b.Fatal(err)
		}
		rescan := time.Since(rescanStart).Seconds()
		if again.ChunksEmbedded != 0 {
			b.Fatalf("unchanged rescan embedded %d chunks", again.ChunksEmbedded)
		}
		b.ReportMetric(float64(files)/secs, "files/s")
		b.ReportMetric(float64(c.Chunks)/secs, "chunks/s")
		b.ReportMetric(float64(again.FilesUnchanged)/rescan, "rescan-files/s")
		fmt.Printf("ingest: model %s, %d files seen, %d indexed, %d skipped, %d failed, %d chunks in %.1fs: %.1f files/s, %.1f chunks/s; unchanged rescan of %d files in %.2fs (%.0f files/s)\n",
			emb.Info().Name(), sum.FilesSeen, sum.FilesIndexed, sum.FilesSkipped, sum.FilesFailed, c.Chunks, secs,
			float64(files)/secs, float64(c.Chunks)/secs, again.FilesUnchanged, rescan, float64(again.FilesUnchanged)/rescan)
		en.Close()
	}
}

var benchWords = strings.Fields(`index search answer cite document folder library install linux windows
	backup restore model embedding vector chunk section heading paragraph offline local privacy note manual
	report paper question evidence source passage ranking fusion lexical semantic token window overlap`)

func paragraph(rng *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[rng.IntN(len(benchWords))])
	}
	b.WriteString(".\n\n")
	return b.String()
}

// generateLibrary writes n files across nested folders: about 60% Markdown
// with sections, 30% plain text, 10% files ingest skips (images, binaries).
func generateLibrary(tb testing.TB, dir string, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("area%d", i%10), fmt.Sprintf("topic%d", i%37))
		switch r := i % 10; {
		case r < 6:
			var b strings.Builder
			fmt.Fprintf(&b, "# Document %d\n\n", i)
			for s := range 1 + rng.IntN(4) {
				fmt.Fprintf(&b, "## Part %d\n\n", s)
				for range 1 + rng.IntN(3) {
					b.WriteString(paragraph(rng, 30+rng.IntN(80)))
				}
			}
			write(tb, filepath.Join(sub, fmt.Sprintf("doc%04d.md", i)), b.String())
		case r < 9:
			var b strings.Builder
			for range 1 + rng.IntN(5) {
				b.WriteString(paragraph(rng, 20+rng.IntN(100)))
			}
			write(tb, filepath.Join(sub, fmt.Sprintf("note%04d.txt", i)), b.String())
		default:
			write(tb, filepath.Join(sub, fmt.Sprintf("blob%04d.bin", i)), "\x00\x01binary")
		}
	}
}
