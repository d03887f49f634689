package ingest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/ingest/scantest"
)

// makeScannedPDF writes pages with scantest.
func makeScannedPDF(t *testing.T, pages []scantest.Page) []byte {
	t.Helper()
	data, err := scantest.PDF(pages)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// needOCR fails (never skips) when the OCR programs are missing: `make test`
// installs them (tesseract-ocr, poppler-utils).
func needOCR(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"tesseract", "pdftoppm"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not installed; `make deps-test` installs tesseract-ocr and poppler-utils", bin)
		}
	}
}

// TestScannedPageReadByOCR: a PDF whose second page is a scan gets that
// page's words from Tesseract, on page 2, with the offsets of page 3 moved
// past them; the document records which page was read by OCR.
func TestScannedPageReadByOCR(t *testing.T) {
	needOCR(t)
	data := makeScannedPDF(t, []scantest.Page{
		{Text: []string{"Maintenance log", "The heating was checked in January."}},
		{Scan: []string{"The boiler was serviced on 12 March.", "Invoice number 4471 was paid in cash."}},
		{Text: []string{"Page three is typed text again."}},
	})
	path := writeBytes(t, filepath.Join(t.TempDir(), "log.pdf"), data)
	doc, notes, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, doc.Text, doc.Sections, doc.Chunks, wordCounter{}, Options{}.WithDefaults())
	if len(doc.OCRPages) != 1 || doc.OCRPages[0] != 2 || !strings.HasPrefix(doc.OCREngine, "tesseract ") {
		t.Fatalf("OCR pages %v by %q, want [2] by tesseract; notes %v", doc.OCRPages, doc.OCREngine, notes)
	}
	lower := strings.ToLower(doc.Text)
	for _, w := range []string{"boiler", "serviced", "march", "invoice", "4471", "cash"} {
		if !strings.Contains(lower, w) {
			t.Errorf("OCR text lacks %q:\n%s", w, doc.Text)
		}
	}
	pageOf := map[string]int{}
	for _, c := range doc.Chunks {
		for _, w := range []string{"heating", "boiler", "three"} {
			if strings.Contains(strings.ToLower(c.Text), w) {
				pageOf[w] = c.Page
			}
		}
	}
	if pageOf["heating"] != 1 || pageOf["boiler"] != 2 || pageOf["three"] != 3 {
		t.Errorf("pages of the words = %v, want heating 1, boiler 2, three 3", pageOf)
	}
	if !strings.HasSuffix(doc.Text, "Page three is typed text again.") {
		t.Errorf("page 3 moved wrongly:\n%q", doc.Text)
	}
}

// TestScannedPageWithoutOCR: without Tesseract the scanned page is named
// in a note saying what to install, never silently empty; a blank page
// (no image) is not called scanned.
func TestScannedPageWithoutOCR(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no tesseract, no pdftoppm
	data := makeScannedPDF(t, []scantest.Page{
		{Text: []string{"Cover page"}},
		{},
		{Scan: []string{"A scanned letter."}},
	})
	path := writeBytes(t, filepath.Join(t.TempDir(), "letter.pdf"), data)
	doc, notes, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.OCRPages) != 0 {
		t.Errorf("OCR pages %v without an OCR engine", doc.OCRPages)
	}
	want := "page 3: scanned page, no text (install Tesseract to read it)"
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notes = %q, want [%q]", notes, want)
	}
}

// TestScannedPageNeedsPdftoppm: Tesseract alone cannot open a PDF; the note
// names the missing renderer.
func TestScannedPageNeedsPdftoppm(t *testing.T) {
	tess, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatal("tesseract is not installed; `make deps-test` installs tesseract-ocr")
	}
	bin := t.TempDir()
	if err := os.Symlink(tess, filepath.Join(bin, "tesseract")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	data := makeScannedPDF(t, []scantest.Page{{Scan: []string{"A scanned letter."}}})
	path := writeBytes(t, filepath.Join(t.TempDir(), "letter.pdf"), data)
	_, notes, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "scanned page, no text (install Poppler's pdftoppm") {
		t.Errorf("notes = %q", notes)
	}
}

func TestInsertPageTextMovesLaterOffsets(t *testing.T) {
	ex := extracted{
		text:       "one\n\n\n\nthree",
		pageStarts: []int{0, 5, 7},
		headings:   []heading{{start: 0, title: "a"}, {start: 7, title: "c"}},
		imagePages: []int{2},
	}
	if got := scannedPages(ex); len(got) != 1 || got[0] != 2 {
		t.Fatalf("scanned pages = %v", got)
	}
	ex = insertPageText(ex, 1, "two words")
	if ex.text != "one\n\ntwo words\n\nthree" {
		t.Fatalf("text = %q", ex.text)
	}
	if ex.pageStarts[2] != 16 || ex.text[ex.pageStarts[2]:] != "three" || ex.headings[1].start != 16 || ex.headings[0].start != 0 {
		t.Errorf("page starts %v headings %v", ex.pageStarts, ex.headings)
	}
}

// BenchmarkOCRScannedPage is the cost of one scanned A4 page: rendering at
// 300 dpi and recognition, one core.
func BenchmarkOCRScannedPage(b *testing.B) {
	data, err := scantest.PDF([]scantest.Page{{Scan: []string{
		"The boiler was serviced on 12 March.", "Invoice number 4471 was paid in cash.",
		"The next service is due in September.", "Call the engineer two weeks before.",
	}}})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "scan.pdf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		doc, _, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
		if err != nil || len(doc.OCRPages) != 1 {
			b.Fatalf("%v %v", err, doc.OCRPages)
		}
	}
}
