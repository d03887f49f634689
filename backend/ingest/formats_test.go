package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
)

func writeBytes(t testing.TB, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadOK loads path and checks the invariants every document must satisfy.
func loadOK(t *testing.T, path string, opts Options) corpus.Document {
	t.Helper()
	doc, err := Load(File{Path: path}, wordCounter{}, opts, testNow)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	checkInvariants(t, doc.Text, doc.Sections, doc.Chunks, wordCounter{}, opts.WithDefaults())
	data, _ := os.ReadFile(path)
	if doc.Rev != corpus.Rev(data) || doc.Size != int64(len(data)) || doc.DocID != corpus.DocID(path) {
		t.Errorf("identity: rev %s (want %s) size %d", doc.Rev, corpus.Rev(data), doc.Size)
	}
	return doc
}

func sectionIDs(doc corpus.Document) []string {
	var ids []string
	for _, s := range doc.Sections {
		ids = append(ids, s.SectionID)
	}
	return ids
}

// sectionText is the stored text of the section with the given id.
func sectionText(t *testing.T, doc corpus.Document, id string) string {
	t.Helper()
	for _, s := range doc.Sections {
		if s.SectionID == id {
			return string([]rune(doc.Text)[s.Start:s.End])
		}
	}
	t.Fatalf("no section %q in %v", id, sectionIDs(doc))
	return ""
}

const sampleHTML = `<!DOCTYPE html>
<html><head><title>Field &amp; Guide</title>
<style>body { color: red } .secret-style {}</style>
<script>var secretScript = "<h1>not a heading</h1>";</script>
</head>
<body>
<noscript>secret noscript</noscript>
<template><h2>secret template</h2></template>
<p>Intro   text with
 an entity: caf&eacute; &lt;tag&gt; &#x1F600;</p>
<h1>Getting <em>Started</em></h1>
<p>First paragraph.<br>Second line.</p>
<ul><li>one</li><li>two<li>three</ul>
<h2>Install</h2>
<div><div><p>Run the installer.</p></div></div>
<pre>  keep
    spacing</pre>
<h2>Install</h2>
<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
<h3></h3>
<svg><title>icon</title><text>svg text</text></svg>
<script src="x.js"></script>
</body></html>`

func TestLoadHTML(t *testing.T) {
	path := writeBytes(t, filepath.Join(t.TempDir(), "guide.html"), []byte(sampleHTML))
	doc := loadOK(t, path, Options{})
	if doc.Format != "html" || doc.Title != "Field & Guide" {
		t.Errorf("format %q title %q", doc.Format, doc.Title)
	}
	for _, secret := range []string{"secret", "color", "not a heading", "icon", "svg text", "<" + "em>"} {
		if strings.Contains(doc.Text, secret) {
			t.Errorf("text contains %q:\n%s", secret, doc.Text)
		}
	}
	want := []string{"guide", "guide/getting-started", "guide/getting-started/install", "guide/getting-started/install-2"}
	if got := sectionIDs(doc); !reflect.DeepEqual(got, want) {
		t.Fatalf("sections = %v, want %v", got, want)
	}
	if got := sectionText(t, doc, "guide"); got != "Intro text with an entity: café <tag> 😀\n\n" {
		t.Errorf("intro = %q", got)
	}
	if got := sectionText(t, doc, "guide/getting-started"); got != "Getting Started\n\nFirst paragraph.\nSecond line.\n\none\ntwo\nthree\n\n" {
		t.Errorf("getting started = %q", got)
	}
	if got := sectionText(t, doc, "guide/getting-started/install"); got != "Install\n\nRun the installer.\n\n  keep\n    spacing\n\n" {
		t.Errorf("install = %q", got)
	}
	if got := sectionText(t, doc, "guide/getting-started/install-2"); got != "Install\n\n| a | b |\n| --- | --- |\n| c | d |" { // tables are Markdown tables (issue 21)
		t.Errorf("install-2 = %q", got)
	}
	if doc.Sections[1].Title != "Getting Started" || doc.Sections[1].Level != 1 || doc.Sections[2].Level != 2 {
		t.Errorf("section titles/levels: %+v", doc.Sections)
	}
	for _, c := range doc.Chunks {
		if c.Page != 0 {
			t.Errorf("HTML chunk has page %d", c.Page)
		}
	}
}

func TestHTMLTitleFallsBackToFirstH1(t *testing.T) {
	path := writeBytes(t, filepath.Join(t.TempDir(), "x.htm"), []byte("<h2>Sub</h2><p>a</p><h1>Main</h1><p>b</p>"))
	doc := loadOK(t, path, Options{})
	if doc.Title != "Main" {
		t.Errorf("title = %q", doc.Title)
	}
	if got := sectionIDs(doc); !reflect.DeepEqual(got, []string{"x/sub", "x/main"}) {
		t.Errorf("sections = %v", got)
	}
}

func TestLoadHTMLCharsets(t *testing.T) {
	dir := t.TempDir()
	latin := writeBytes(t, filepath.Join(dir, "latin.html"), []byte(`<meta charset="windows-1252"><p>caf`+"\xe9"+` cr`+"\xe8"+`me</p>`))
	doc, notes, err := LoadWithNotes(File{Path: latin}, wordCounter{}, Options{}, testNow)
	if err != nil || doc.Text != "café crème" || len(notes) != 1 || !strings.Contains(notes[0], "windows-1252") || doc.Charset != "windows-1252" {
		t.Errorf("windows-1252: text %q charset %q notes %v err %v", doc.Text, doc.Charset, notes, err)
	}

	broken := writeBytes(t, filepath.Join(dir, "broken.html"), []byte("<meta charset=utf-8><p>ok \xff bad</p>"))
	doc, notes, err = LoadWithNotes(File{Path: broken}, wordCounter{}, Options{}, testNow)
	if err != nil || doc.Text != "ok \uFFFD bad" || len(notes) != 1 || !strings.Contains(notes[0], "not valid UTF-8 at byte") || doc.Charset != "" {
		t.Errorf("invalid UTF-8: text %q notes %v err %v", doc.Text, notes, err)
	}

	utf16 := writeBytes(t, filepath.Join(dir, "utf16.html"), []byte("\xff\xfe<\x00p\x00>\x00h\x00i\x00"))
	doc, notes, err = LoadWithNotes(File{Path: utf16}, wordCounter{}, Options{}, testNow)
	if err != nil || doc.Text != "hi" || len(notes) != 0 || doc.Charset == "" {
		t.Errorf("UTF-16 with BOM: text %q charset %q notes %v err %v", doc.Text, doc.Charset, notes, err)
	}
}

func TestLoadHTMLDeepNesting(t *testing.T) {
	deep := strings.Repeat("<div>", 5000) + "x" + strings.Repeat("</div>", 5000)
	path := writeBytes(t, filepath.Join(t.TempDir(), "deep.html"), []byte(deep))
	_, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "levels deep") {
		t.Errorf("err = %v", err)
	}
	// Many unclosed <p> and <li> are ordinary sloppy HTML, not deep nesting.
	sloppy := "<ul>" + strings.Repeat("<li><p>item", 2000) + "</ul>"
	path = writeBytes(t, filepath.Join(t.TempDir(), "sloppy.html"), []byte(sloppy))
	loadOK(t, path, Options{})
}

