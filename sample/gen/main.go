// Command gen writes the sample library's PDF and DOCX pages of the user
// guide, so the sample exercises every ingest format. The output is
// deterministic (fixed dates), so regenerating changes nothing unless the
// text below changes. Run from the repository root: go run ./sample/gen
package main

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

// fixed is the date stamped into both files so the output is reproducible.
var fixed = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// page is one PDF page: a heading and its paragraphs.
type page struct {
	heading string
	paras   []string
}

var quickReference = []page{
	{"Reading citations", []string{
		"Every claim in an answer ends with a citation marker such as [#1]. Click a marker to open the source viewer, which shows the whole document with the cited passage highlighted.",
		"In the source viewer, press the left and right arrow keys, or the [ and ] keys, to step through the citations of the answer. Press Escape to close the viewer.",
		"The Export button copies an answer as Markdown in which every citation marker becomes a footnote carrying the cited text, the document, its section and a link to the file.",
	}},
	{"Glossary", []string{
		"Passage: a piece of a document about 200 tokens long, the unit Footnote retrieves and cites.",
		"Section: the part of a document under one heading; a passage always belongs to one section.",
		"Reciprocal rank fusion: the method that merges the keyword ranking and the semantic ranking into one list.",
		"Score gate: the lowest fused score the best passage must reach before Footnote asks the language model to answer.",
		"Grounded: an answer whose every citation marker refers to a passage that was given to the model.",
	}},
}

// docxPara is one Word paragraph; style is a heading style id or "".
type docxPara struct{ style, text string }

var faq = []docxPara{
	{"Title", "Footnote frequently asked questions"},
	{"Heading1", "Can I use Footnote without Ollama?"},
	{"", "Yes, for indexing and search. Footnote indexes your documents and searches them without any language model. Writing answers needs a model, served either by Ollama or by an OpenAI-compatible local server."},
	{"Heading1", "Why did Footnote answer that it does not know?"},
	{"", "Footnote refuses when no passage in your documents scores above the score gate, or when the model could not support its answer with citations. Rephrasing the question with words from your documents often helps."},
	{"Heading1", "What happens when I delete a document?"},
	{"", "The next rescan, or the folder watcher if it is running, removes the deleted document's passages from the index. Answers stored earlier keep their citations in the history."},
	{"Heading1", "Does Footnote read scanned PDFs?"},
	{"", "No. A scanned PDF holds pictures of pages, not text, so Footnote lists it as skipped. Run the file through a text recognition tool first and add the result."},
	{"Heading1", "Why is an answer marked as not grounded?"},
	{"", "The model cited a passage number it was not given, or wrote an answer without any citation. Footnote shows such answers with a warning instead of presenting them as supported by your documents."},
}

func main() {
	out := flag.String("out", "sample/library", "folder to write quick-reference.pdf and faq.docx into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	pdf, err := buildPDF(quickReference)
	if err != nil {
		return fmt.Errorf("build PDF: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "quick-reference.pdf"), pdf, 0o644); err != nil {
		return err
	}
	docx, err := buildDOCX(faq)
	if err != nil {
		return fmt.Errorf("build DOCX: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "faq.docx"), docx, 0o644)
}

func buildPDF(pages []page) ([]byte, error) {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetTitle("Footnote quick reference", true)
	p.SetCreationDate(fixed)
	p.SetModificationDate(fixed)
	p.SetCatalogSort(true)
	p.SetMargins(20, 20, 20)
	for _, pg := range pages {
		p.AddPage()
		p.SetFont("Helvetica", "B", 16)
		p.MultiCell(0, 9, pg.heading, "", "L", false)
		p.Ln(3)
		p.SetFont("Helvetica", "", 11)
		for _, para := range pg.paras {
			p.MultiCell(0, 6, para, "", "L", false)
			p.Ln(3)
		}
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func buildDOCX(paras []docxPara) ([]byte, error) {
	var body strings.Builder
	for _, para := range paras {
		body.WriteString("<w:p>")
		if para.style != "" {
			fmt.Fprintf(&body, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, para.style)
		}
		body.WriteString(`<w:r><w:t xml:space="preserve">`)
		if err := xml.EscapeText(&body, []byte(para.text)); err != nil {
			return nil, err
		}
		body.WriteString("</w:t></w:r></w:p>")
	}
	files := []struct{ name, body string }{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", rootRels},
		{"word/_rels/document.xml.rels", documentRels},
		{"word/styles.xml", styles},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<w:document xmlns:w="` + wordNS + `"><w:body>` + body.String() + `</w:body></w:document>`},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: fixed})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(f.body)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

const wordNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
</Types>`

const rootRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`

const documentRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>`

const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
</w:styles>`
