// Package ingest turns the user's files into corpus documents: it finds
// supported files (Scan), reads and validates them (Load), and splits their
// text into heading-delimited sections and token-bounded, overlapping chunks
// whose character offsets point exactly back into the document's text
// (Split).
//
// Markdown and plain text are stored as they are (decoded to UTF-8 when
// saved in another charset, encoding.go). HTML, PDF, DOCX, EPUB, ODT, RTF,
// PPTX, XLSX, ODS, CSV and TSV are reduced to extracted text (which is what
// Document.Text holds and what offsets refer to): HTML and EPUB chapters by
// their headings, DOCX and ODT by their heading paragraphs, PDF page by page
// with every chunk on one page, slides and sheets one section each. Tables
// are stored as Markdown pipe tables (table.go). Scanned PDF pages (no text
// layer) are read by OCR when Tesseract is installed (ocr.go).
// Parsing is bounded (size, zip-bomb, nesting, decompression and text
// limits) so a hostile or broken file fails alone with a one-sentence
// reason; files are opened without blocking and checked to be regular files
// before they are read. When the executable opts in (RunExtractorIfChild),
// the rich formats are parsed in a memory-limited child process with a
// deadline, since a runaway allocation in a parser is fatal to a Go program.
//
// Empty or whitespace-only files load as a document with one empty-text
// section and zero chunks, so they are recorded as indexed rather than retried.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/corpus"
)

// TokenCounter counts tokens with the embedding model's tokenizer (special
// tokens included).
type TokenCounter interface{ CountTokens(text string) int }

// splitterVersion changes whenever chunking rules change, so indexes built by
// an older splitter are rebuilt. v2: heading-only sections join the text
// that follows. v3: chunks carry their title, heading path and table header
// as context (chunk_context.go). v4: chunks are bounded in bytes too
// (maxBytesPerToken), so a long run without spaces is no longer one chunk.
const splitterVersion = "v4"

const (
	defaultChunkTokens   = 200
	defaultOverlapTokens = 30
	defaultMaxFileBytes  = 50 << 20
)

// Options control chunking and which files are accepted.
type Options struct {
	ChunkTokens   int   // target max tokens per chunk; default 200, clamped to MaxTokens
	OverlapTokens int   // tokens shared by consecutive chunks of a section; 0 means default 30, negative means none
	MaxTokens     int   // hard cap from the embedding model; 0 means ChunkTokens
	MaxFileBytes  int64 // larger files are skipped; default 50 MiB
	// FollowOutsideLinks indexes what symbolic links inside a folder point
	// to even when it lies outside that folder; off by default (Scan).
	FollowOutsideLinks bool
}

// WithDefaults fills unset fields and clamps inconsistent ones. It is
// idempotent.
func (o Options) WithDefaults() Options {
	if o.ChunkTokens <= 0 {
		o.ChunkTokens = defaultChunkTokens
	}
	if o.MaxTokens > 0 && o.ChunkTokens > o.MaxTokens {
		o.ChunkTokens = o.MaxTokens
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = o.ChunkTokens
	}
	if o.OverlapTokens == 0 {
		o.OverlapTokens = defaultOverlapTokens
	}
	// More than half a chunk of overlap would make chunks mostly repeats.
	if o.OverlapTokens > o.ChunkTokens/2 {
		o.OverlapTokens = o.ChunkTokens / 2
		if o.OverlapTokens == 0 {
			o.OverlapTokens = -1
		}
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = defaultMaxFileBytes
	}
	return o
}

// overlap is the effective overlap in tokens (never negative).
func (o Options) overlap() int { return max(o.OverlapTokens, 0) }

// Fingerprint identifies the chunking settings for the index identity hash:
// any change to it means stored chunks are stale.
func (o Options) Fingerprint() string {
	o = o.WithDefaults()
	return fmt.Sprintf("chunk=%d,overlap=%d,%s", o.ChunkTokens, o.overlap(), splitterVersion)
}

// File is a supported file found by Scan.
type File struct {
	Path    string // absolute, cleaned
	Size    int64
	ModTime time.Time
	Format  string // "md", "txt", "html", "pdf", "docx", "epub", "pptx", "xlsx", "ods", "odt", "rtf", "csv" or "tsv"
}

// Skip is a file or folder Scan passed over, with a human-readable reason.
type Skip struct {
	Path   string
	Reason string
}

// formatOf maps a file name to its format, or "" when unsupported.
func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "md"
	case ".txt":
		return "txt"
	case ".html", ".htm", ".xhtml":
		return "html"
	case ".pdf":
		return "pdf"
	case ".docx":
		return "docx"
	case ".epub":
		return "epub"
	case ".pptx":
		return "pptx"
	case ".xlsx":
		return "xlsx"
	case ".ods":
		return "ods"
	case ".odt":
		return "odt"
	case ".rtf":
		return "rtf"
	case ".csv":
		return "csv"
	case ".tsv":
		return "tsv"
	}
	return ""
}

// binaryFormat reports whether a format's files are not plain text (so they
// must not be sniffed or validated as UTF-8).
func binaryFormat(format string) bool {
	switch format {
	case "pdf", "docx", "epub", "pptx", "xlsx", "ods", "odt", "rtf":
		return true
	}
	return false
}

// Load reads and parses one file into a Document with sections and chunks.
// For Markdown and plain text the document text is the file's text unchanged;
// for HTML, PDF, DOCX and EPUB it is the text extracted from the file, and
// chunk offsets refer to it. Load is safe to call from several goroutines.
func Load(f File, counter TokenCounter, opts Options, now time.Time) (corpus.Document, error) {
	doc, _, err := LoadWithNotes(f, counter, opts, now)
	return doc, err
}