// checkPages checks that every chunk's text lies inside its page's text.
func checkPages(t *testing.T, doc corpus.Document, pages [][]string) {
	t.Helper()
	for i, c := range doc.Chunks {
		if c.Page < 1 || c.Page > len(pages) {
			t.Fatalf("chunk %d: page %d out of range", i, c.Page)
		}
		page := strings.Join(pages[c.Page-1], "\n")
		if !strings.Contains(page, c.Text) {
			t.Fatalf("chunk %d (page %d) %q is not on that page:\n%s", i, c.Page, c.Text, page)
		}
	}
}

func TestLoadPDF(t *testing.T) {
	pages := [][]string{
		{"Quarterly report", "Revenue grew in every region."},
		{},
		{"Page three starts here.", "It has a second line", "and a third line about engines."},
		{"Last page."},
	}
	for i := 0; i < 40; i++ { // enough text on page 3 for several chunks
		pages[2] = append(pages[2], fmt.Sprintf("Line %d of the long page.", i))
	}
	path := writeBytes(t, filepath.Join(t.TempDir(), "report.pdf"), makePDF(t, pages, pdfOptions{title: "Q3 Report"}))
	doc := loadOK(t, path, Options{ChunkTokens: 40, OverlapTokens: 5})
	if doc.Format != "pdf" || doc.Title != "Q3 Report" {
		t.Errorf("format %q title %q", doc.Format, doc.Title)
	}
	want := "Quarterly report\nRevenue grew in every region.\n\n\n\nPage three starts here.\nIt has a second line\n"
	if !strings.HasPrefix(doc.Text, want) || !strings.HasSuffix(doc.Text, "\n\nLast page.") {
		t.Errorf("text:\n%q", doc.Text)
	}
	checkPages(t, doc, pages)
	perPage := map[int]int{}
	for _, c := range doc.Chunks {
		perPage[c.Page]++
	}
	if perPage[1] != 1 || perPage[2] != 0 || perPage[3] < 3 || perPage[4] != 1 {
		t.Errorf("chunks per page = %v", perPage)
	}
	if got := sectionIDs(doc); !reflect.DeepEqual(got, []string{"report"}) {
		t.Errorf("sections = %v", got)
	}
	// Unchanged file, same ids.
	again := loadOK(t, path, Options{ChunkTokens: 40, OverlapTokens: 5})
	if !reflect.DeepEqual(doc, again) {
		t.Error("reloading the PDF gave a different document")
	}
}

