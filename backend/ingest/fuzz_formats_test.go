package ingest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzLimits keep each fuzz input cheap.
func fuzzLimits() limits {
	lim := limitsFor(Options{MaxFileBytes: 1 << 20})
	lim.maxPages = 200
	return lim
}

// fuzzExtract checks that extracting data never panics or hangs, and that
// whatever it returns chunks with exact offsets (and pages for PDF).
func fuzzExtract(t *testing.T, format string, data []byte) {
	ex, err := extractReader(data, format, fuzzLimits())
	if err != nil {
		if err.Error() == "" || strings.Contains(err.Error(), "\n") {
			t.Fatalf("error is not one sentence: %q", err)
		}
		return
	}
	if !utf8.ValidString(ex.text) {
		t.Fatal("extracted text is not valid UTF-8")
	}
	prev := -1
	for _, h := range ex.headings {
		if h.start <= prev || h.start > len(ex.text) || h.level < 1 {
			t.Fatalf("heading %+v out of order or range (prev %d, len %d)", h, prev, len(ex.text))
		}
		prev = h.start
	}
	for i, p := range ex.pageStarts {
		if p > len(ex.text) || (i > 0 && p < ex.pageStarts[i-1]) {
			t.Fatalf("page starts %v invalid", ex.pageStarts)
		}
	}
	opts := Options{ChunkTokens: 16, OverlapTokens: 3}.WithDefaults()
	secs, chunks, err := chunkSpans(context.Background(), "d", "f", ex.text, spansOf(ex, "f", "f"), wordCounter{}, opts, testNow)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, ex.text, secs, chunks, wordCounter{}, opts)
	for _, c := range chunks {
		if (format == "pdf") != (c.Page > 0) || c.Page > len(ex.pageStarts) {
			t.Fatalf("chunk page %d with %d pages", c.Page, len(ex.pageStarts))
		}
	}
}

// addKept seeds a fuzz target with the kept public test files of format.
func addKept(f *testing.F, format string) {
	for _, p := range keptFiles(f, format) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzExtractHTML(f *testing.F) {
	f.Add([]byte(sampleHTML))
	addKept(f, "html")
	f.Add([]byte("<h1>a</h1>b<h2>c<h3>d</h2>e<p>f<pre>g\n h</pre>"))
	f.Add([]byte("<h1>x<table><tr><td>a<h2>b</h2><td>c<table><td>d</table></table>e</h1><table><th>z"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "html", data) })
}

func FuzzExtractPDF(f *testing.F) {
	pages := [][]string{{"Hello world", "second line"}, {}, {"page three"}}
	f.Add(makePDF(f, pages, pdfOptions{title: "T"}))
	f.Add(makePDF(f, pages, pdfOptions{raw: true}))
	addKept(f, "pdf")
	pdfiumTimeout = 2 * time.Second // an input that stalls PDFium costs 2 s, not a minute
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "pdf", data) })
}

func FuzzExtractDOCX(f *testing.F) {
	paras := []docxP{{"Titel", "T"}, {"berschrift1", "H"}, {"", "a\tb"}, {"Heading2", "S"}}
	f.Add(makeDOCX(f, paras, true))
	f.Add(makeZip(f, stored([]zipEntry{{name: "word/document.xml", body: docxDocumentXML(paras)}, {name: "word/styles.xml", body: docxStylesXML}})...))
	addKept(f, "docx")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "docx", data) })
}

func FuzzExtractEPUB(f *testing.F) {
	chapters := []epubChapter{{file: "a.xhtml", navLabel: "A", body: "<p>x</p>"}, {file: "b.xhtml", body: "<h1>B</h1><p>y</p>"}}
	f.Add(makeEPUB(f, "B", chapters))
	f.Add(makeZip(f, stored(epubEntries(f, "B", chapters))...))
	addKept(f, "epub")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "epub", data) })
}

func FuzzExtractPPTX(f *testing.F) {
	f.Add(samplePPTX(f))
	addKept(f, "pptx")
	f.Add(makeZip(f, stored([]zipEntry{{name: "ppt/presentation.xml", body: `<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst><p:sldId r:id="a"/></p:sldIdLst></p:presentation>`}, {name: "ppt/_rels/presentation.xml.rels", body: `<Relationships><Relationship Id="a" Target="slides/s.xml"/></Relationships>`}, {name: "ppt/slides/s.xml", body: pptxShape(true, "T") + pptxShape(false, "b")}})...))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "pptx", data) })
}

func FuzzExtractXLSX(f *testing.F) {
	f.Add(sampleXLSX(f))
	addKept(f, "xlsx")
	f.Add(makeZip(f, stored([]zipEntry{{name: "xl/workbook.xml", body: `<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1"/></sheets></workbook>`}, {name: "xl/worksheets/sheet1.xml", body: `<row><c r="B2" t="inlineStr"><is><t>x</t></is></c></row>`}})...))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "xlsx", data) })
}

func FuzzExtractODS(f *testing.F) {
	f.Add(sampleODS(f))
	addKept(f, "ods")
	f.Add(makeODF(f, "x", `<office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`, ""))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "ods", data) })
}

func FuzzExtractODT(f *testing.F) {
	f.Add(sampleODT(f))
	addKept(f, "odt")
	f.Add(makeZip(f, stored([]zipEntry{{name: "content.xml", body: `<office:body><office:text><text:h text:outline-level="2">H</text:h><text:p>a<text:s text:c="3"/>b</text:p></office:text></office:body>`}})...))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "odt", data) })
}

func FuzzExtractRTF(f *testing.F) {
	f.Add([]byte(sampleRTF))
	f.Add([]byte(`{\rtf1\ansi\ansicpg949 \'c7\'d1\'b1\'b9\par\uc2\u54620\'c7\'d1 x\cell\row}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "rtf", data) })
}

func FuzzExtractCSV(f *testing.F) {
	f.Add([]byte("a,b\n1,\"2\n3\"\n"))
	f.Add([]byte("x;y\n\xe9;\x93q\x94\n"))
	f.Add([]byte("\xff\xfea\x00,\x00b\x00"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "csv", data) })
}
