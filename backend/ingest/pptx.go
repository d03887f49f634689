package ingest

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// extractPPTX reads a PowerPoint presentation slide by slide in the
// presentation's order: each slide is a section headed "Slide N: title"
// (its title placeholder), then its text boxes' paragraphs and its tables
// as Markdown tables, and its speaker notes in a paragraph starting
// "Speaker notes:".
func extractPPTX(f io.ReaderAt, size int64, lim limits) (extracted, error) {
	z, err := openZip(f, size, lim, "PPTX")
	if err != nil {
		return extracted{}, err
	}
	slides, err := pptxSlideParts(z, lim)
	if err != nil {
		return extracted{}, err
	}
	w := newDocWriter(lim)
	for i, part := range slides {
		data, err := z.read(part)
		if errors.Is(err, errNoEntry) {
			return extracted{}, damaged("the PPTX file lists slide %d but has no %s; re-save it from PowerPoint and scan again", i+1, part)
		}
		if err != nil {
			return extracted{}, err
		}
		s, err := pptxSlide(data, part, lim)
		if err != nil {
			return extracted{}, err
		}
		head := fmt.Sprintf("Slide %d", i+1)
		if s.title != "" {
			head += ": " + s.title
		}
		if err := w.heading(1, head); err != nil {
			return extracted{}, err
		}
		for _, b := range s.blocks {
			if b.table != nil {
				err = w.table(b.table)
			} else {
				err = w.block(b.text)
			}
			if err != nil {
				return extracted{}, err
			}
		}
		notes, err := pptxNotes(z, part, lim)
		if err != nil {
			return extracted{}, err
		}
		if notes != "" {
			if err := w.block("Speaker notes: " + notes); err != nil {
				return extracted{}, err
			}
		}
	}
	ex := w.extracted()
	if t, err := docxCoreTitle(z, lim); err == nil && t != "" {
		ex.title = t
	}
	return ex, nil
}

// pptxSlideParts lists the slides' zip paths in presentation order.
func pptxSlideParts(z *safeZip, lim limits) ([]string, error) {
	pres, err := z.read("ppt/presentation.xml")
	if errors.Is(err, errNoEntry) {
		return nil, damaged("the PPTX file has no ppt/presentation.xml, so it is not a PowerPoint presentation; re-save it from PowerPoint and scan again")
	}
	if err != nil {
		return nil, err
	}
	targets, err := packageRels(z, "ppt/_rels/presentation.xml.rels", "ppt", lim)
	if err != nil {
		return nil, err
	}
	var parts []string
	err = xmlTokens(pres, lim.maxDepth, "ppt/presentation.xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "sldId" {
			if p := targets[relID(t)]; p != "" {
				parts = append(parts, p)
			}
		}
		return nil
	})
	return parts, err
}

// pptxNotes is the text of a slide's speaker notes ("" when it has none):
// the notes page's body, without its slide image and slide number.
func pptxNotes(z *safeZip, slidePart string, lim limits) (string, error) {
	dir, file := path.Split(slidePart)
	rels, err := z.read(dir + "_rels/" + file + ".rels")
	if errors.Is(err, errNoEntry) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var notesPart string
	err = xmlTokens(rels, lim.maxDepth, dir+"_rels/"+file+".rels", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "Relationship" && strings.HasSuffix(attr(t, "Type"), "/notesSlide") {
			notesPart = path.Join(dir, attr(t, "Target"))
		}
		return nil
	})
	if err != nil || notesPart == "" {
		return "", err
	}
	data, err := z.read(notesPart)
	if errors.Is(err, errNoEntry) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	s, err := pptxSlide(data, notesPart, lim)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, b := range s.blocks {
		if b.table == nil && strings.TrimFunc(b.text, isSpace) != "" {
			parts = append(parts, strings.TrimFunc(b.text, isSpace))
		}
	}
	return strings.Join(parts, "\n"), nil
}

type pptxBlock struct {
	text  string
	table *tableRows
}

type pptxSlideText struct {
	title  string
	blocks []pptxBlock
}

// pptxSlide collects one slide's title and text in document order.
func pptxSlide(data []byte, part string, lim limits) (pptxSlideText, error) {
	var (
		s       pptxSlideText
		para    strings.Builder
		inT     bool
		isTitle bool // inside the title placeholder's shape
		// skipShape: inside a slide number, date, footer or (on a notes
		// page) slide image placeholder, which are not the slide's text
		skipShape bool
		shape     []string
		table     *tableRows
		cell      strings.Builder
		inCell    bool
		size      int
	)
	err := xmlTokens(data, lim.maxDepth, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sp":
				shape, isTitle, skipShape = nil, false, false
			case "ph":
				typ := attr(t, "type")
				isTitle = typ == "title" || typ == "ctrTitle"
				skipShape = typ == "sldNum" || typ == "sldImg" || typ == "dt" || typ == "ftr" || typ == "hdr"
			case "p":
				para.Reset()
			case "t":
				inT = true
			case "br":
				para.WriteByte('\n')
			case "tbl":
				table = &tableRows{limit: lim.maxText}
			case "tr":
				if table != nil {
					table.row()
				}
			case "tc":
				inCell = table != nil
				cell.Reset()
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inT = false
			case "p":
				switch {
				case inCell:
					if cell.Len() > 0 {
						cell.WriteByte(' ')
					}
					cell.WriteString(para.String())
				default:
					shape = append(shape, para.String())
				}
			case "tc":
				if inCell {
					inCell = false
					return table.cell(cell.String())
				}
			case "tbl":
				if table != nil {
					s.blocks = append(s.blocks, pptxBlock{table: table})
					table = nil
				}
			case "sp":
				text := strings.Join(shape, "\n")
				switch {
				case skipShape:
				case isTitle && s.title == "":
					s.title = strings.Join(strings.FieldsFunc(cleanText(text), isSpace), " ")
				default:
					s.blocks = append(s.blocks, pptxBlock{text: text})
				}
				shape, isTitle, skipShape = nil, false, false
			}
		case xml.CharData:
			if inT {
				para.Write(t)
				size += len(t)
				if size > lim.maxText {
					return textLimitError(lim.maxText)
				}
			}
		}
		return nil
	})
	return s, err
}
