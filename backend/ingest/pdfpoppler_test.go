package ingest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fontPage is a catalog (1), page tree (2) and one page (3) with Helvetica
// as /F1 and, when form is set, a form XObject /Fm1 (object 5), whose
// content stream is object 4.
func fontPage(content rawObject, form *rawObject) []rawObject {
	xobj := ""
	if form != nil {
		xobj = " /XObject << /Fm1 5 0 R >>"
	}
	objs := []rawObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >>" + xobj + " >> >>"},
		content,
	}
	if form != nil {
		objs = append(objs, *form)
	} else {
		objs = append(objs, rawObject{dict: "<< >>"})
	}
	return append(objs, rawObject{dict: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"})
}

func textOps(text string) string { return "BT /F1 12 Tf 72 720 Td (" + text + ") Tj ET" }

func needPdftotext(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext is not installed; `make deps-test` installs poppler-utils")
	}
}

// withoutPdftotext hides Poppler's pdftotext for one test.
func withoutPdftotext(t *testing.T) {
	saved := findPdftotext
	findPdftotext = func() string { return "" }
	t.Cleanup(func() { findPdftotext = saved })
}

// TestHardPDFsAreReadBuiltIn: PDFs the Go reader alone could not read — an
// ASCIIHexDecode stream, a broken cross-reference table, encryption with an
// empty user password, text drawn in a form XObject — are read by the
// built-in PDFium without Poppler, and the report has nothing to explain; a
// real password still refuses.
func TestHardPDFsAreReadBuiltIn(t *testing.T) {
	withoutPdftotext(t)
	dir := t.TempDir()
	hexOps := hex.EncodeToString([]byte(textOps("Hex encoded harbour timetable"))) + ">"
	form := rawObject{dict: fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 6 0 R >> >> /Length %d >>", len(textOps("Quarterly report drawn inside a form"))),
		stream: []byte(textOps("Quarterly report drawn inside a form"))}
	good := rawPDF(fontPage(rawObject{dict: fmt.Sprintf("<< /Length %d >>", len(textOps("Plain page about ferries"))), stream: []byte(textOps("Plain page about ferries"))}, nil), "/Root 1 0 R")
	broken := append([]byte(nil), good...)
	at := strings.LastIndex(string(broken), "startxref\n") + len("startxref\n")
	copy(broken[at:], "9") // the table is not where startxref says

	cases := []struct {
		name, want string
		data       []byte
	}{
		{"hexfilter.pdf", "Hex encoded harbour timetable",
			rawPDF(fontPage(rawObject{dict: fmt.Sprintf("<< /Length %d /Filter /ASCIIHexDecode >>", len(hexOps)), stream: []byte(hexOps)}, nil), "/Root 1 0 R")},
		{"brokenxref.pdf", "Plain page about ferries", broken},
		{"ownerpass.pdf", "secret text", makePDF(t, [][]string{{"secret text"}}, pdfOptions{ownerOnly: true})},
		{"form.pdf", "Quarterly report drawn inside a form",
			rawPDF(fontPage(rawObject{dict: "<< /Length 7 >>", stream: []byte("/Fm1 Do")}, &form), "/Root 1 0 R")},
		{"good.pdf", "Plain page about ferries", good},
	}
	for _, c := range cases {
		path := writeBytes(t, filepath.Join(dir, c.name), c.data)
		doc, notes, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !strings.Contains(doc.Text, c.want) || len(notes) != 0 {
			t.Errorf("%s: text %q (want %q), notes %q", c.name, doc.Text, c.want, notes)
		}
	}
	locked := writeBytes(t, filepath.Join(dir, "locked.pdf"), makePDF(t, [][]string{{"secret text"}}, pdfOptions{userPass: "pw"}))
	if _, _, err := LoadWithNotes(File{Path: locked}, wordCounter{}, Options{}, testNow); !errors.Is(err, ErrEncrypted) {
		t.Errorf("a PDF with a real password: err = %v, want ErrEncrypted", err)
	}
}

