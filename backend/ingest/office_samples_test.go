package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// Generators of small office files for tests and fuzz seeds: just the parts
// the parsers read, written with archive/zip.

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"`

func makeODF(t testing.TB, mime, body, title string) []byte {
	t.Helper()
	entries := []zipEntry{
		{name: "mimetype", body: mime, store: true},
		{name: "content.xml", body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + `><office:body>` + body + `</office:body></office:document-content>`},
	}
	if title != "" {
		entries = append(entries, zipEntry{name: "meta.xml", body: `<office:document-meta ` + odfNS + `><office:meta><dc:title>` + title + `</dc:title></office:meta></office:document-meta>`})
	}
	return makeZip(t, entries...)
}

// sampleODT has a heading, a paragraph with a space run and a note, and a
// table with a header row.
func sampleODT(t testing.TB) []byte {
	return makeODF(t, "application/vnd.oasis.opendocument.text", `<office:text>
<text:h text:outline-level="1">Budget</text:h>
<text:p>Costs rose<text:s text:c="2"/>sharply.<text:note><text:note-body><text:p>footnote</text:p></text:note-body></text:note></text:p>
<table:table table:name="T1"><table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell><table:table-cell><text:p>Cost</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell><text:p>Paper | ink</text:p></table:table-cell><table:table-cell><text:p>12</text:p><text:p>EUR</text:p></table:table-cell></table:table-row></table:table>
<text:h text:outline-level="2">Notes</text:h><text:p>Done.</text:p>
<office:annotation><text:p>a comment</text:p></office:annotation>
</office:text>`, "Annual budget")
}

// sampleODS has two sheets; the first repeats a cell, skips a column and
// ends its rows with many empty repeated cells, as Calc writes them.
func sampleODS(t testing.TB) []byte {
	return makeODF(t, "application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet>
<table:table table:name="Prices"><table:table-row><table:table-cell><text:p>Fruit</text:p></table:table-cell><table:table-cell/><table:table-cell><text:p>Price</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1020"/></table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell><text:p>Apple</text:p></table:table-cell><table:table-cell/><table:table-cell><text:p>3</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1020"/></table:table-row>
<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>
<table:table table:name="Empty"/>
<table:table table:name="Staff"><table:table-row><table:table-cell table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell></table:table-row></table:table>
</office:spreadsheet>`, "")
}

func makeXLSX(t testing.TB, sheets map[string]string, order []string, shared []string) []byte {
	t.Helper()
	var wb, rels strings.Builder
	entries := []zipEntry{}
	for i, name := range order {
		fmt.Fprintf(&wb, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, name, i+1, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/s%d.xml"/>`, i+1, i+1)
		entries = append(entries, zipEntry{name: fmt.Sprintf("xl/worksheets/s%d.xml", i+1),
			body: `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + sheets[name] + `</sheetData></worksheet>`})
	}
	entries = append(entries,
		zipEntry{name: "xl/workbook.xml", body: `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>` + wb.String() + `</sheets></workbook>`},
		zipEntry{name: "xl/_rels/workbook.xml.rels", body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`})
	if shared != nil {
		var sst strings.Builder
		for _, s := range shared {
			sst.WriteString("<si><t>" + s + "</t></si>")
		}
		sst.WriteString(`<si><r><t>rich </t></r><r><t>text</t></r><rPh><t>phonetic</t></rPh></si>`)
		entries = append(entries, zipEntry{name: "xl/sharedStrings.xml", body: `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` + sst.String() + `</sst>`})
	}
	return makeZip(t, entries...)
}

func sampleXLSX(t testing.TB) []byte {
	return makeXLSX(t, map[string]string{
		"Q1": `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c></row>` +
			`<row r="3"><c r="A3" t="inlineStr"><is><t>North</t></is></c><c r="B3"><v>1.5</v></c><c r="C3" t="s"><v>2</v></c></row>` +
			`<row r="4"><c r="A4" t="b"><v>1</v></c><c r="C4" t="str"><f>A1</f><v>calc</v></c></row>`,
		"Notes": `<row r="1"><c r="B1" t="s"><v>3</v></c></row>`,
	}, []string{"Q1", "Notes"}, []string{"Region", "Total", "12 | 3"})
}

func makePPTX(t testing.TB, slides []string) []byte {
	t.Helper()
	var ids, rels strings.Builder
	entries := []zipEntry{}
	// Slide files are numbered in reverse, so order must come from the
	// presentation, not the file names.
	for i, body := range slides {
		n := len(slides) - i
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 256+i, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Target="slides/slide%d.xml"/>`, i+1, n)
		entries = append(entries, zipEntry{name: fmt.Sprintf("ppt/slides/slide%d.xml", n),
			body: `<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree>` + body + `</p:spTree></p:cSld></p:sld>`})
	}
	// The second slide has speaker notes, as PowerPoint stores them.
	if len(slides) > 1 {
		n := len(slides) - 1
		entries = append(entries,
			zipEntry{name: fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide7.xml"/></Relationships>`},
			zipEntry{name: "ppt/notesSlides/notesSlide7.xml", body: `<p:notes xmlns:a="a" xmlns:p="p"><p:cSld><p:spTree>` +
				`<p:sp><p:nvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr></p:sp>` + pptxShape(false, "Mention the Oslo pilot.") +
				`<p:sp><p:nvSpPr><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>2</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>`})
	}
	entries = append(entries,
		zipEntry{name: "ppt/presentation.xml", body: `<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`},
		zipEntry{name: "ppt/_rels/presentation.xml.rels", body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`})
	return makeZip(t, entries...)
}

func pptxShape(title bool, paras ...string) string {
	ph := ""
	if title {
		ph = `<p:ph type="title"/>`
	}
	var b strings.Builder
	b.WriteString(`<p:sp><p:nvSpPr><p:nvPr>` + ph + `</p:nvPr></p:nvSpPr><p:txBody>`)
	for _, p := range paras {
		b.WriteString(`<a:p><a:r><a:t>` + p + `</a:t></a:r></a:p>`)
	}
	b.WriteString(`</p:txBody></p:sp>`)
	return b.String()
}

func samplePPTX(t testing.TB) []byte {
	table := `<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>City</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>Sales</a:t></a:r></a:p></a:txBody></a:tc></a:tr>` +
		`<a:tr><a:tc><a:txBody><a:p><a:r><a:t>Oslo</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>40</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
	return makePPTX(t, []string{
		pptxShape(false, "Welcome everyone") + pptxShape(true, "Kick-off"),
		pptxShape(true, "Results") + table,
		pptxShape(false, "No title here"),
	})
}

const sampleRTF = `{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times;}}{\colortbl;\red0\green0\blue0;}` +
	`{\info{\title Trip notes}{\author Ann}}{\*\generator Writer;}` + "\n" +
	`\pard Caf\'e9 \ldblquote quotes\rdblquote  and \u8364? euro \u-10179?\u-8704?.{\pict\bin4 }}}x}\par` + "\n" +
	`{\header header text\par}Second {\b bold} line\line same para.\par` + "\n" +
	`\trowd\cellx1000\cellx2000\pard\intbl Name\cell Age\cell\row\trowd\cellx1000\cellx2000\pard\intbl Bo\cell 7\cell\row\pard After table.\par}`
