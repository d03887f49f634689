package ingest

import (
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// docxStyle says what a paragraph style means for sections.
type docxStyle struct {
	level int  // heading level 1-9, 0 for body text
	title bool // the document's Title style
}

var headingName = regexp.MustCompile(`^heading\s*([1-9])$`)

// styleMeaning interprets a style by its name ("heading 1", "Title") or id
// ("Heading1"); Word stores the English name even when the id is localized
// (e.g. "berschrift1" in German documents).
func styleMeaning(nameOrID string) docxStyle {
	s := strings.ToLower(strings.TrimSpace(nameOrID))
	if s == "title" {
		return docxStyle{level: 1, title: true}
	}
	if m := headingName.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return docxStyle{level: n}
	}
	return docxStyle{}
}

// extractDOCX reads word/document.xml paragraph by paragraph; paragraphs
// styled as headings (by style name, style id or outline level) start
// sections.
func extractDOCX(f io.ReaderAt, size int64, lim limits) (extracted, error) {
	z, err := openZip(f, size, lim, "DOCX")
	if err != nil {
		return extracted{}, err
	}
	doc, err := z.read("word/document.xml")
	if errors.Is(err, errNoEntry) {
		return extracted{}, damaged("the DOCX file has no word/document.xml, so it is not a Word document; re-save it from Word and scan again")
	}
	if err != nil {
		return extracted{}, err
	}
	styles, err := docxStyles(z, lim)
	if err != nil {
		return extracted{}, err
	}

	var (
		ex     extracted
		out    = textBuilder{limit: lim.maxText}
		paras  []*docxPara // open paragraphs (text boxes nest them)
		inText bool
		firstH string
		tables docxTables // open tables; their paragraphs become cells
	)
	err = xmlTokens(doc, lim.maxDepth, "word/document.xml", func(tok xml.Token) error {
		var p *docxPara
		if len(paras) > 0 {
			p = paras[len(paras)-1]
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p":
				paras = append(paras, &docxPara{})
			case "pStyle":
				if p != nil {
					p.style = attr(t, "val")
				}
			case "outlineLvl":
				if p != nil {
					if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 9 {
						p.outline = n + 1
					}
				}
			case "t":
				inText = true
			case "tbl", "tr", "tc":
				tables.start(t.Name.Local, lim)
			case "tab":
				if p != nil {
					p.text.WriteByte('\t')
				}
			case "br", "cr":
				if p != nil {
					p.text.WriteByte('\n')
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "tc":
				return tables.endCell()
			case "tbl":
				md := tables.end()
				if md == "" {
					return nil
				}
				if len(out.b) > 0 && out.write("\n\n") != nil || out.write(md) != nil {
					return textLimitError(lim.maxText)
				}
			case "p":
				if p == nil {
					return nil
				}
				paras = paras[:len(paras)-1]
				text := strings.TrimFunc(cleanText(p.text.String()), isSpace)
				if text == "" {
					return nil
				}
				if len(paras) == 0 && tables.open() {
					return tables.text(text)
				}
				if len(out.b) > 0 && out.write("\n\n") != nil {
					return textLimitError(lim.maxText)
				}
				st := styles[p.style]
				if st == (docxStyle{}) {
					st = styleMeaning(p.style)
				}
				if st.level == 0 {
					st.level = p.outline
				}
				if st.level > 0 {
					title := strings.Join(strings.FieldsFunc(text, isSpace), " ")
					ex.headings = append(ex.headings, heading{start: len(out.b), level: st.level, title: title})
					if st.title && ex.title == "" {
						ex.title = title
					}
					if firstH == "" && st.level == 1 {
						firstH = title
					}
				}
				if out.write(text) != nil {
					return textLimitError(lim.maxText)
				}
			}
		case xml.CharData:
			if inText && p != nil {
				p.text.Write(t)
				if p.text.Len() > lim.maxText {
					return textLimitError(lim.maxText)
				}
			}
		}
		return nil
	})
	if err != nil {
		return extracted{}, err
	}
	ex.text = string(out.b)
	if t, err := docxCoreTitle(z, lim); err == nil && t != "" {
		ex.title = t
	}
	if ex.title == "" {
		ex.title = firstH
	}
	return ex, nil
}

type docxPara struct {
	style   string
	outline int
	text    strings.Builder
}

// docxStyles maps paragraph style ids to their meaning from word/styles.xml,
// which is optional.
func docxStyles(z *safeZip, lim limits) (map[string]docxStyle, error) {
	styles := map[string]docxStyle{}
	data, err := z.read("word/styles.xml")
	if errors.Is(err, errNoEntry) {
		return styles, nil
	}
	if err != nil {
		return nil, err
	}
	var id string
	var cur docxStyle
	err = xmlTokens(data, lim.maxDepth, "word/styles.xml", func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				id, cur = "", docxStyle{}
				if attr(t, "type") == "paragraph" {
					id = attr(t, "styleId")
				}
			case "name":
				if m := styleMeaning(attr(t, "val")); m.level > 0 {
					cur = m
				}
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 9 && cur.level == 0 {
					cur.level = n + 1
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" && id != "" && cur.level > 0 {
				styles[id] = cur
			}
		}
		return nil
	})
	return styles, err
}

// docxCoreTitle is the title from the document properties, if any.
func docxCoreTitle(z *safeZip, lim limits) (string, error) {
	return zipPartTitle(z, "docProps/core.xml", lim)
}

// zipPartTitle is the text of the first-level <title> element of an XML
// part of a zip-based document (DOCX core properties, ODF meta.xml, PPTX and
// XLSX core properties), cleaned; "" when it has none.
func zipPartTitle(z *safeZip, part string, lim limits) (string, error) {
	data, err := z.read(part)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	in := false
	err = xmlTokens(data, lim.maxDepth, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			in = t.Name.Local == "title"
		case xml.EndElement:
			in = false
		case xml.CharData:
			if in {
				b.Write(t)
			}
		}
		return nil
	})
	return cleanTitle(b.String()), err
}

// docxTables collects the paragraphs of open w:tbl elements as cells of
// the outermost table (a nested table's text joins its outer cell), which
// is written as a Markdown table when it closes.
type docxTables struct {
	depth int
	rows  *tableRows
	cell  strings.Builder
}

func (d *docxTables) open() bool { return d.depth > 0 }

func (d *docxTables) start(name string, lim limits) {
	switch {
	case name == "tbl":
		d.depth++
		if d.depth == 1 {
			d.rows = &tableRows{limit: lim.maxText}
		}
	case d.depth != 1:
	case name == "tr":
		d.rows.row()
	case name == "tc":
		d.cell.Reset()
	}
}

func (d *docxTables) text(s string) error {
	if d.cell.Len() > 0 {
		d.cell.WriteByte(' ')
	}
	d.cell.WriteString(s)
	if d.rows != nil && d.cell.Len() > d.rows.limit {
		return textLimitError(d.rows.limit)
	}
	return nil
}

func (d *docxTables) endCell() error {
	if d.depth != 1 {
		return nil
	}
	s := d.cell.String()
	d.cell.Reset()
	return d.rows.cell(s)
}

// end closes a table, returning the outermost one's Markdown ("" while
// tables remain open).
func (d *docxTables) end() string {
	if d.depth == 0 {
		return ""
	}
	d.depth--
	if d.depth > 0 {
		return ""
	}
	md := d.rows.markdown()
	d.rows = nil
	return md
}