func TestLoadPDFErrors(t *testing.T) {
	dir := t.TempDir()
	pages := [][]string{{"secret text"}}

	enc := writeBytes(t, filepath.Join(dir, "locked.pdf"), makePDF(t, pages, pdfOptions{userPass: "pw"}))
	_, err := Load(File{Path: enc}, wordCounter{}, Options{}, testNow)
	if !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), enc) || !strings.Contains(err.Error(), "is encrypted; remove the password and scan again") {
		t.Errorf("encrypted: err = %v", err)
	}

	// Encrypted with only an owner password: the empty user password is
	// accepted, but the built-in reader cannot decrypt this generator's RC4
	// streams; Poppler's pdftotext reads it (TestHardPDFsAreReadByPoppler),
	// and without it the user gets the "encrypted" advice and what to
	// install (TestWithoutPdftotextTheErrorSaysWhatToInstall), not "damaged".

	full := makePDF(t, [][]string{{"a"}, {"b"}}, pdfOptions{})
	for name, data := range map[string][]byte{
		"truncated.pdf": full[:len(full)/2],
		"garbage.pdf":   []byte("%PDF-1.4\nthis is not really a pdf\n%%EOF\n"),
		"empty.pdf":     nil,
	} {
		path := writeBytes(t, filepath.Join(dir, name), data)
		_, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestLoadDOCX(t *testing.T) {
	paras := []docxP{
		{"", "Preface before any heading."},
		{"Titel", "Annual Plan"},
		{"berschrift1", "Goals"},
		{"", "Grow\tsteadily."},
		{"Heading2", "Hiring"},
		{"", ""},
		{"Quote", "Hire & train."},
		{"Heading3Char", "Not a heading (character style)"},
		{"berschrift1", "Budget"},
		{"", "Ünïcödé text stays intact."},
	}
	path := writeBytes(t, filepath.Join(t.TempDir(), "plan.docx"), makeDOCX(t, paras, true))
	doc := loadOK(t, path, Options{})
	if doc.Format != "docx" || doc.Title != "Annual Plan" {
		t.Errorf("format %q title %q", doc.Format, doc.Title)
	}
	want := []string{"plan", "plan/annual-plan", "plan/goals", "plan/goals/hiring", "plan/budget"}
	if got := sectionIDs(doc); !reflect.DeepEqual(got, want) {
		t.Fatalf("sections = %v, want %v", got, want)
	}
	if got := sectionText(t, doc, "plan/goals/hiring"); got != "Hiring\n\nHire & train.\n\nNot a heading (character style)\n\n" {
		t.Errorf("hiring = %q", got)
	}
	// "Annual Plan" holds only its heading, so it opens the next section
	// (chunker v2: no chunk is a bare heading).
	if got := sectionText(t, doc, "plan/goals"); got != "Annual Plan\n\nGoals\n\nGrow\tsteadily.\n\n" {
		t.Errorf("goals = %q", got)
	}

	// Without styles.xml, English style ids still work.
	path = writeBytes(t, filepath.Join(t.TempDir(), "bare.docx"), makeDOCX(t, []docxP{{"Heading1", "Only"}, {"", "body"}}, false))
	doc = loadOK(t, path, Options{})
	if got := sectionIDs(doc); !reflect.DeepEqual(got, []string{"bare/only"}) || doc.Title != "Only" {
		t.Errorf("bare: sections %v title %q", got, doc.Title)
	}
}

func TestLoadEPUB(t *testing.T) {
	chapters := []epubChapter{
		{file: "text/ch1.xhtml", navLabel: "Chapter One", body: `<h1>The Beginning</h1><p>It was a dark night.</p><h2>Later</h2><p>Dawn came.</p>`},
		{file: "text/ch%202.xhtml", navLabel: "Chapter Two", body: `<p>No heading here.</p><script>secret()</script>`},
		{file: "text/ch3.xhtml", body: `<section><p>Nor here.</p></section>`},
		{file: "text/empty.xhtml", body: ` `},
	}
	data := makeEPUB(t, "A Novel", chapters)
	path := writeBytes(t, filepath.Join(t.TempDir(), "novel.epub"), data)
	doc := loadOK(t, path, Options{})
	if doc.Format != "epub" || doc.Title != "A Novel" {
		t.Errorf("format %q title %q", doc.Format, doc.Title)
	}
	want := []string{"novel/the-beginning", "novel/the-beginning/later", "novel/chapter-two", "novel/ch3"}
	if got := sectionIDs(doc); !reflect.DeepEqual(got, want) {
		t.Fatalf("sections = %v, want %v", got, want)
	}
	wantText := "The Beginning\n\nIt was a dark night.\n\nLater\n\nDawn came.\n\nNo heading here.\n\nNor here."
	if doc.Text != wantText {
		t.Errorf("text = %q", doc.Text)
	}
}

func TestLoadZipErrors(t *testing.T) {
	dir := t.TempDir()
	check := func(name string, data []byte, kind error, phrase string) {
		t.Helper()
		path := writeBytes(t, filepath.Join(dir, name), data)
		_, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
		if !errors.Is(err, kind) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), phrase) {
			t.Errorf("%s: err = %v, want %v mentioning %q", name, err, kind, phrase)
		}
		if err != nil && strings.Contains(err.Error(), "zip: not a valid zip file") {
			t.Errorf("%s: %v: the library's own wording repeats the message", name, err)
		}
	}
	check("corrupt.docx", []byte("PK\x03\x04 definitely not a zip"), ErrDamaged, "not a valid zip archive")
	check("corrupt.epub", makeDOCX(t, nil, false)[:40], ErrDamaged, "not a valid zip archive")
	// A password-protected DOCX is an OLE2 compound file holding the
	// encrypted zip (Tika's testWORD_protected_passtika.docx); without
	// that stream it is an old binary document renamed.
	ole := append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), make([]byte, 504)...)
	check("protected.docx", append(bytes.Clone(ole), "E\x00n\x00c\x00r\x00y\x00p\x00t\x00e\x00d\x00P\x00a\x00c\x00k\x00a\x00g\x00e\x00"...), ErrEncrypted, "password-protected")
	check("renamed.xlsx", ole, ErrDamaged, "older binary Office document")
	// A password-protected ODT keeps its zip; the manifest gives each
	// encrypted entry's key data and content.xml is ciphertext.
	check("protected.odt", makeZip(t,
		zipEntry{name: "mimetype", body: "application/vnd.oasis.opendocument.text"},
		zipEntry{name: "META-INF/manifest.xml", body: `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="3351">
  <manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="x">
   <manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="y"/>
  </manifest:encryption-data>
 </manifest:file-entry>
</manifest:manifest>`},
		zipEntry{name: "content.xml", body: "\x8f\x02\xd1 ciphertext"}), ErrEncrypted, "password-protected")
	check("nodoc.docx", makeZip(t, zipEntry{name: "hello.txt", body: "hi"}), ErrDamaged, "no word/document.xml")
	check("nocontainer.epub", makeZip(t, zipEntry{name: "mimetype", body: "application/epub+zip"}), ErrDamaged, "no META-INF/container.xml")
	check("badxml.docx", makeZip(t, zipEntry{name: "word/document.xml", body: "<w:document><w:body>"}), ErrDamaged, "not well-formed XML")

	// 3 MiB of zeros deflates to ~3 KiB: a classic bomb.
	bomb := makeZip(t, zipEntry{name: "word/document.xml", body: "<d>" + strings.Repeat("0", 3<<20) + "</d>"})
	check("bomb.docx", bomb, ErrUnsafe, "possible zip bomb")

	deep := `<w:document ` + wordNS + `>` + strings.Repeat("<w:x>", 1000) + strings.Repeat("</w:x>", 1000) + `</w:document>`
	check("deep.docx", makeZip(t, zipEntry{name: "word/document.xml", body: deep}), ErrUnsafe, "levels deep")

	many := []zipEntry{{name: "word/document.xml", body: docxDocumentXML(nil)}}
	for i := 0; i < 10001; i++ {
		many = append(many, zipEntry{name: fmt.Sprintf("f%d", i), store: true})
	}
	check("many.docx", makeZip(t, many...), ErrUnsafe, "entries")

	// The total inflated size is capped across entries, whatever each ratio.
	small := makeDOCX(t, []docxP{{"", strings.Repeat("word ", 100)}}, true)
	z, err := openZip(bytes.NewReader(small), int64(len(small)), limits{maxUnzipped: 600, maxRatio: 100, ratioFloor: 1 << 20, maxEntries: 10}, "DOCX")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.read("word/document.xml"); !errors.Is(err, ErrUnsafe) {
		t.Errorf("total cap: err = %v", err)
	}
}

