package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Scanned PDF pages have no text layer: the PDF reader returns nothing for
// them. When Tesseract is installed, such a page is rendered to an image by
// Poppler's pdftoppm and read by Tesseract, both run as programs under the
// parser child's caps (childproc.go), so their memory and crashes stay out
// of Footnote. Without them the page is named in a note saying what to
// install, never left silently empty. Tesseract reads a 300 dpi page in a
// few seconds on one core; after a page that overruns a cap the file's
// other scanned pages are left unread, so one bad scan cannot hold ingest
// for its every page.

// ocrDPI is the rendering resolution Tesseract is tuned for (its docs
// recommend at least 300 dpi for body text).
const ocrDPI = 300

// PageReader reads the text of one page of a PDF file by OCR.
type PageReader interface {
	// ReadPage returns the text of page (1-based) of the PDF at path.
	ReadPage(ctx context.Context, path string, page int) (string, error)
	// Name says which engine read the page, for the document's record.
	Name() string
}

// tesseract is the PageReader of the Tesseract and pdftoppm programs.
type tesseract struct {
	tesseract, pdftoppm string
	langs               string    // "-l" argument, e.g. "eng+kor"
	caps                childCaps // each program run's limits
}

// ocrMissing says what to install when no OCR engine is available.
const ocrMissing = "install Tesseract to read it"

// findOCR returns the machine's OCR engine, running its programs under
// caps, or nil and what to install. Programs are looked up on each call,
// so installing Tesseract takes effect at the next scan without
// restarting Footnote.
var findOCR = func(caps childCaps) (PageReader, string) {
	tess, err := exec.LookPath("tesseract")
	if err != nil {
		return nil, ocrMissing
	}
	ppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		return nil, "install Poppler's pdftoppm (poppler-utils) to read it with Tesseract"
	}
	return &tesseract{tesseract: tess, pdftoppm: ppm, langs: tesseractLangs(tess), caps: caps}, ""
}

// tesseractLangs picks the installed languages Footnote's users write in:
// English and Korean when present, else whatever is installed (at most
// three; each added language slows recognition).
func tesseractLangs(bin string) string {
	out, err := exec.Command(bin, "--list-langs").Output()
	if err != nil {
		return "eng"
	}
	var have []string
	for _, line := range strings.Split(string(out), "\n")[1:] {
		if l := strings.TrimSpace(line); l != "" && l != "osd" {
			have = append(have, l)
		}
	}
	var pick []string
	for _, want := range []string{"eng", "kor"} {
		if slices.Contains(have, want) {
			pick = append(pick, want)
		}
	}
	if len(pick) == 0 {
		pick = have[:min(3, len(have))]
	}
	if len(pick) == 0 {
		return "eng"
	}
	return strings.Join(pick, "+")
}

func (t *tesseract) Name() string { return "tesseract " + t.langs }

