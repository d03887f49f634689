package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// PDFs are read by PDFium, the PDF engine of Chromium, compiled to
// WebAssembly and run by wazero: pure Go, no C library to install, and the
// engine sees only its own sandboxed memory and no files. It opens what the
// older Go reader (pdf.go) cannot: files encrypted with an empty user
// password, every standard stream filter, cross-reference tables that need
// rebuilding, text drawn inside form XObjects and annotations, and it places
// spaces between words from the glyphs' positions. On pdf.js's 977 test
// PDFs without Poppler (bench/pdfcorpus), PDFium with the Go reader as its
// fallback read text from 348 files (pdftotext 341, the Go reader alone
// 315), holding 0.942 of pdftotext's words (the Go reader 0.828). The Go
// reader stays as the fallback for files PDFium cannot open or reads as
// garbage (fonts without a Unicode map, where PDFium returns raw glyph
// codes). The cost is time on text-heavy pages: about 17 ms for a page of
// 100 lines where the Go reader takes under 1 ms, still a small share of
// embedding that page's chunks.

// Settings of the PDFium engine; variables so the extractor child can size
// them to its own limits and tests can make them small.
var (
	// pdfiumMemoryLimit bounds PDFium's memory (a decompression bomb fails
	// there, and the Go reader's budget then names it); the extractor child
	// gives it a quarter of its own limit. The module itself starts at 18 MiB.
	pdfiumMemoryLimit int64 = 256 << 20
	// pdfiumTimeout bounds PDFium's work on one file; past it the Go reader
	// has its turn, within the child's own deadline.
	pdfiumTimeout = time.Minute
)

// pdfiumEngine compiles the PDFium module once per process, at the first
// PDF. Compiling takes seconds, so the compiled code is kept in the user's
// cache folder and later processes load it in a fraction of that.
var pdfiumEngine struct {
	once sync.Once
	pool pdfium.Pool
	err  error
}

func pdfiumPool() (pdfium.Pool, error) {
	pdfiumEngine.once.Do(func() {
		cfg := wazero.NewRuntimeConfig().
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithMemoryLimitPages(uint32(max(pdfiumMemoryLimit>>16, 256))).
			WithCloseOnContextDone(true)
		if dir, err := os.UserCacheDir(); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "footnote", "wasm")); err == nil {
				cfg = cfg.WithCompilationCache(cache)
			}
		}
		pdfiumEngine.pool, pdfiumEngine.err = webassembly.Init(webassembly.Config{
			Context: experimental.WithMemoryAllocator(context.Background(), pdfiumMemory()),
			MinIdle: 0, MaxIdle: 1, MaxTotal: max(2, runtime.GOMAXPROCS(0)), // one per file read at once
			RuntimeConfig: cfg,
			FSConfig:      wazero.NewFSConfig(), // no folder mounted: PDFium reads only the bytes it is given
			Stdout:        io.Discard,
			Stderr:        io.Discard,
		})
		if pdfiumEngine.err != nil {
			pdfiumEngine.err = fmt.Errorf("start PDFium: %w", pdfiumEngine.err)
		}
	})
	return pdfiumEngine.pool, pdfiumEngine.err
}

// extractPDFium reads a PDF's text page by page with PDFium. Each file gets
// a fresh instance of the module (instantiating a compiled module takes
// milliseconds), so memory one file made PDFium take goes with it.
func extractPDFium(data []byte, lim limits) (ex extracted, err error) {
	pool, err := pdfiumPool()
	if err != nil {
		return extracted{}, err
	}
	inst, err := pool.GetInstance(time.Minute)
	if err != nil {
		return extracted{}, fmt.Errorf("start PDFium: %w", err)
	}
	var stopped atomic.Bool
	timer := time.AfterFunc(pdfiumTimeout, func() { stopped.Store(true); inst.Kill() })
	defer func() {
		timer.Stop()
		if !stopped.Load() {
			inst.Close()
		}
		if err != nil && stopped.Load() {
			err = damaged("PDFium took longer than %s on the PDF", pdfiumTimeout)
		}
	}()
	empty := "" // files "encrypted" with an empty user password open in any viewer
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data, Password: &empty})
	if err != nil {
		if errors.Is(err, pdfiumerrors.ErrPassword) || errors.Is(err, pdfiumerrors.ErrSecurity) {
			return extracted{}, &fileError{msg: "the PDF is encrypted; remove the password and scan again", kind: ErrEncrypted}
		}
		return extracted{}, damaged("the PDF is damaged and could not be opened%s; re-save or re-download it and scan again", because(err))
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return extracted{}, damaged("the PDF's pages could not be read%s; re-save it and scan again", because(err))
	}
	if count.PageCount > lim.maxPages {
		return extracted{}, overLimit("the PDF has more than %d pages; split it and scan again", lim.maxPages)
	}
	if title, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: "Title"}); err == nil {
		ex.title = cleanTitle(title.Value)
	}
	out := textBuilder{limit: lim.maxText}
	for i := range count.PageCount {
		if i > 0 {
			if out.write("\n\n") != nil {
				return extracted{}, textLimitError(lim.maxText)
			}
		}
		ex.pageStarts = append(ex.pageStarts, len(out.b))
		text, image, err := pdfiumPage(inst, doc.Document, i, lim.maxText-len(out.b))
		if errors.Is(err, errTextLimit) {
			return extracted{}, textLimitError(lim.maxText)
		}
		if err != nil {
			return extracted{}, damaged("page %d of the PDF could not be read%s; re-save it and scan again", i+1, because(err))
		}
		if !hasWords(text) && image {
			ex.imagePages = append(ex.imagePages, i+1)
		}
		if out.write(text) != nil {
			return extracted{}, textLimitError(lim.maxText)
		}
	}
	ex.text = string(out.b)
	ex.pdfReader = "pdfium"
	return ex, nil
}