// TestPopplerReadsWhatTheBuiltInReadersCannot: when the built-in readers
// failed on a file, Poppler's pdftotext, if installed, reads it, and the
// report says so.
func TestPopplerReadsWhatTheBuiltInReadersCannot(t *testing.T) {
	needPdftotext(t)
	data := rawPDF(fontPage(rawObject{dict: fmt.Sprintf("<< /Length %d >>", len(textOps("Ferry timetable for the winter"))), stream: []byte(textOps("Ferry timetable for the winter"))}, nil), "/Root 1 0 R")
	failed := damaged("the PDF is damaged and could not be read")
	ex, err := readPDFText(t.Context(), data, extracted{}, failed, capsFor(Options{}, len(data)), 1<<20)
	if err != nil || !strings.Contains(ex.text, "Ferry timetable for the winter") {
		t.Fatalf("text %q, err %v", ex.text, err)
	}
	if note := strings.Join(ex.notes, "\n"); !strings.Contains(note, "read by Poppler's pdftotext (the built-in reader failed: the PDF is damaged") {
		t.Errorf("notes %q do not say which reader read it and why", ex.notes)
	}

	// Text that holds half of pdftotext's words: the Go reader's is
	// replaced, PDFium's is kept (it splits words differently as often as
	// it misses them).
	half := extracted{text: "Ferrytimetable for the", pageStarts: []int{0}}
	for reader, replaced := range map[string]bool{"go": true, "pdfium": false} {
		half.pdfReader = reader
		ex, err := readPDFText(t.Context(), data, half, nil, capsFor(Options{}, len(data)), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(ex.text, "Ferry timetable for the winter"); got != replaced {
			t.Errorf("%s reader's text holding half the words: replaced %v, want %v (notes %q)", reader, got, replaced, ex.notes)
		}
	}

	// pdftotext finding twice the words only by cutting them in two is not
	// ahead; finding far more letters is.
	ops := "BT /F1 12 Tf 72 720 Td 14 TL"
	for range 8 {
		ops += " (" + strings.Repeat("Fer ry ", 5) + ") Tj T*"
	}
	ops += " ET"
	cutPDF := rawPDF(fontPage(rawObject{dict: fmt.Sprintf("<< /Length %d >>", len(ops)), stream: []byte(ops)}, nil), "/Root 1 0 R")
	whole := extracted{text: strings.Repeat("Ferry ", 40), pageStarts: []int{0}, pdfReader: "pdfium"}
	if ex, err := readPDFText(t.Context(), cutPDF, whole, nil, capsFor(Options{}, len(data)), 1<<20); err != nil || ex.text != whole.text {
		t.Errorf("words cut in two: text %.30q…, notes %q, err %v; want PDFium's kept", ex.text, ex.notes, err)
	}
	short := extracted{text: "Ferry", pageStarts: []int{0}, pdfReader: "pdfium"}
	if ex, err := readPDFText(t.Context(), cutPDF, short, nil, capsFor(Options{}, len(data)), 1<<20); err != nil || !strings.Contains(strings.Join(ex.notes, " "), "found 5 letters and digits, pdftotext 200") {
		t.Errorf("far more text: notes %q, err %v; want pdftotext's", ex.notes, err)
	}
}

// TestWithoutPdftotextTheErrorSaysWhatToInstall: on a machine without
// Poppler, a PDF no built-in reader can read fails with the reader's error
// and the package that may still read it.
func TestWithoutPdftotextTheErrorSaysWhatToInstall(t *testing.T) {
	withoutPdftotext(t)
	path := writeBytes(t, filepath.Join(t.TempDir(), "wreck.pdf"), []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage\n"))
	_, _, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "poppler-utils") || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v", err)
	}
}

func TestGarbledText(t *testing.T) {
	cases := map[string]bool{
		"A plain sentence with ordinary words in it.":                                false,
		strings.Repeat("word ", 30) + strings.Repeat("\uFFFD", 10):                   true,
		strings.Repeat("isavailable,traditionalcompilersneedmorememorythanthis ", 8): true,
		strings.Repeat("Internationalization is a long word in ordinary text. ", 10): false,
		"": false,
		strings.Repeat("東京大学に行きました今日は晴れです ", 20): false,
	}
	for text, want := range cases {
		if got := garbled(text) != ""; got != want {
			t.Errorf("garbled(%.40q…) = %q, want garbled %v", text, garbled(text), want)
		}
	}
}

func TestWordRecall(t *testing.T) {
	cases := []struct {
		ref, got string
		want     float64
	}{
		{"The Mansfield estate, sold in 1998.", "the mansﬁeld ESTATE sold in 1998", 1},
		{"one two two three", "one two three", 0.75}, // "two" twice, once found
		{"isavailable now", "is available now", 0.5},
		{"", "anything", 1},
	}
	for _, c := range cases {
		if got := WordRecall(c.ref, c.got); got != c.want {
			t.Errorf("WordRecall(%q, %q) = %v, want %v", c.ref, c.got, got, c.want)
		}
	}
}
