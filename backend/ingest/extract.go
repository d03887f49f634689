package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Errors a rich-format file can fail with, for callers that count or group
// failures; the error text itself is already a sentence for the user.
var (
	ErrEncrypted = errors.New("file is encrypted")
	ErrDamaged   = errors.New("file is damaged")
	ErrUnsafe    = errors.New("file exceeds a safety limit")
	// ErrTooSlow is a step of reading the file that ran past its time
	// budget; it is a safety limit too (errors.Is(err, ErrUnsafe)).
	ErrTooSlow = fmt.Errorf("%w: reading it took too long", ErrUnsafe)
)

// fileError is a user-facing sentence that still matches one of the kinds
// above with errors.Is.
type fileError struct {
	msg  string
	kind error
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() error { return e.kind }

// brief renders a parser's error or panic value as a short single-line
// cause for a user-facing sentence. Parsers quote the bytes they choked on;
// from the first byte that is not text on, the cause is cut, so no binary
// garbage reaches the user.
func brief(v any) string {
	s := strings.Join(strings.FieldsFunc(cleanText(fmt.Sprint(v)), isSpace), " ")
	if i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || !unicode.IsPrint(r) }); i >= 0 {
		s = strings.TrimRightFunc(s[:i], isSpace) + " …"
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

// because is a parser's error or panic value as " (cause)" for a sentence
// to the user, or "" when the cause would only show the parser's insides:
// a Go runtime error ("runtime error: index out of range [-1]"), Go values
// as Go prints them ("loading {2 0}: found {3 0}", "%!v(…)", "*pdf.dict",
// "0xc000123456").
func because(v any) string {
	if _, ok := v.(runtime.Error); ok {
		return ""
	}
	c := brief(v)
	if c == "" || goInsides.MatchString(c) {
		return ""
	}
	return " (" + c + ")"
}

// goInsides matches the text of Go runtime errors and of Go values printed
// with %v.
var goInsides = regexp.MustCompile(`runtime error|nil pointer|nil map|index out of range|slice bounds|interface conversion|goroutine|%!|\{-?\d+ -?\d+\}|0x[0-9a-f]{6,}|\*\w+\.\w+|\b[a-z]+\.[A-Z]\w*|\[\]\w+\{`)

// colonCause is because's cause as ": cause", for a sentence that already
// has its parentheses.
func colonCause(v any) string {
	if c := because(v); c != "" {
		return ": " + c[2:len(c)-1]
	}
	return ""
}

func damaged(format string, args ...any) error {
	return &fileError{msg: fmt.Sprintf(format, args...), kind: ErrDamaged}
}

func overLimit(format string, args ...any) error {
	return &fileError{msg: fmt.Sprintf(format, args...), kind: ErrUnsafe}
}

func tooSlow(format string, args ...any) error {
	return &fileError{msg: fmt.Sprintf(format, args...), kind: ErrTooSlow}
}

// stopped is the error of a step cut short because ctx ended (the user
// stopped ingest, or the app is closing): not the file's fault.
func stopped(ctx context.Context) error {
	return fmt.Errorf("reading stopped: %w", ctx.Err())
}

// limits bound what parsing one file may cost, so a hostile or broken file
// fails alone instead of exhausting memory.
type limits struct {
	maxText     int   // bytes of extracted text
	maxUnzipped int64 // bytes inflated from one archive, all entries together
	maxRatio    int64 // inflated/compressed size of one large entry
	ratioFloor  int64 // entries smaller than this are exempt from maxRatio
	maxEntries  int   // entries in one archive
	maxDepth    int   // element nesting in HTML and XML
	maxPages    int   // pages in one PDF
	maxDecoded  int64 // bytes of PDF page contents and character maps, decompressed
}

func limitsFor(o Options) limits {
	return limits{
		maxText:     int(max(2*o.MaxFileBytes, 1<<20)),
		maxUnzipped: max(4*o.MaxFileBytes, 1<<20),
		maxRatio:    100,
		ratioFloor:  1 << 20,
		maxEntries:  10000,
		maxDepth:    256,
		maxPages:    100000,
		maxDecoded:  max(8*o.MaxFileBytes, 64<<20),
	}
}

// extracted is the text Footnote stores for a rich-format document, with the
// structure its parser found. All offsets are bytes of text.
type extracted struct {
	text       string
	title      string
	headings   []heading
	pageStarts []int    // PDF: byte offset where page i+1 starts; nil for other formats
	imagePages []int    // PDF: 1-based pages that draw an image (candidates for OCR when they have no text)
	notes      []string // non-fatal remarks, e.g. a charset guess
	charset    string   // the legacy charset the text was decoded from ("" for UTF-8)
	pdfReader  string   // PDF: which built-in reader read it, "pdfium" or "go"
}

// textBuilder accumulates extracted text, refusing to grow past a limit.
type textBuilder struct {
	b     []byte
	limit int
}

var errTextLimit = errors.New("text limit")

func (t *textBuilder) write(s string) error {
	if len(t.b)+len(s) > t.limit {
		return errTextLimit
	}
	t.b = append(t.b, s...)
	return nil
}

func textLimitError(limit int) error {
	return overLimit("the extracted text is larger than %s; split the file or raise the size limit", humanBytes(int64(limit)))
}

// cleanText drops control characters (keeping tab and newline) and turns
// CR and CRLF into LF, so stored text has one line-break convention and no
// invisible bytes in chunks.
func cleanText(s string) string {
	clean := true
	for _, r := range s {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || r == utf8.RuneError) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case r == '\n' || r == '\t':
			return r
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// extract parses the bytes of a rich-format file: in a child process when
// this executable serves as one (isolate.go), else in this process. Only
// the child can be stopped when ctx ends.
func extract(ctx context.Context, data []byte, format string, opts Options) (extracted, error) {
	if isolation.Load() {
		return extractIsolated(ctx, data, format, opts)
	}
	return extractReader(data, format, limitsFor(opts))
}

// extractReader parses a rich-format document from its bytes.
func extractReader(data []byte, format string, lim limits) (ex extracted, err error) {
	// Third-party parsers signal some malformed input by panicking; one bad
	// file must fail alone.
	defer func() {
		if p := recover(); p != nil {
			err = damaged("the %s file is damaged and could not be read%s; re-save it and scan again", strings.ToUpper(format), because(p))
		}
	}()
	switch format {
	case "html":
		return extractHTMLFile(data, lim)
	case "pdf":
		return readPDF(data, lim)
	case "docx":
		return extractDOCX(bytes.NewReader(data), int64(len(data)), lim)
	case "epub":
		return extractEPUB(bytes.NewReader(data), int64(len(data)), lim)
	case "pptx":
		return extractPPTX(bytes.NewReader(data), int64(len(data)), lim)
	case "xlsx":
		return extractXLSX(bytes.NewReader(data), int64(len(data)), lim)
	case "ods":
		return extractODS(bytes.NewReader(data), int64(len(data)), lim)
	case "odt":
		return extractODT(bytes.NewReader(data), int64(len(data)), lim)
	case "rtf":
		return extractRTF(data, lim)
	case "csv", "tsv":
		return extractCSV(data, format == "tsv", lim)
	}
	return extracted{}, fmt.Errorf("unsupported format %q", format)
}

// spansOf turns extracted structure into chunkable spans: sections from
// headings, cut at page starts so every span lies on one page.
func spansOf(ex extracted, fileSlug, stem string) []span {
	spans := sectionSpans(ex.text, fileSlug, stem, ex.headings)
	if ex.pageStarts == nil {
		return spans
	}
	var out []span
	for _, sp := range spans {
		n := 0
		for p, start := range ex.pageStarts {
			end := len(ex.text)
			if p+1 < len(ex.pageStarts) {
				end = ex.pageStarts[p+1]
			}
			if lo, hi := max(start, sp.start), min(end, sp.end); lo < hi {
				piece := sp
				piece.start, piece.end, piece.page = lo, hi, p+1
				out = append(out, piece)
				n++
			}
		}
		if n == 0 { // an empty section still needs its span
			sp.page = 1
			for p, start := range ex.pageStarts {
				if start <= sp.start {
					sp.page = p + 1
				}
			}
			out = append(out, sp)
		}
	}
	return out
}
