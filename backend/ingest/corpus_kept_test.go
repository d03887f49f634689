package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// keptCorpora are the folders of files kept from public parser test
// corpora (each with its licence and a SOURCE.md saying where from).
var keptCorpora = []string{"pdfjs", "poi", "epubcheck", "html5lib", "tealeg-xlsx", "python-pptx", "odfpy"}

// keptFiles lists the kept files of one format ("" for all).
func keptFiles(t testing.TB, format string) []string {
	t.Helper()
	var out []string
	for _, dir := range keptCorpora {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := filepath.Join("testdata", dir, e.Name())
			if f := formatOf(p); f != "" && (format == "" || f == format) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Every kept file loads to text or fails with one clear sentence that
// names the file and says what to do, quickly, in this process and in an
// extractor child: none may crash, hang or print binary garbage.
func TestKeptCorpusFiles(t *testing.T) {
	files := keptFiles(t, "")
	if len(files) < 30 {
		t.Fatalf("only %d kept files found", len(files))
	}
	for _, isolated := range []bool{false, true} {
		t.Run(map[bool]string{false: "in-process", true: "isolated"}[isolated], func(t *testing.T) {
			setIsolation(t, isolated)
			for _, path := range files {
				abs, err := filepath.Abs(path)
				if err != nil {
					t.Fatal(err)
				}
				err = withinTime(t, time.Minute, func() error {
					_, err := Load(File{Path: abs}, wordCounter{}, Options{}, testNow)
					return err
				})
				if err == nil {
					continue
				}
				msg := err.Error()
				switch {
				case !strings.HasPrefix(msg, "load "+abs+": "):
					t.Errorf("%s: error does not name the file: %q", path, msg)
				case strings.ContainsAny(msg, "\n\r\t") || !utf8.ValidString(msg) || strings.ContainsRune(msg, utf8.RuneError):
					t.Errorf("%s: error is not one clean line: %q", path, msg)
				case !strings.Contains(msg, "scan again") && !strings.Contains(msg, "split it"):
					t.Errorf("%s: error does not say what to do: %q", path, msg)
				}
			}
		})
	}
}

// The pdf.js file from the issue: its xref subsection starts at object
// 4294967296, for which the Go PDF library allocated 128 GiB and died. The
// preflight keeps it from that library; PDFium, whose memory is bounded,
// opens it but finds no text, so the preflight's sentence is the answer.
func TestKeptPDFCrasherIsDamaged(t *testing.T) {
	path := filepath.Join("testdata", "pdfjs", "GHOSTSCRIPT-698804-1-fuzzed.pdf")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extractPDF(data, limitsFor(Options{}.WithDefaults())); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "cross-reference table") {
		t.Fatalf("the Go reader: err = %v", err)
	}
	if _, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "cross-reference table") {
		t.Fatalf("as ingest reads it: err = %v, want the preflight's damaged-file sentence", err)
	}
}

func TestBriefDropsBinaryGarbage(t *testing.T) {
	for in, want := range map[string]string{
		"malformed hex string s > \xff\xfey junk": "malformed hex string s > …",
		"unknown filter LZWDecode":                "unknown filter LZWDecode",
		"bad\x00byte":                             "badbyte", // control characters go
	} {
		if got := brief(in); got != want {
			t.Errorf("brief(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCausesInWords: what a parser says goes into a sentence to the user
// only when it is words, never Go's insides (a recovered runtime error, Go
// values as %v prints them), and the Go PDF reader's own terms are worded.
func TestCausesInWords(t *testing.T) {
	var runtimeErr error
	func() {
		defer func() { runtimeErr, _ = recover().(error) }()
		var s []int
		_ = s[len(s)-1]
	}()
	for in, want := range map[any]string{
		runtimeErr:                                   "",
		"runtime error: index out of range [-1]":     "",
		"malformed PDF: loading {2 0}: found {3 0}":  "",
		"unexpected non-name key *pdf.dict(map[])":   "",
		"zip: not a valid zip file":                  " (zip: not a valid zip file)",
		"XML syntax error on line 3: unexpected EOF": " (XML syntax error on line 3: unexpected EOF)",
	} {
		if got := because(in); got != want {
			t.Errorf("because(%q) = %q, want %q", in, got, want)
		}
	}
	if got := because(goReaderCause("malformed PDF: loading {2 0}: found {3 0}")); got != " (its table of objects points at the wrong objects)" {
		t.Errorf("the Go reader's object mismatch: %q", got)
	}
	if got := because(goReaderCause("malformed PDF: reading at offset 4294967295: EOF")); got != " (it points past its own end)" {
		t.Errorf("the Go reader's read past the end: %q", got)
	}
}
