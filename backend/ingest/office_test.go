package ingest

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadOfficeFormats(t *testing.T) {
	for _, tc := range []struct {
		file     string
		data     func(testing.TB) []byte
		title    string
		text     string
		sections []string
	}{
		{"budget.odt", sampleODT, "Annual budget",
			"Budget\n\nCosts rose  sharply.\n\n| Item | Cost |\n| --- | --- |\n| Paper \\| ink | 12 EUR |\n\nNotes\n\nDone.",
			[]string{"budget/budget", "budget/budget/notes"}},
		{"prices.ods", sampleODS, "Prices",
			"Prices\n\n| Fruit |  | Price |\n| --- | --- | --- |\n| Apple |  | 3 |\n| Apple |  | 3 |\n\nEmpty\n\nStaff\n\n| x | x |\n| --- | --- |",
			[]string{"prices/prices", "prices/empty", "prices/staff"}},
		{"q.xlsx", sampleXLSX, "q",
			"Q1\n\n| Region |  | Total |\n| --- | --- | --- |\n| North | 1.5 | 12 \\| 3 |\n| TRUE |  | calc |\n\nNotes\n\n|  | rich text |\n| --- | --- |",
			[]string{"q/q1", "q/notes"}},
		{"deck.pptx", samplePPTX, "deck",
			"Slide 1: Kick-off\n\nWelcome everyone\n\nSlide 2: Results\n\n| City | Sales |\n| --- | --- |\n| Oslo | 40 |\n\nSpeaker notes: Mention the Oslo pilot.\n\nSlide 3\n\nNo title here",
			[]string{"deck/slide-1-kick-off", "deck/slide-2-results", "deck/slide-3"}},
		{"trip.rtf", func(testing.TB) []byte { return []byte(sampleRTF) }, "Trip notes",
			"Café “quotes” and € euro 😀.\n\nSecond bold line\nsame para.\n\n| Name | Age |\n| --- | --- |\n| Bo | 7 |\n\nAfter table.",
			nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := writeBytes(t, filepath.Join(t.TempDir(), tc.file), tc.data(t))
			files, skips, err := Scan([]string{path}, Options{})
			if err != nil || len(files) != 1 {
				t.Fatalf("scan: %v %v %v", files, skips, err)
			}
			doc := loadOK(t, path, Options{})
			if doc.Text != tc.text {
				t.Errorf("text =\n%q\nwant\n%q", doc.Text, tc.text)
			}
			if doc.Title != tc.title {
				t.Errorf("title = %q, want %q", doc.Title, tc.title)
			}
			if tc.sections != nil {
				if got := sectionIDs(doc); !reflect.DeepEqual(got, tc.sections) {
					t.Errorf("sections = %v, want %v", got, tc.sections)
				}
			}
		})
	}
}

func TestLoadCSV(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ file, data, text, note string }{
		{"a.csv", "name,city\r\nAnn,\"Oslo, NO\"\r\nBo,\"multi\nline\"\r\n", "| name | city |\n| --- | --- |\n| Ann | Oslo, NO |\n| Bo | multi line |", ""},
		{"b.csv", "Produkt;Preis\nKäse;3,50\n", "| Produkt | Preis |\n| --- | --- |\n| Käse | 3,50 |", ""},
		{"c.tsv", "a\tb|c\n1\t2\n3\n", "| a | b\\|c |\n| --- | --- |\n| 1 | 2 |\n| 3 |  |", ""},
		{"d.csv", "\xff\xfeh\x00,\x00\xe9\x00\n\x001\x00,\x002\x00", "| h | é |\n| --- | --- |\n| 1 | 2 |", "UTF-16LE"},
		{"e.csv", "Stadt,Einwohner\nK\xf6ln,1084831\nM\xfcnchen,1512491\nD\xfcsseldorf,629047\nN\xfcrnberg,523026\nW\xfcrzburg,128246\n",
			"| Stadt | Einwohner |\n| --- | --- |\n| Köln | 1084831 |\n| München | 1512491 |\n| Düsseldorf | 629047 |\n| Nürnberg | 523026 |\n| Würzburg | 128246 |", "Windows-1252"},
	} {
		path := writeBytes(t, filepath.Join(dir, tc.file), []byte(tc.data))
		files, _, err := Scan([]string{path}, Options{})
		if err != nil || len(files) != 1 {
			t.Fatalf("%s: scan %v %v", tc.file, files, err)
		}
		doc, notes, err := LoadWithNotes(files[0], wordCounter{}, Options{}, testNow)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		checkInvariants(t, doc.Text, doc.Sections, doc.Chunks, wordCounter{}, Options{}.WithDefaults())
		if doc.Text != tc.text {
			t.Errorf("%s: text =\n%q\nwant\n%q", tc.file, doc.Text, tc.text)
		}
		if tc.note == "" && len(notes) > 0 || tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
			t.Errorf("%s: notes %q, want one naming %q", tc.file, notes, tc.note)
		}
	}
}

func TestOfficeFormatErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file string
		data []byte
		want string
	}{
		{"x.pptx", makeZip(t, zipEntry{name: "a.txt", body: "x"}), "no ppt/presentation.xml"},
		{"x.xlsx", makeZip(t, zipEntry{name: "a.txt", body: "x"}), "no xl/workbook.xml"},
		{"x.odt", makeZip(t, zipEntry{name: "a.txt", body: "x"}), "no content.xml"},
		{"x.ods", []byte("not a zip"), "not a valid zip archive"},
		{"x.rtf", []byte("hello"), "does not start with {\\rtf"},
		{"x.csv", []byte("a,b\n\"unterminated,c\nd\"x,y\n"), ""},
		{"y.xlsx", makeXLSX(t, map[string]string{"S": `<row><c t="s"><v>7</v></c></row>`}, []string{"S"}, []string{"only"}), "shared string"},
		{"z.odt", makeODF(t, "x", strings.Repeat("<text:p>", 300), ""), "levels deep"},
		{"deep.rtf", []byte(`{\rtf1` + strings.Repeat("{", 300)), "levels deep"},
	} {
		path := writeBytes(t, filepath.Join(dir, tc.file), tc.data)
		_, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: lazy quotes should read it: %v", tc.file, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want one naming the file and %q", tc.file, err, tc.want)
		}
	}
}

func TestOfficeZipBombs(t *testing.T) {
	big := strings.Repeat("<text:p>aaaa</text:p>", 1<<17)
	data := makeODF(t, "x", "<office:text>"+big+"</office:text>", "")
	path := writeBytes(t, filepath.Join(t.TempDir(), "bomb.odt"), data)
	_, err := Load(File{Path: path}, wordCounter{}, Options{MaxFileBytes: 64 << 10}, testNow)
	if err == nil || !strings.Contains(err.Error(), "zip bomb") {
		t.Errorf("err = %v, want the zip limits to stop it", err)
	}
}

func TestDOCXTablesBecomeMarkdown(t *testing.T) {
	cell := func(s string) string { return `<w:tc><w:tcPr/><w:p><w:r><w:t>` + s + `</w:t></w:r></w:p></w:tc>` }
	doc := `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` +
		`<w:p><w:r><w:t>Before.</w:t></w:r></w:p>` +
		`<w:tbl><w:tblGrid/><w:tr><w:trPr/>` + cell("Year") + cell("Sales") + `</w:tr>` +
		`<w:tr>` + cell("2024") + `<w:tc><w:p><w:r><w:t>12</w:t></w:r></w:p><w:p><w:r><w:t>units | net</w:t></w:r></w:p>` +
		`<w:tbl><w:tr>` + cell("inner") + `</w:tr></w:tbl></w:tc></w:tr></w:tbl>` +
		`<w:p><w:r><w:t>After.</w:t></w:r></w:p><w:sectPr/></w:body></w:document>`
	path := writeBytes(t, filepath.Join(t.TempDir(), "t.docx"), makeZip(t, zipEntry{name: "word/document.xml", body: doc}))
	got := loadOK(t, path, Options{}).Text
	want := "Before.\n\n| Year | Sales |\n| --- | --- |\n| 2024 | 12 units \\| net inner |\n\nAfter."
	if got != want {
		t.Errorf("text =\n%q\nwant\n%q", got, want)
	}
}

func TestHTMLTablesBecomeMarkdown(t *testing.T) {
	page := `<h1>Report</h1><p>Before</p><table><thead><tr><th>Name<th>Score</tr></thead>
<tbody><tr><td>Ann <b>B.</b></td><td>9 | 10<br>best</td></tr><tr><td>Bo<td><table><tr><td>in</td><td>ner</td></tr></table></table><p>After</p>
<table><tr><td><h2>not a section</h2></td></tr></table>`
	path := writeBytes(t, filepath.Join(t.TempDir(), "r.html"), []byte(page))
	doc := loadOK(t, path, Options{})
	want := "Report\n\nBefore\n\n| Name | Score |\n| --- | --- |\n| Ann B. | 9 \\| 10 best |\n| Bo | in ner |\n\nAfter\n\n| not a section |\n| --- |"
	if doc.Text != want {
		t.Errorf("text =\n%q\nwant\n%q", doc.Text, want)
	}
	if got := sectionIDs(doc); !reflect.DeepEqual(got, []string{"r/report"}) {
		t.Errorf("sections = %v", got)
	}
}

