package ingest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoadEveryFormat loads a generated file of every supported
// format (about 5,000 table rows, 2,000 paragraphs or 200 slides each), in
// the parser child the app keeps between files, and reports input MB/s and
// chunks/s: parse and chunk, before embedding (whose cost is per chunk,
// whatever the format; bench/RESULTS.md gives it). make bench copies the
// figures into bench/RESULTS.md.
func BenchmarkLoadEveryFormat(b *testing.B) {
	const rows = 5000
	var csv, xlsxRows, odsRows, odtBody, rtf strings.Builder
	rtf.WriteString(`{\rtf1\ansi\ansicpg1252 `)
	for i := range rows {
		fmt.Fprintf(&csv, "row %d,Oslo,%d,the quick brown fox,%d.5\n", i, i*7, i)
		fmt.Fprintf(&xlsxRows, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>row %d</t></is></c><c r="B%d" t="s"><v>0</v></c><c r="C%d"><v>%d</v></c><c r="D%d" t="s"><v>1</v></c></row>`, i+1, i+1, i, i+1, i+1, i*7, i+1)
		fmt.Fprintf(&odsRows, `<table:table-row><table:table-cell><text:p>row %d</text:p></table:table-cell><table:table-cell><text:p>Oslo</text:p></table:table-cell><table:table-cell><text:p>%d</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1000"/></table:table-row>`, i, i*7)
	}
	for i := range 2000 {
		fmt.Fprintf(&odtBody, `<text:p>Paragraph %d: the quick brown fox jumps over the lazy dog, twice.</text:p>`, i)
		fmt.Fprintf(&rtf, `Paragraph %d: the quick brown fox jumps over the lazy caf\'e9 dog, twice.\par `, i)
	}
	rtf.WriteString("}")
	var decks []string
	for i := range 200 {
		decks = append(decks, pptxShape(true, fmt.Sprintf("Slide title %d", i))+pptxShape(false, "First point of the slide", "Second point, with more words in it"))
	}
	var md, txt, html strings.Builder
	var pdfPages [][]string
	var docxParas []docxP
	var chapters []epubChapter
	md.WriteString("# Bench\n\n")
	html.WriteString("<!DOCTYPE html><html><head><title>Bench</title></head><body><h1>Bench</h1>")
	for i := range 2000 {
		para := fmt.Sprintf("Paragraph %d: the quick brown fox jumps over the lazy dog, twice.", i)
		if i%50 == 0 {
			fmt.Fprintf(&md, "## Section %d\n\n", i/50)
			fmt.Fprintf(&html, "<h2>Section %d</h2>", i/50)
			docxParas = append(docxParas, docxP{"Heading2", fmt.Sprintf("Section %d", i/50)})
			pdfPages = append(pdfPages, nil)
			chapters = append(chapters, epubChapter{file: fmt.Sprintf("c%d.xhtml", i/50), navLabel: fmt.Sprintf("Section %d", i/50)})
		}
		md.WriteString(para + "\n\n")
		txt.WriteString(para + "\n\n")
		fmt.Fprintf(&html, "<p>%s</p>", para)
		docxParas = append(docxParas, docxP{"", para})
		pdfPages[len(pdfPages)-1] = append(pdfPages[len(pdfPages)-1], para)
		chapters[len(chapters)-1].body += "<p>" + para + "</p>"
	}
	html.WriteString("</body></html>")
	files := map[string][]byte{
		"bench.md":   []byte(md.String()),
		"bench.txt":  []byte(txt.String()),
		"bench.html": []byte(html.String()),
		"bench.pdf":  makePDF(b, pdfPages, pdfOptions{}),
		"bench.docx": makeDOCX(b, docxParas, true),
		"bench.epub": makeEPUB(b, "Bench", chapters),
		"bench.csv":  []byte(csv.String()),
		"bench.xlsx": makeXLSX(b, map[string]string{"S": xlsxRows.String()}, []string{"S"}, []string{"Oslo", "the quick brown fox"}),
		"bench.ods":  makeODF(b, "x", `<office:spreadsheet><table:table table:name="S">`+odsRows.String()+`</table:table></office:spreadsheet>`, ""),
		"bench.odt":  makeODF(b, "x", `<office:text>`+odtBody.String()+`</office:text>`, ""),
		"bench.rtf":  []byte(rtf.String()),
		"bench.pptx": makePPTX(b, decks),
	}
	dir := b.TempDir()
	for _, name := range []string{"bench.md", "bench.txt", "bench.html", "bench.pdf", "bench.docx", "bench.epub",
		"bench.csv", "bench.xlsx", "bench.ods", "bench.odt", "bench.rtf", "bench.pptx"} {
		data := files[name]
		path := writeBytes(b, filepath.Join(dir, name), data)
		b.Run(strings.TrimPrefix(filepath.Ext(name), "."), func(b *testing.B) {
			setIsolation(b, true) // parsed in the kept child, as the app does
			b.SetBytes(int64(len(data)))
			var chunks int
			for b.Loop() {
				doc, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
				if err != nil {
					b.Fatal(err)
				}
				chunks = len(doc.Chunks)
			}
			b.ReportMetric(float64(chunks), "chunks")
			b.ReportMetric(float64(chunks*b.N)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
	StopChildren()
}
