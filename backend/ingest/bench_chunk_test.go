//go:build unix

package ingest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// BenchmarkChunkShapes splits texts of one shape and size with the test
// model's WordPiece tokenizer (the library's BERT pre-tokenizer, as
// Footnote runs it) and reports CPU seconds per MB of text (the process's
// user and system time: wall time on a shared machine says little).
// Chunking must cost time linear in the length whatever the shape, so the
// figure should not grow with the size:
//
//	go test -run '^$' -bench ChunkShapes -benchtime 1x ./backend/ingest/
func BenchmarkChunkShapes(b *testing.B) {
	h, err := embed.Load(context.Background(), embedtest.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	opts := Options{MaxTokens: h.Info().MaxTokens}
	for _, shape := range chunkShapes {
		for _, size := range []int{16 << 10, 64 << 10, 2 << 20} {
			text := shape.make(size)
			b.Run(fmt.Sprintf("%s/%s", shape.name, humanBytes(int64(size))), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				start := cpuTime()
				for b.Loop() {
					if _, _, err := Split("doc", "/data/"+shape.name+".txt", "txt", text, h, opts, testNow); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N)/(float64(len(text))/(1<<20)), "cpu-s/MB")
			})
		}
	}
}

// chunkShapes are the shapes of text a folder holds: prose, and the kinds
// that are one long run (a hex or base64 dump, minified JSON, a log line,
// a spreadsheet cell).
var chunkShapes = []struct {
	name string
	make func(n int) string
}{
	{"prose", func(n int) string { return proseText(n, "\n\n") }},
	{"unbroken", hexRun},
	{"base64", base64Line},
	{"minified-json", minifiedJSON},
	{"one-line", func(n int) string { return proseText(n, " ") }},
	{"table-cell", func(n int) string {
		head := "| name | notes |\n| --- | --- |\n| big | "
		return head + proseText(n-len(head)-2, " ") + " |"
	}},
}

// proseText is n bytes of English sentences, paragraphs joined by sep.
func proseText(n int, sep string) string {
	words := strings.Fields("the index keeps every passage of a document with its offsets so a citation can point at the exact sentence it came from while the model reads only what the search returned")
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < n {
		for s := 0; s < 4; s++ {
			k := 8 + rng.IntN(12)
			for w := range k {
				word := words[rng.IntN(len(words))]
				if w == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				b.WriteString(word)
				if w < k-1 {
					b.WriteByte(' ')
				}
			}
			b.WriteString(". ")
		}
		b.WriteString(sep)
	}
	return b.String()[:n]
}

// hexRun is n bytes of lower-case hex digits without a break, like a
// hex dump saved as text.
func hexRun(n int) string {
	rng := rand.New(rand.NewPCG(7, 11))
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[rng.IntN(16)]
	}
	return string(b)
}

// minifiedJSON is n bytes of JSON records on one line, as an API dump or a
// bundled data file holds them.
func minifiedJSON(n int) string {
	rng := rand.New(rand.NewPCG(5, 8))
	words := strings.Fields("ferry harbour dawn lighthouse keeper log gulls nets quay market")
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"id":%d,"name":"%s-%d","tags":["%s","%s"],"score":%.4f,"ok":%t},`, i, words[rng.IntN(len(words))], rng.IntN(1e6),
			words[rng.IntN(len(words))], words[rng.IntN(len(words))], rng.Float64(), rng.IntN(2) == 0)
	}
	return b.String()[:n]
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
