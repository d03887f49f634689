package ingest

import "strings"

// docWriter builds the text of a document made of paragraphs, headings and
// tables, separated by blank lines, within the text limit.
type docWriter struct {
	out      textBuilder
	headings []heading
	firstH1  string
}

func newDocWriter(lim limits) *docWriter { return &docWriter{out: textBuilder{limit: lim.maxText}} }

// block adds a paragraph; blank ones are dropped.
func (w *docWriter) block(s string) error {
	s = strings.TrimFunc(cleanText(s), isSpace)
	if s == "" {
		return nil
	}
	if len(w.out.b) > 0 && w.out.write("\n\n") != nil {
		return textLimitError(w.out.limit)
	}
	if w.out.write(s) != nil {
		return textLimitError(w.out.limit)
	}
	return nil
}

// heading adds a paragraph that starts a section.
func (w *docWriter) heading(level int, s string) error {
	title := strings.Join(strings.FieldsFunc(cleanText(s), isSpace), " ")
	if title == "" {
		return nil
	}
	start := len(w.out.b)
	if start > 0 {
		start += 2
	}
	if err := w.block(title); err != nil {
		return err
	}
	w.headings = append(w.headings, heading{start: start, level: max(level, 1), title: title})
	if w.firstH1 == "" && level <= 1 {
		w.firstH1 = title
	}
	return nil
}

// table adds a table as Markdown.
func (w *docWriter) table(t *tableRows) error { return w.block(t.markdown()) }

func (w *docWriter) extracted() extracted {
	return extracted{text: string(w.out.b), headings: w.headings}
}