// LoadWithNotes is Load that also returns non-fatal remarks about how the
// file was read (for example, HTML that was not valid UTF-8 and was decoded
// as Windows-1252), for showing next to the file in the ingest report.
func LoadWithNotes(f File, counter TokenCounter, opts Options, now time.Time) (corpus.Document, []string, error) {
	data, err := ReadFile(f.Path, opts)
	if err != nil {
		return corpus.Document{}, nil, fmt.Errorf("load %s: %w", f.Path, err)
	}
	return LoadData(context.Background(), f, data, counter, opts, now)
}

// LoadData is LoadWithNotes for a file the caller has already read with
// ReadFile, so the bytes parsed are the bytes it hashed and nothing is read
// twice. Rich formats are parsed in a child process when this executable
// serves as one (see RunExtractorIfChild). When ctx ends, the step under
// way stops (a child or a program it runs is killed) and the error
// matches ctx's. A step that runs past its time budget (budget.go) fails
// with an error matching ErrTooSlow.
func LoadData(ctx context.Context, f File, data []byte, counter TokenCounter, opts Options, now time.Time) (corpus.Document, []string, error) {
	doc, notes, err := loadData(ctx, f, data, counter, opts, now)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = stopped(ctx) // a step that failed because it was stopped
	}
	if err != nil {
		return corpus.Document{}, nil, fmt.Errorf("load %s: %w", f.Path, err)
	}
	return doc, notes, nil
}

func loadData(ctx context.Context, f File, data []byte, counter TokenCounter, opts Options, now time.Time) (corpus.Document, []string, error) {
	opts = opts.WithDefaults()
	if int64(len(data)) > opts.MaxFileBytes {
		return corpus.Document{}, nil, tooLarge(opts.MaxFileBytes)
	}
	format := f.Format
	if format == "" {
		format = formatOf(f.Path)
	}
	switch format {
	case "md", "markdown", "txt", "text":
		return loadText(ctx, f, data, format, counter, opts, now)
	}
	ex, err := extract(ctx, data, format, opts)
	if format == "pdf" && ctx.Err() == nil {
		ex, err = readPDFText(ctx, data, ex, err, capsFor(opts, len(data)), limitsFor(opts).maxText)
	}
	if err != nil {
		return corpus.Document{}, nil, err
	}
	var ocr ocrResult
	if format == "pdf" {
		ex, ocr = readScannedPages(ctx, data, ex, capsFor(opts, len(data)), limitsFor(opts).maxText)
		ex.notes = append(ex.notes, ocr.notes...)
	}
	if err := ctx.Err(); err != nil {
		return corpus.Document{}, nil, stopped(ctx)
	}
	stem := fileStem(f.Path)
	fileSlug := slugify(stem)
	if fileSlug == "" {
		fileSlug = "doc"
	}
	if counter == nil {
		return corpus.Document{}, nil, errors.New("no token counter")
	}
	docID := corpus.DocID(f.Path)
	title := ex.title
	if title == "" {
		title = stem
	}
	sections, chunks, err := chunkWithin(ctx, len(ex.text), func(ctx context.Context) ([]corpus.Section, []corpus.Chunk, error) {
		return chunkSpans(ctx, docID, title, ex.text, spansOf(ex, fileSlug, stem), counter, opts, now)
	})
	if err != nil {
		return corpus.Document{}, nil, err
	}
	return corpus.Document{
		DocID:     docID,
		Path:      f.Path,
		Title:     title,
		Format:    format,
		Rev:       corpus.Rev(data),
		Text:      ex.text,
		Size:      int64(len(data)),
		ModTime:   f.ModTime,
		Sections:  sections,
		Chunks:    chunks,
		OCRPages:  ocr.pages,
		OCREngine: ocr.engine,
		Charset:   ex.charset,
	}, ex.notes, nil
}

// loadText loads Markdown or plain text: UTF-8 as it is, other charsets
// decoded (encoding.go), with a note naming the charset.
func loadText(ctx context.Context, f File, data []byte, format string, counter TokenCounter, opts Options, now time.Time) (corpus.Document, []string, error) {
	dec, err := decodeText(data)
	if err != nil {
		return corpus.Document{}, nil, err
	}
	docID := corpus.DocID(f.Path)
	text := dec.text
	var res splitResult
	_, _, err = chunkWithin(ctx, len(text), func(ctx context.Context) ([]corpus.Section, []corpus.Chunk, error) {
		res, err = split(ctx, docID, f.Path, format, text, counter, opts, now)
		return res.sections, res.chunks, err
	})
	if err != nil {
		return corpus.Document{}, nil, err
	}
	var notes []string
	if dec.note != "" {
		notes = append(notes, dec.note)
	}
	return corpus.Document{
		DocID:    docID,
		Path:     f.Path,
		Title:    res.title,
		Format:   format,
		Rev:      corpus.Rev(data),
		Text:     text,
		Size:     int64(len(data)),
		ModTime:  f.ModTime,
		Sections: res.sections,
		Chunks:   res.chunks,
		Charset:  dec.charset,
	}, notes, nil
}

// invalidUTF8At returns the byte offset of the first invalid UTF-8 sequence,
// or -1 when data is valid.
func invalidUTF8At(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

func humanBytes(n int64) string {
	// One decimal, dropped when it is zero: a cap reads "1024 MiB".
	unit := func(v float64, name string) string {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + name
	}
	switch {
	case n >= 1<<20:
		return unit(float64(n)/(1<<20), "MiB")
	case n >= 1<<10:
		return unit(float64(n)/(1<<10), "KiB")
	}
	return fmt.Sprintf("%d bytes", n)
}
