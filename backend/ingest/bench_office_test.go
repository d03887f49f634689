package ingest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoadOfficeFormats loads a generated file of each format added
// for issue 21 in-process (about 5,000 table rows or 2,000 paragraphs
// each) and reports input MB/s.
func BenchmarkLoadOfficeFormats(b *testing.B) {
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
	files := map[string][]byte{
		"bench.csv":  []byte(csv.String()),
		"bench.xlsx": makeXLSX(b, map[string]string{"S": xlsxRows.String()}, []string{"S"}, []string{"Oslo", "the quick brown fox"}),
		"bench.ods":  makeODF(b, "x", `<office:spreadsheet><table:table table:name="S">`+odsRows.String()+`</table:table></office:spreadsheet>`, ""),
		"bench.odt":  makeODF(b, "x", `<office:text>`+odtBody.String()+`</office:text>`, ""),
		"bench.rtf":  []byte(rtf.String()),
		"bench.pptx": makePPTX(b, decks),
	}
	dir := b.TempDir()
	for _, name := range []string{"bench.csv", "bench.xlsx", "bench.ods", "bench.odt", "bench.rtf", "bench.pptx"} {
		data := files[name]
		path := writeBytes(b, filepath.Join(dir, name), data)
		b.Run(strings.TrimPrefix(filepath.Ext(name), "."), func(b *testing.B) {
			setIsolation(b, false)
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
		})
	}
}
