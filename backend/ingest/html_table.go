package ingest

import (
	"golang.org/x/net/html/atom"
)

// htmlTable turns the outermost open <table> of an HTML page into a
// Markdown table: while it is open the writer's output goes to a scratch
// buffer holding the current cell, and each finished cell joins the rows.
// A nested table's text joins the cell it sits in. Cells are closed when
// the next cell or row starts or the table ends, as browsers do.
type htmlTable struct {
	idx    int // stack index of the table element; -1 when none is open
	rows   tableRows
	saved  textBuilder // the page's output while the table is open
	inCell bool
}

func (t *htmlTable) open() bool { return t.idx >= 0 }

// start begins the outermost table at stack index idx.
func (t *htmlTable) start(w *htmlWriter, idx, maxText int) error {
	if err := w.flush(); err != nil {
		return err
	}
	t.idx, t.inCell = idx, false
	t.rows = tableRows{limit: maxText}
	t.saved = w.out
	w.out = textBuilder{limit: maxText}
	w.pending, w.space = 0, false
	return nil
}

// element handles a <tr>, <td> or <th> start tag; only the outermost
// table's own rows and cells count (the nearest table in stack is it).
func (t *htmlTable) element(w *htmlWriter, stack []atom.Atom, a atom.Atom) error {
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == atom.Table {
			if i != t.idx {
				return nil
			}
			break
		}
	}
	if err := t.endCell(w); err != nil {
		return err
	}
	switch a {
	case atom.Tr:
		t.rows.row()
	case atom.Td, atom.Th:
		t.inCell = true
	}
	return nil
}

// endCell moves the scratch buffer's text into the open cell.
func (t *htmlTable) endCell(w *htmlWriter) error {
	text := string(w.out.b)
	w.out.b = w.out.b[:0]
	w.pending, w.space = 0, false
	if !t.inCell {
		return nil
	}
	t.inCell = false
	return t.rows.cell(text)
}

// end closes the table and writes it to the page as a block.
func (t *htmlTable) end(w *htmlWriter) error {
	if err := t.endCell(w); err != nil {
		return err
	}
	w.out = t.saved
	t.saved, t.idx = textBuilder{}, -1
	md := t.rows.markdown()
	t.rows = tableRows{}
	if md == "" {
		return nil
	}
	w.brk(2)
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.out.write(md); err != nil {
		return err
	}
	w.brk(2)
	return nil
}
