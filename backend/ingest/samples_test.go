package ingest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
)

// Sample files are generated here rather than shipped, so every test input
// is readable in source.

// pdfOptions tweak makePDF.
type pdfOptions struct {
	title     string
	userPass  string // non-empty: encrypt so a password is needed to open
	ownerOnly bool   // encrypt with an owner password only (opens without one)
	raw       bool   // leave content streams uncompressed
}

// makePDF writes one page per element of pages, each line of a page drawn
// as its own text line.
func makePDF(t testing.TB, pages [][]string, o pdfOptions) []byte {
	t.Helper()
	p := fpdf.New("P", "mm", "A4", "")
	if o.title != "" {
		p.SetTitle(o.title, true)
	}
	if o.userPass != "" || o.ownerOnly {
		p.SetProtection(fpdf.CnProtectPrint, o.userPass, "owner-secret")
	}
	p.SetCompression(!o.raw)
	p.SetFont("Helvetica", "", 11)
	for _, lines := range pages {
		p.AddPage()
		for i, line := range lines {
			p.Text(20, 20+float64(i)*6, line)
		}
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type zipEntry struct {
	name, body string
	store      bool // no compression
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		method := zip.Deflate
		if e.store {
			method = zip.Store
		}
		fw, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// docxP is one paragraph of a generated DOCX: style id ("" for body).
type docxP struct{ style, text string }

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

func docxDocumentXML(paras []docxP) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
	b.WriteString(`<w:document ` + wordNS + `><w:body>`)
	for _, p := range paras {
		b.WriteString(`<w:p>`)
		if p.style != "" {
			fmt.Fprintf(&b, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, p.style)
		}
		// Split the text over two runs and turn "\t" into <w:tab/>, as Word does.
		for i, part := range strings.Split(p.text, "\t") {
			if i > 0 {
				b.WriteString(`<w:r><w:tab/></w:r>`)
			}
			half := len(part) / 2
			for half > 0 && half < len(part) && (part[half]&0xC0) == 0x80 {
				half++
			}
			fmt.Fprintf(&b, `<w:r><w:t xml:space="preserve">%s</w:t></w:r><w:r><w:t>%s</w:t></w:r>`, xmlEscape(part[:half]), xmlEscape(part[half:]))
		}
		b.WriteString(`</w:p>`)
	}
	b.WriteString(`<w:sectPr/></w:body></w:document>`)
	return b.String()
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func xmlEscape(s string) string { return xmlEscaper.Replace(s) }

// docxStylesXML declares "berschrift1" as a localized id of "heading 1"
// (German Word) and the Title style.
const docxStylesXML = `<?xml version="1.0" encoding="UTF-8"?>
<w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/></w:style>
<w:style w:type="character" w:styleId="Heading3Char"><w:name w:val="heading 3"/></w:style>
</w:styles>`

func makeDOCX(t testing.TB, paras []docxP, withStyles bool) []byte {
	t.Helper()
	entries := []zipEntry{
		{name: "[Content_Types].xml", body: `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{name: "word/document.xml", body: docxDocumentXML(paras)},
	}
	if withStyles {
		entries = append(entries, zipEntry{name: "word/styles.xml", body: docxStylesXML})
	}
	return makeZip(t, entries...)
}

// epubChapter is one spine item of a generated EPUB.
type epubChapter struct{ file, navLabel, body string }

func makeEPUB(t testing.TB, title string, chapters []epubChapter) []byte {
	t.Helper()
	return makeZip(t, epubEntries(t, title, chapters)...)
}

func epubEntries(t testing.TB, title string, chapters []epubChapter) []zipEntry {
	var manifest, spine, nav strings.Builder
	// The manifest lists chapters in reverse so the test proves spine order wins.
	for i := len(chapters) - 1; i >= 0; i-- {
		fmt.Fprintf(&manifest, `<item id="c%d" href="%s" media-type="application/xhtml+xml"/>`, i, chapters[i].file)
	}
	for i, c := range chapters {
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i)
		if c.navLabel != "" {
			fmt.Fprintf(&nav, `<li><a href="%s#start">%s</a></li>`, c.file, c.navLabel)
		}
	}
	entries := []zipEntry{
		{name: "mimetype", body: "application/epub+zip", store: true},
		{name: "META-INF/container.xml", body: `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		{name: "OEBPS/content.opf", body: `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + xmlEscape(title) + `</dc:title></metadata>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>` + manifest.String() + `</manifest>
<spine>` + spine.String() + `</spine></package>`},
		{name: "OEBPS/nav.xhtml", body: `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
<body><nav epub:type="toc"><ol>` + nav.String() + `</ol></nav></body></html>`},
	}
	for _, c := range chapters {
		file, err := url.PathUnescape(c.file) // hrefs are URL-encoded, entry names are not
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, zipEntry{name: "OEBPS/" + file, body: `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>ignored</title></head><body>` + c.body + `</body></html>`})
	}
	return entries
}

// stored marks entries uncompressed, so a fuzzer mutates their XML directly.
func stored(entries []zipEntry) []zipEntry {
	for i := range entries {
		entries[i].store = true
	}
	return entries
}

// TestEPUBIDsWithSpaces: manifest and spine ids are XML IDs, whose spaces
// around them do not count (EPUBCheck's opf-package-id-spaces-valid): the
// chapters are read, not skipped as unknown ids.
func TestEPUBIDsWithSpaces(t *testing.T) {
	entries := epubEntries(t, "Spaced", []epubChapter{{file: "one.xhtml", body: "<p>The lighthouse keeper writes his log.</p>"}})
	for i := range entries {
		if entries[i].name == "OEBPS/content.opf" {
			entries[i].body = strings.NewReplacer(`id="c0"`, `id=" c0"`, `idref="c0"`, `idref="c0 "`).Replace(entries[i].body)
		}
	}
	path := writeBytes(t, filepath.Join(t.TempDir(), "spaced.epub"), makeZip(t, entries...))
	doc, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Text, "lighthouse keeper") {
		t.Errorf("text = %q, want the chapter", doc.Text)
	}
}