// TestKeptXLSXWorkbooks reads real workbooks from the tealeg/xlsx tests.
func TestKeptXLSXWorkbooks(t *testing.T) {
	for file, want := range map[string]string{
		"empty_cells.xlsx":  "Sheet1\n\n|  | B1 | C1 | D1 |\n| --- | --- | --- | --- |\n| A2 |  | C2 | D2 |\n| A3 | B3 |  | D3 |\n| A4 | B4 | C4 |  |",
		"merged_cells.xlsx": "| 31.12.2017 | Happy New Year! |  |",
		"namespaced.xlsx":   "| w | w |  |  | w | w | w | w | w | w |  | w |",
		"testfile.xlsx":     "Tabelle1\n\n| Foo | Bar |\n| --- | --- |\n| Baz | Quuk |\n\nTabelle2\n\nTabelle3",
	} {
		doc := loadOK(t, filepath.Join("testdata", "tealeg-xlsx", file), Options{})
		if !strings.Contains(doc.Text, want) {
			t.Errorf("%s: text %q does not contain %q", file, doc.Text, want)
		}
	}
}

// TestKeptPPTXPresentations reads real presentations from the python-pptx
// tests.
func TestKeptPPTXPresentations(t *testing.T) {
	for file, want := range map[string]string{
		"sld-notes.pptx": "Slide 1\n\nSpeaker notes: Notes\n\nSlide 2",
		"tbl-cell.pptx":  "Slide 3\n\n| a | b | c |\n| --- | --- | --- |\n| d | e | f |\n| g | h | i |",
		"txt-text.pptx":  "Slide 2\n\n| Text run in table cell |\n| --- |",
	} {
		doc := loadOK(t, filepath.Join("testdata", "python-pptx", file), Options{})
		if !strings.Contains(doc.Text, want) {
			t.Errorf("%s: text %q does not contain %q", file, doc.Text, want)
		}
	}
}

// TestKeptODFDocuments reads real OpenDocument files from the odfpy tests.
func TestKeptODFDocuments(t *testing.T) {
	for file, want := range map[string]string{
		"chinese_spreadsheet.ods": "工作表1\n\n| test | test | test |\n| --- | --- | --- |",
		"countrystatistics.ods":   "| Country | Population in millions | Area km2 | Pop. density People/km2 |\n| --- | --- | --- | --- |\n| Austria | 8.3 | 83,858 | 99 |",
		"definitionlists.odt":     "liste 1\n\nliste 2\n\nnummer 1\n\nnummer 2",
	} {
		doc := loadOK(t, filepath.Join("testdata", "odfpy", file), Options{})
		if !strings.Contains(doc.Text, want) {
			t.Errorf("%s: text %q does not contain %q", file, doc.Text, want)
		}
	}
	_, err := Load(File{Path: filepath.Join("testdata", "odfpy", "nasty.odt")}, wordCounter{}, Options{}, testNow)
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "not well-formed XML") {
		t.Errorf("nasty.odt: err = %v", err)
	}
}

// TestNewFormatsInExtractorChild: the new formats are parsed in the
// extractor child like DOCX and EPUB, with the same text and the charset
// note carried back.
func TestNewFormatsInExtractorChild(t *testing.T) {
	setIsolation(t, true)
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"a.rtf": []byte(sampleRTF), "b.pptx": samplePPTX(t), "c.xlsx": sampleXLSX(t),
		"d.ods": sampleODS(t), "e.odt": sampleODT(t), "f.csv": []byte("Stadt;Zahl\nK\xf6ln;1\n"),
	} {
		path := writeBytes(t, filepath.Join(dir, name), data)
		setIsolation(t, false)
		local, localNotes, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
		setIsolation(t, true)
		if err != nil {
			t.Fatalf("%s in-process: %v", name, err)
		}
		child, childNotes, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
		if err != nil {
			t.Fatalf("%s in the child: %v", name, err)
		}
		if child.Text != local.Text || child.Title != local.Title || !reflect.DeepEqual(childNotes, localNotes) {
			t.Errorf("%s: child gave %q %q %q, in-process %q %q %q", name, child.Title, child.Text, childNotes, local.Title, local.Text, localNotes)
		}
	}
	extractors.mu.Lock()
	idle := len(extractors.idle)
	extractors.mu.Unlock()
	if idle == 0 {
		t.Error("no extractor child was used")
	}
}
