// Command pdfcorpus measures Footnote's PDF text against Poppler's pdftotext
// on a folder of PDFs (a public test corpus, kept outside the repository):
// how many files each reads text from (at least 20 non-space characters),
// and, on the files both read, the word recall of Footnote's text against
// pdftotext's (the share of pdftotext's words, NFKC-folded and lower-cased,
// counted with multiplicity, that Footnote's text holds). It measures
// Footnote twice in one run: with its built-in reader alone (pdftotext
// hidden from it) and as it ingests (pdftotext as the fallback reader).
// OCR is left out (Tesseract hidden from both passes). It prints one JSON
// object.
//
//	go run -tags sqlite_fts5 ./bench/pdfcorpus -dir <folder of PDFs>
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/footnote-app/footnote/backend/ingest"
)

type words struct{}

func (words) CountTokens(s string) int { return len(strings.Fields(s)) + 2 }

// Side is one reader's figures over the corpus.
type Side struct {
	WithText     int     `json:"files_with_text"`
	Failed       int     `json:"files_failed"`
	ByPoppler    int     `json:"files_read_by_pdftotext,omitempty"`
	BothRead     int     `json:"files_both_read"`
	RecallMean   float64 `json:"word_recall_mean"`
	RecallMedian float64 `json:"word_recall_median"`
	Below95      int     `json:"files_below_0_95"`
	Unreadable   int     `json:"files_unreadable"` // files with text of which at least 5% is U+FFFD
	Seconds      float64 `json:"seconds"`
}

func main() {
	ingest.RunExtractorIfChild()
	dir := flag.String("dir", "", "folder of PDF files")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "pdfcorpus: -dir is required")
		os.Exit(2)
	}
	files, _ := filepath.Glob(filepath.Join(*dir, "*.pdf"))
	slices.Sort(files)
	popplerBin, err := exec.LookPath("pdftotext")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pdfcorpus: pdftotext is not installed (poppler-utils)")
		os.Exit(1)
	}
	reference := make([]string, len(files))
	refWith, refUnreadable := 0, 0
	t0 := time.Now()
	for i, f := range files {
		reference[i] = pdftotext(popplerBin, f)
		if hasText(reference[i]) {
			refWith++
			if unreadable(reference[i]) {
				refUnreadable++
			}
		}
	}
	refSecs := time.Since(t0).Seconds()

	// OCR is left out of both passes (Tesseract hidden): this measures the
	// text layer, which is what pdftotext reads.
	onlyPoppler, err := os.MkdirTemp("", "pdfcorpus-path-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pdfcorpus:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(onlyPoppler)
	if err := os.Symlink(popplerBin, filepath.Join(onlyPoppler, "pdftotext")); err != nil {
		fmt.Fprintln(os.Stderr, "pdfcorpus:", err)
		os.Exit(1)
	}
	path := os.Getenv("PATH")
	os.Setenv("PATH", "") // the built-in reader alone: pdftotext not found
	builtin := measure(files, reference)
	os.Setenv("PATH", onlyPoppler)
	withPoppler := measure(files, reference)
	os.Setenv("PATH", path)
	out := map[string]any{
		"files":        len(files),
		"pdftotext":    map[string]any{"files_with_text": refWith, "files_unreadable": refUnreadable, "seconds": refSecs},
		"builtin_only": builtin,
		"footnote":     withPoppler,
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}

func measure(files, reference []string) Side {
	var s Side
	var recalls []float64
	t0 := time.Now()
	for i, f := range files {
		doc, notes, err := ingest.LoadWithNotes(ingest.File{Path: f}, words{}, ingest.Options{}, time.Now())
		if err != nil {
			s.Failed++
			continue
		}
		if strings.Contains(strings.Join(notes, "\n"), "pdftotext") {
			s.ByPoppler++
		}
		if !hasText(doc.Text) {
			continue
		}
		s.WithText++
		if unreadable(doc.Text) {
			s.Unreadable++
		}
		if hasText(reference[i]) {
			s.BothRead++
			r := ingest.WordRecall(reference[i], doc.Text)
			recalls = append(recalls, r)
			if r < 0.95 {
				s.Below95++
			}
		}
	}
	s.Seconds = time.Since(t0).Seconds()
	if len(recalls) > 0 {
		var sum float64
		for _, r := range recalls {
			sum += r
		}
		s.RecallMean = sum / float64(len(recalls))
		slices.Sort(recalls)
		s.RecallMedian = recalls[len(recalls)/2]
	}
	return s
}

func pdftotext(bin, file string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-q", "-enc", "UTF-8", file, "-")
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return ""
	}
	return out.String()
}

// unreadable reports whether at least 5% of the non-space characters of s
// are U+FFFD (glyphs a reader could not map to Unicode).
func unreadable(s string) bool {
	n, bad := 0, 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
			if r == unicode.ReplacementChar {
				bad++
			}
		}
	}
	return n > 0 && bad*20 >= n
}

func hasText(s string) bool {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n >= 20
}
