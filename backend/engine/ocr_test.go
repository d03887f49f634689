package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/ingest/scantest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
)

// TestScannedPageMarkedOCR: a PDF with a scanned page, indexed through the
// engine, lists its OCR page in the Library, and a passage from that page
// is marked as read by OCR where it is cited, a typed page's is not.
func TestScannedPageMarkedOCR(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	lib := t.TempDir()
	data, err := scantest.PDF([]scantest.Page{
		{Text: []string{"Maintenance log", "The heating was checked in January."}},
		{Scan: []string{"The boiler was serviced on 12 March."}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "log.pdf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := en.AddToCollection(ctx, "lib", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	files, err := en.CollectionFiles(ctx, "lib")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !slices.Equal(files[0].OCRPages, []int{2}) {
		t.Fatalf("files = %+v, want log.pdf with OCR page 2", files)
	}
	ocrOf := map[string]bool{}
	for _, q := range []string{"boiler serviced", "heating checked January"} {
		res, err := en.Search(ctx, q, search.Options{Mode: "lexical", TopK: 1})
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("search %q: %v %+v", q, err, res)
		}
		c := rag.CitationFromHit(1, res.Hits[0])
		if c.Page == 0 {
			t.Errorf("%q: hit without a page", q)
		}
		ocrOf[strings.Fields(q)[0]] = c.OCR
	}
	if !ocrOf["boiler"] || ocrOf["heating"] {
		t.Errorf("OCR marks = %v, want boiler (scanned page) only", ocrOf)
	}
}
