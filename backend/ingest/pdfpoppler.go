package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Poppler's pdftotext, when installed (make run installs poppler-utils for
// OCR), reads every PDF too — as a program, after the isolated parse, like
// OCR — and its text is used when the built-in readers (PDFium, with the Go
// reader as its fallback; pdfread.go) failed, gave garbled text, found
// clearly less text, or (the Go reader's text) hold less than 95% of the
// words pdftotext found: fonts neither built-in reader can map to Unicode
// are the usual reason. The report says which reader read the file and why.

// findPdftotext returns the pdftotext program, or "" when it is missing.
// Looked up on each call, so installing it takes effect at the next scan.
var findPdftotext = func() string {
	p, _ := exec.LookPath("pdftotext")
	return p
}

// popplerTextAhead is how much more text (letters and digits) pdftotext
// must find than the built-in readers before its text is preferred (fonts
// they cannot map). Below it the readers differ only in layout. Letters,
// not words: pdftotext cuts some words in two ("lo ad re"), which made it
// look ahead by words on a file PDFium read whole.
const popplerTextAhead = 1.25

// minWordRecall is the share of pdftotext's words the Go reader's text must
// hold to be kept: below it, words are missing or run together.
const minWordRecall = 0.95

// WordRecall is the share of ref's words (NFKC-folded, lower-cased, with
// multiplicity) that got holds; 1 when ref has none.
func WordRecall(ref, got string) float64 {
	have := map[string]int{}
	for _, w := range recallWords(got) {
		have[w]++
	}
	total, found := 0, 0
	for _, w := range recallWords(ref) {
		total++
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}

func recallWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(norm.NFKC.String(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// readPDFText reads a PDF the built-in readers parsed into ex (or failed to
// parse, builtinErr), deciding which reader's text to keep. pdftotext runs
// under caps (childproc.go); when it overruns them the built-in text is
// kept with a note, and a file neither reads fails with pdftotext's error.
func readPDFText(ctx context.Context, data []byte, ex extracted, builtinErr error, caps childCaps, maxText int) (extracted, error) {
	reason := ""
	switch {
	case builtinErr != nil && errors.Is(builtinErr, ErrUnsafe):
		return ex, builtinErr // a bomb stays refused
	case builtinErr != nil:
		reason = "the built-in reader failed: " + builtinErr.Error()
	case garbled(ex.text) != "":
		reason = garbled(ex.text)
	}
	bin := findPdftotext()
	if bin == "" {
		if builtinErr != nil {
			return ex, fmt.Errorf("%w (installing Poppler's pdftotext, package poppler-utils, may read it)", builtinErr)
		}
		return ex, nil
	}
	pop, err := popplerText(ctx, bin, data, caps, maxText)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ex, stopped(ctx)
	case builtinErr != nil && errors.Is(err, ErrUnsafe):
		return ex, fmt.Errorf("%w; %w", builtinErr, err) // both readers failed; pdftotext's cap is why this one took so long
	case builtinErr != nil:
		return ex, builtinErr // pdftotext failed too: the built-in error says what is wrong
	case errors.Is(err, ErrUnsafe):
		ex.notes = append(ex.notes, "read by the built-in reader; "+err.Error())
		return ex, nil
	default:
		return ex, nil
	}
	builtinLetters, popLetters := countLetters(ex.text), countLetters(pop.text)
	switch {
	case reason != "":
	case builtinLetters == 0 && popLetters > 0:
		reason = "the built-in reader found no text"
	case float64(popLetters) >= popplerTextAhead*float64(builtinLetters) && popLetters > builtinLetters+100:
		reason = fmt.Sprintf("the built-in reader found %d letters and digits, pdftotext %d", builtinLetters, popLetters)
	case ex.pdfReader != "pdfium":
		// The Go reader runs words together and drops text in forms.
		// Where PDFium and pdftotext disagree on words it is mostly how
		// they split them (CJK and Thai runs, letter-spaced headings);
		// of ten such pdf.js files read side by side, pdftotext misread
		// four (mojibake, a shifted alphabet, words cut in two) and PDFium
		// two. So PDFium's text is not measured against pdftotext's.
		if r := WordRecall(pop.text, ex.text); r < minWordRecall {
			reason = fmt.Sprintf("the built-in reader's text holds %.0f%% of the words pdftotext found", 100*r)
		}
	}
	if reason == "" || popLetters == 0 {
		if builtinErr != nil {
			return ex, builtinErr
		}
		return ex, nil
	}
	pop.title = ex.title
	if len(ex.imagePages) > 0 && len(ex.pageStarts) == len(pop.pageStarts) {
		pop.imagePages = ex.imagePages // scanned pages still go to OCR
	}
	pop.notes = append(ex.notes, "read by Poppler's pdftotext ("+reason+")")
	return pop, nil
}

// popplerText runs pdftotext on data under caps and splits its output into
// pages.
func popplerText(ctx context.Context, bin string, data []byte, caps childCaps, maxText int) (extracted, error) {
	f, err := os.CreateTemp("", "footnote-pdf-*.pdf")
	if err != nil {
		return extracted{}, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return extracted{}, err
	}
	cmd := exec.Command(bin, "-q", "-enc", "UTF-8", "-eol", "unix", f.Name(), "-")
	out := &limitedBuffer{limit: maxText + 1<<16} // page breaks and blank lines are trimmed below
	cmd.Stdout = out
	if err := runCapped(ctx, cmd, caps); err != nil {
		return extracted{}, err
	}
	if out.over {
		return extracted{}, textLimitError(maxText)
	}
	if !utf8.Valid(out.b.Bytes()) {
		return extracted{}, errors.New("pdftotext wrote text that is not UTF-8")
	}
	pages := strings.Split(strings.TrimSuffix(out.b.String(), "\f"), "\f")
	var ex extracted
	var b strings.Builder
	for i, p := range pages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		ex.pageStarts = append(ex.pageStarts, b.Len())
		b.WriteString(cleanOCRText(p)) // the same tidying: trailing blanks, CRs
	}
	if b.Len() > maxText {
		return extracted{}, textLimitError(maxText)
	}
	ex.text = b.String()
	return ex, nil
}

// garbled says why text looks misread, or "": at least 5% U+FFFD, or
// words run together (a third of the letters in "words" over 25 letters;
// Chinese and Japanese, written without spaces, do not count as such).
func garbled(text string) string {
	var letters, bad, inLong int
	for _, w := range strings.Fields(text) {
		n := 0
		for _, r := range w {
			switch {
			case r == utf8.RuneError:
				bad++
			case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
				letters++ // written without spaces: never "run together"
			case unicode.IsLetter(r):
				n++
			}
		}
		letters += n
		if n > 25 {
			inLong += n
		}
	}
	switch {
	case letters+bad == 0:
		return ""
	case bad*20 >= letters+bad:
		return fmt.Sprintf("%d%% of its characters were unreadable", bad*100/(letters+bad))
	case inLong*3 >= letters && letters > 200:
		return "its words ran together"
	}
	return ""
}

func countLetters(text string) int {
	n := 0
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// limitedBuffer keeps at most limit bytes and notes whether more came.
type limitedBuffer struct {
	b     bytes.Buffer
	limit int
	over  bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.limit - l.b.Len(); len(p) > room {
		l.over = true
		l.b.Write(p[:max(room, 0)])
		return len(p), nil // keep pdftotext running to its end rather than break its pipe
	}
	return l.b.Write(p)
}