func TestLoadTextLimit(t *testing.T) {
	lim := limitsFor(Options{}.WithDefaults())
	lim.maxText = 100
	src := "<p>" + strings.Repeat("word ", 100) + "</p>"
	_, err := extractReader([]byte(src), "html", lim)
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "extracted text is larger than") {
		t.Errorf("html text limit: err = %v", err)
	}
	pdfData := makePDF(t, [][]string{{strings.Repeat("word ", 30)}}, pdfOptions{})
	_, err = extractReader(pdfData, "pdf", lim)
	if !errors.Is(err, ErrUnsafe) {
		t.Errorf("pdf text limit: err = %v", err)
	}
}

func TestScanRichFormats(t *testing.T) {
	root := t.TempDir()
	writeBytes(t, filepath.Join(root, "a.pdf"), makePDF(t, [][]string{{"x"}}, pdfOptions{}))
	writeBytes(t, filepath.Join(root, "b.docx"), makeDOCX(t, []docxP{{"", "x"}}, false))
	writeBytes(t, filepath.Join(root, "c.epub"), makeEPUB(t, "c", []epubChapter{{file: "c.xhtml", body: "x"}}))
	writeBytes(t, filepath.Join(root, "d.HTM"), []byte("<p>x"))
	writeBytes(t, filepath.Join(root, "e.xhtml"), []byte("<p>x</p>"))
	writeBytes(t, filepath.Join(root, "f.html"), []byte("<p>x</p>"))
	writeBytes(t, filepath.Join(root, "g.doc"), []byte("old word"))
	writeBytes(t, filepath.Join(root, "h.html"), []byte("<p>x\x00</p>"))
	files, skips, err := Scan([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f.Path)+":"+f.Format)
	}
	want := []string{"a.pdf:pdf", "b.docx:docx", "c.epub:epub", "d.HTM:html", "e.xhtml:html", "f.html:html"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skips {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	if reasons["g.doc"] != "unsupported file type .doc" || reasons["h.html"] != "binary file" {
		t.Errorf("skips = %v", reasons)
	}
	for _, f := range files {
		loadOK(t, f.Path, Options{})
	}
}

// TestLoadConcurrently loads every format from many goroutines at once (run
// with -race) and expects exactly the sequential results.
func TestLoadConcurrently(t *testing.T) {
	dir := t.TempDir()
	paths := []string{
		writeBytes(t, filepath.Join(dir, "a.html"), []byte(sampleHTML)),
		writeBytes(t, filepath.Join(dir, "b.pdf"), makePDF(t, [][]string{{"one", "two"}, {"three"}}, pdfOptions{})),
		writeBytes(t, filepath.Join(dir, "c.docx"), makeDOCX(t, []docxP{{"Heading1", "H"}, {"", "body"}}, true)),
		writeBytes(t, filepath.Join(dir, "d.epub"), makeEPUB(t, "D", []epubChapter{{file: "x.xhtml", navLabel: "X", body: "<p>text</p>"}})),
		writeBytes(t, filepath.Join(dir, "e.md"), []byte("# T\n\nbody\n")),
	}
	want := make([]corpus.Document, len(paths))
	for i, p := range paths {
		want[i] = loadOK(t, p, Options{})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(paths))
	for g := 0; g < 8; g++ {
		for i, p := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				doc, err := Load(File{Path: p}, wordCounter{}, Options{}, testNow)
				if err != nil || !reflect.DeepEqual(doc, want[i]) {
					errs <- fmt.Errorf("%s: concurrent load differs (err %v)", p, err)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
