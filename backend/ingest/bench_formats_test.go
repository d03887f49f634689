package ingest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkLoadPDF1000Pages loads a generated 1,000-page PDF (about 40 lines
// per page) and reports pages/s and the peak live heap seen while loading,
// sampled every 10 ms.
func BenchmarkLoadPDF1000Pages(b *testing.B) {
	const pageCount = 1000
	pages := make([][]string, pageCount)
	for p := range pages {
		for l := 0; l < 40; l++ {
			pages[p] = append(pages[p], fmt.Sprintf("Page %d line %d: the quick brown fox jumps over the lazy dog.", p+1, l+1))
		}
	}
	data := makePDF(b, pages, pdfOptions{})
	path := writeBytes(b, filepath.Join(b.TempDir(), "big.pdf"), data)
	for _, isolated := range []bool{false, true} {
		name := map[bool]string{false: "in-process", true: "isolated"}[isolated]
		b.Run(name, func(b *testing.B) {
			setIsolation(b, isolated)
			benchLoadPDF(b, path, len(data), pageCount)
		})
	}
}

// benchLoadPDF loads path b.N times. Peak heap is this process's: with
// isolation the parsing happens in the child, whose memory is not in it.
func benchLoadPDF(b *testing.B, path string, size, pageCount int) {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()

	var chunks, textBytes int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
		if err != nil {
			b.Fatal(err)
		}
		chunks, textBytes = len(doc.Chunks), len(doc.Text)
		if last := doc.Chunks[len(doc.Chunks)-1].Page; last != pageCount {
			b.Fatalf("last chunk on page %d", last)
		}
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(pageCount)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapAlloc))/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(chunks), "chunks")
	fmt.Printf("%s: file %.1f MiB, text %.1f MiB, %d chunks, peak heap above baseline %.1f MiB\n",
		b.Name(), float64(size)/(1<<20), float64(textBytes)/(1<<20), chunks, float64(peak.Load()-min(peak.Load(), base.HeapAlloc))/(1<<20))
}

// BenchmarkLoadSmallFiles measures what parsing in a child costs per file
// for small documents, where it weighs most: in this process, in a child
// kept between files (what Footnote does), and in a child started for each
// file.
func BenchmarkLoadSmallFiles(b *testing.B) {
	dir := b.TempDir()
	files := map[string][]byte{
		"one-page.pdf": makePDF(b, [][]string{{"A short page of text.", "Second line."}}, pdfOptions{}),
		"short.docx":   makeDOCX(b, []docxP{{"Heading1", "Title"}, {"", "A short paragraph."}}, true),
		"short.html":   []byte(sampleHTML),
		// 24 MiB, nearly all an image: crossing to the child is the cost.
		"large.docx": makeZip(b, zipEntry{name: "word/document.xml", body: docxDocumentXML([]docxP{{"", "Photo."}})},
			zipEntry{name: "word/media/photo.jpg", body: string(randomBytes(24 << 20)), store: true}),
	}
	for name, data := range files {
		path := writeBytes(b, filepath.Join(dir, name), data)
		for _, mode := range []string{"in-process", "kept-child", "child-per-file"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				setIsolation(b, mode != "in-process")
				StopChildren()
				for b.Loop() {
					if _, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow); err != nil {
						b.Fatal(err)
					}
					if mode == "child-per-file" {
						StopChildren()
					}
				}
			})
		}
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, 0, n)
	r := rand.New(rand.NewPCG(1, 2))
	for len(b) < n {
		b = binary.LittleEndian.AppendUint64(b, r.Uint64())
	}
	return b[:n]
}