func (t *tesseract) ReadPage(ctx context.Context, path string, page int) (string, error) {
	dir, err := os.MkdirTemp("", "footnote-ocr-")
	if err != nil {
		return "", fmt.Errorf("ocr: temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "page")
	n := strconv.Itoa(page)
	render := exec.Command(t.pdftoppm, "-r", strconv.Itoa(ocrDPI), "-gray", "-png", "-singlefile", "-f", n, "-l", n, path, root)
	if err := runCapped(ctx, render, t.caps); err != nil {
		return "", fmt.Errorf("render page %d: %w", page, err)
	}
	cmd := exec.Command(t.tesseract, root+".png", "stdout", "-l", t.langs, "--psm", "3")
	// One core per page: Tesseract's OpenMP threads would fight the
	// embedder for the same cores.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdout = &limitedBuffer{limit: 16 << 20} // a page's text; more is noise
	if err := runCapped(ctx, cmd, t.caps); err != nil {
		return "", fmt.Errorf("tesseract on page %d: %w", page, err)
	}
	return cmd.Stdout.(*limitedBuffer).b.String(), nil
}

// scannedPages returns the 1-based numbers of the pages of ex without any
// letter or digit that draw an image: scanned pages. A blank page is not.
func scannedPages(ex extracted) []int {
	var pages []int
	for _, p := range ex.imagePages {
		if i := p - 1; i >= 0 && i < len(ex.pageStarts) && !hasWords(ex.text[ex.pageStarts[i]:pageEnd(ex, i)]) {
			pages = append(pages, p)
		}
	}
	return pages
}

// pageEnd is where page i's text ends: before the blank line that starts
// the next page.
func pageEnd(ex extracted, i int) int {
	if i+1 < len(ex.pageStarts) {
		return max(ex.pageStarts[i], ex.pageStarts[i+1]-len("\n\n"))
	}
	return len(ex.text)
}

func hasWords(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// ocrResult is what reading a PDF's scanned pages did.
type ocrResult struct {
	pages  []int    // pages whose text came from OCR
	engine string   // the engine that read them
	notes  []string // pages left without text, and why
}

// readScannedPages reads the scanned pages of a PDF (data, parsed into ex)
// with the machine's OCR engine and puts their text in place, moving the
// later pages' and headings' offsets by what was inserted. Pages it cannot
// read stay empty and are named in a note.
func readScannedPages(ctx context.Context, data []byte, ex extracted, caps childCaps, maxText int) (extracted, ocrResult) {
	scanned := scannedPages(ex)
	if len(scanned) == 0 {
		return ex, ocrResult{}
	}
	engine, missing := findOCR(caps)
	if engine == nil {
		return ex, ocrResult{notes: []string{fmt.Sprintf("%s: scanned page, no text (%s)", pageList(scanned), missing)}}
	}
	f, err := os.CreateTemp("", "footnote-ocr-*.pdf")
	if err != nil {
		return ex, ocrResult{notes: []string{fmt.Sprintf("%s: scanned page, not read: %v", pageList(scanned), err)}}
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ex, ocrResult{notes: []string{fmt.Sprintf("%s: scanned page, not read: %v", pageList(scanned), err)}}
	}
	res := ocrResult{engine: engine.Name()}
	var failed []int
	var why error
	for _, page := range scanned {
		if ctx.Err() != nil || errors.Is(why, ErrUnsafe) {
			// Stopped, or a page overran a cap: the rest stay unread.
			if why == nil {
				why = ctx.Err()
			}
			failed = append(failed, page)
			continue
		}
		text, err := engine.ReadPage(ctx, f.Name(), page)
		text = cleanOCRText(text)
		switch {
		case err != nil:
			failed, why = append(failed, page), err
		case text == "":
			res.notes = append(res.notes, fmt.Sprintf("page %d: scanned page, OCR found no text on it", page))
		case len(ex.text)+len(text) > maxText:
			failed, why = append(failed, page), textLimitError(maxText)
		default:
			ex = insertPageText(ex, page-1, text)
			res.pages = append(res.pages, page)
		}
	}
	if len(failed) > 0 {
		res.notes = append(res.notes, fmt.Sprintf("%s: scanned page, OCR failed (%v)", pageList(failed), why))
	}
	return ex, res
}

// cleanOCRText drops Tesseract's form feed and trailing blanks, keeping its
// line and paragraph breaks (they are the page's layout).
func cleanOCRText(s string) string {
	s = strings.ReplaceAll(s, "\f", "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// insertPageText puts text at the start of page i (0-based), replacing the
// page's blank text, and moves everything after it.
func insertPageText(ex extracted, i int, text string) extracted {
	start, end := ex.pageStarts[i], pageEnd(ex, i)
	shift := len(text) - (end - start)
	ex.text = ex.text[:start] + text + ex.text[end:]
	for j := i + 1; j < len(ex.pageStarts); j++ {
		ex.pageStarts[j] += shift
	}
	for j := range ex.headings {
		if ex.headings[j].start >= end {
			ex.headings[j].start += shift
		}
	}
	return ex
}

// pageList names pages for a note: "page 3", "pages 1, 2, 5".
func pageList(pages []int) string {
	if len(pages) == 1 {
		return "page " + strconv.Itoa(pages[0])
	}
	s := make([]string, len(pages))
	for i, p := range pages {
		s[i] = strconv.Itoa(p)
	}
	return "pages " + strings.Join(s, ", ")
}