// pdfiumPage returns one page's text, annotations and form fields included
// as they are displayed, and whether the page draws an image (a scanned
// page when it has no text). A page of more than budget characters fails
// with errTextLimit before its text is copied out.
func pdfiumPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index, budget int) (string, bool, error) {
	page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return "", false, err
	}
	flat, err := inst.FPDFPage_Flatten(&requests.FPDFPage_Flatten{
		Page:  requests.Page{ByReference: &page.Page},
		Usage: requests.FPDFPage_FlattenUsageNormalDisplay,
	})
	if err == nil && flat.Result == responses.FPDFPage_FlattenResultSuccess {
		// Flattening rewrites the page's contents; the text is read from
		// the page loaded afresh.
		inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
		if page, err = inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index}); err != nil {
			return "", false, err
		}
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	ref := requests.Page{ByReference: &page.Page}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: ref})
	if err != nil {
		return "", false, err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	chars, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return "", false, err
	}
	if chars.Count > budget {
		return "", false, errTextLimit
	}
	text := ""
	if chars.Count > 0 {
		got, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: chars.Count})
		if err != nil {
			return "", false, err
		}
		text = tidyPDFiumText(got.Text)
	}
	image := false
	if !hasWords(text) {
		image = pdfiumDrawsImage(inst, ref)
	}
	return text, image, nil
}

// pdfiumDrawsImage reports whether a page draws an image, directly or in a
// form object (three forms deep at most, as the Go reader looks): a blank
// page, or one that draws only an empty form, is not a scanned page.
func pdfiumDrawsImage(inst pdfium.Pdfium, page requests.Page) bool {
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return false
	}
	for i := range n.Count {
		obj, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: i})
		if err == nil && pdfiumObjectDrawsImage(inst, obj.PageObject, 0) {
			return true
		}
	}
	return false
}

func pdfiumObjectDrawsImage(inst pdfium.Pdfium, obj references.FPDF_PAGEOBJECT, depth int) bool {
	t, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj})
	if err != nil {
		return false
	}
	switch t.Type {
	case enums.FPDF_PAGEOBJ_IMAGE:
		return true
	case enums.FPDF_PAGEOBJ_FORM:
		if depth >= 3 {
			return false
		}
		n, err := inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: obj})
		if err != nil {
			return false
		}
		for i := range n.Count {
			inner, err := inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: obj, Index: uint64(i)})
			if err == nil && pdfiumObjectDrawsImage(inst, inner.PageObject, depth+1) {
				return true
			}
		}
	}
	return false
}

// tidyPDFiumText makes PDFium's text like the other readers': line ends
// as "\n"; a glyph PDFium could not map to Unicode (it returns the raw
// code, a control character) as U+FFFD, so garbled text is seen as such;
// and no space between two Chinese or Japanese characters, which are
// written without spaces (PDFium infers one from wide letter spacing, and
// it would split the words the index pairs characters into).
func tidyPDFiumText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == '\r':
			if strings.HasPrefix(s[i+1:], "\n") {
				continue
			}
			r = '\n'
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r == 0xfffe:
			r = unicode.ReplacementChar
		case r == ' ':
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			after, _ := utf8.DecodeRuneInString(s[i+1:])
			if unspaced(before) && unspaced(after) {
				continue
			}
		}
		b.WriteRune(r)
	}
	return strings.TrimFunc(cleanText(b.String()), isSpace)
}

// unspaced reports whether r belongs to a script written without spaces
// between words: Chinese characters, kana, and their punctuation (not the
// full-width Latin letters and digits, which make words with spaces).
func unspaced(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		(r >= 0x3001 && r <= 0x303f) || (r >= 0xff01 && r <= 0xff60 && !unicode.IsLetter(r) && !unicode.IsDigit(r))
}

// sliceMemory is PDFium's memory as a Go slice, where no mapping can be
// made.
type sliceMemory struct{ b []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.b)) {
		grown := make([]byte, size)
		copy(grown, m.b)
		m.b = grown
	}
	m.b = m.b[:size]
	return m.b
}

func (m *sliceMemory) Free() { m.b = nil }
