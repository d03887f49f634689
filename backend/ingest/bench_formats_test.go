package ingest

import (
	"fmt"
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
	fmt.Printf("BenchmarkLoadPDF1000Pages: file %.1f MiB, text %.1f MiB, %d chunks, peak heap above baseline %.1f MiB\n",
		float64(len(data))/(1<<20), float64(textBytes)/(1<<20), chunks, float64(peak.Load()-min(peak.Load(), base.HeapAlloc))/(1<<20))
}
