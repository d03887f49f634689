package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// withinTime runs f and fails the test if it has not returned after d, so a
// parser that loops shows up as a failure instead of a test that never ends.
func withinTime[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
	panic("unreachable")
}

// patch replaces the first match of re in data, failing when there is none.
func patch(t *testing.T, data []byte, re string, repl func(m [][]byte) string) []byte {
	t.Helper()
	rx := regexp.MustCompile(re)
	m := rx.FindSubmatchIndex(data)
	if m == nil {
		t.Fatalf("pattern %q not found", re)
	}
	var groups [][]byte
	for i := 0; i < len(m); i += 2 {
		groups = append(groups, data[m[i]:m[i+1]])
	}
	return append(append(append([]byte(nil), data[:m[0]]...), repl(groups)...), data[m[1]:]...)
}

// Each of these numbers made the Go PDF library allocate many gigabytes (a
// fatal error, not a panic) or loop for ever; the preflight must refuse them
// before that library sees the file. PDFium, whose memory is bounded, may
// still read such a file; either way it returns in time with text or a
// sentence.
func TestPDFPreflightRefusesRunawayNumbers(t *testing.T) {
	page := onePage(plainContent("hello"))
	plain := rawPDF(page, "/Root 1 0 R")
	withStreams := rawPDFWithObjectStream(page, "<< /Type /ObjStm /N 1 /First 4 /Length 9 >>", []byte("6 0 (hi)"), "/Root 1 0 R")
	deflated := deflateAgain(t, []byte("BT (hi) Tj ET"))
	cases := []struct {
		name string
		data []byte
	}{
		// pdf.js's GHOSTSCRIPT-698804-1-fuzzed.pdf in miniature: a table
		// subsection starting at object 4294967296 (128 GiB of entries).
		{"xref subsection far out", patch(t, plain, `xref\n0 5\n0000000000 65535 f \n`, func([][]byte) string {
			return "xref\n0 1\n0000000000 65535 f \n4294967296 4\n"
		})},
		{"startxref past the end", patch(t, plain, `startxref\n(\d+)`, func([][]byte) string { return "startxref\n99999999" })},
		{"xref sections in a loop", patch(t, plain, `trailer\n<< `, func([][]byte) string {
			off := bytes.Index(plain, []byte("xref\n0 5"))
			return fmt.Sprintf("trailer\n<< /Prev %d ", off)
		})},
		{"xref stream size", patch(t, withStreams, `/Size \d+`, func([][]byte) string { return "/Size 4294967296" })},
		{"xref stream index", patch(t, withStreams, `/W \[1 4 2\]`, func([][]byte) string { return "/W [1 4 2] /Index [0 7 4294967296 1]" })},
		{"xref stream field width", patch(t, withStreams, `/W \[1 4 2\]`, func([][]byte) string { return "/W [1 4 4000000000]" })},
		{"object stream count", rawPDFWithObjectStream(page, "<< /Type /ObjStm /N 1000000000000 /First 4 /Length 9 >>", []byte("7 0 (hi)"), "/Root 1 0 R /Info 6 0 R")},
		{"predictor columns", rawPDF(onePage(rawObject{
			dict:   fmt.Sprintf("<< /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 1000000000000 >> /Length %d >>", len(deflated)),
			stream: deflated,
		}), "/Root 1 0 R")},
	}
	lim := limitsFor(Options{MaxFileBytes: 1 << 20})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := withinTime(t, 20*time.Second, func() error {
				_, err := extractPDF(tc.data, lim)
				return err
			})
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "re-save") {
				t.Fatalf("the Go reader: err = %v, want a damaged-file sentence", err)
			}
			err = withinTime(t, 20*time.Second, func() error {
				_, err := extractReader(tc.data, "pdf", lim)
				return err
			})
			if err != nil && !strings.Contains(err.Error(), "re-save") {
				t.Fatalf("as ingest reads it: err = %v, want text or a damaged-file sentence", err)
			}
		})
	}
	// The same structures with ordinary numbers still read.
	for name, data := range map[string][]byte{"table": plain, "streams": withStreams} {
		ex, err := extractReader(data, "pdf", lim)
		if err != nil || !strings.Contains(ex.text, "hello") {
			t.Fatalf("%s: text %q, err %v", name, ex.text, err)
		}
	}
}

// A few kilobytes of doubly deflated page content decode to a gigabyte; it
// must fail as a decompression bomb after reading no more than the budget,
// whether the file is read here or in an extractor child.
func TestPDFFlateBombIsBounded(t *testing.T) {
	const expands = 1 << 30
	contentBomb := rawPDF(onePage(bombStream(t, "", "BT (", expands)), "/Root 1 0 R")
	cmapPage := onePage(plainContent("hello"))
	cmapPage[2].dict = "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
	cmapPage = append(cmapPage,
		rawObject{dict: "<< /Type /Font /Subtype /TrueType /BaseFont /Bomb /ToUnicode 6 0 R >>"},
		bombStream(t, "", "/CIDInit begincmap (", expands))
	cmapBomb := rawPDF(cmapPage, "/Root 1 0 R")
	for _, bomb := range [][]byte{contentBomb, cmapBomb} {
		if len(bomb) > 64<<10 {
			t.Fatalf("the bomb is %d bytes, meant to be small", len(bomb))
		}
	}
	opts := Options{MaxFileBytes: 1 << 20}
	dir := t.TempDir()
	for _, isolated := range []bool{false, true} {
		for name, bomb := range map[string][]byte{"page contents": contentBomb, "character maps": cmapBomb} {
			t.Run(fmt.Sprintf("%s isolated=%v", name, isolated), func(t *testing.T) {
				setIsolation(t, isolated)
				path := writeBytes(t, filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".pdf"), bomb)
				start := time.Now()
				err := withinTime(t, 2*time.Minute, func() error {
					_, err := Load(File{Path: path}, wordCounter{}, opts, testNow)
					return err
				})
				if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), name+" expand to more than") {
					t.Fatalf("err = %v, want the decompression limit", err)
				}
				t.Logf("%d-byte file expanding to %d bytes refused in %s: %v", len(bomb), expands, time.Since(start).Round(time.Millisecond), err)
			})
		}
	}
}

// setIsolation switches extractor children on or off for one test.
func setIsolation(t testing.TB, on bool) {
	old := isolation.Load()
	isolation.Store(on)
	t.Cleanup(func() { isolation.Store(old) })
}

func TestStreamBudgetCountsPlainStreamsByLength(t *testing.T) {
	// An unfiltered stream costs the Go reader its stored length, capped at
	// the file.
	content := plainContent(strings.Repeat("x", 5000))
	data := rawPDF(onePage(content), "/Root 1 0 R")
	lim := limitsFor(Options{MaxFileBytes: 1 << 20})
	lim.maxDecoded = 4000
	if _, err := extractPDF(data, lim); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("err = %v, want the decoded-stream budget", err)
	}
	lim.maxDecoded = 6000
	if ex, err := extractPDF(data, lim); err != nil || len(ex.text) != 5000 {
		t.Fatalf("text %d bytes, err %v", len(ex.text), err)
	}
}
