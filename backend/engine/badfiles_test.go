package engine

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/search"
	"github.com/go-pdf/fpdf"
)

// badFile is one hostile or broken input of the bad-file suite. Files are
// generated here rather than committed so each case reads in source.
type badFile struct {
	name string // path relative to the library folder
	// make writes the case into dir; nil writes body to name.
	make func(t *testing.T, dir string)
	body []byte
	// want is where the file must end up: "error" (Summary.Errors),
	// "skipped" (Summary.Skipped) or "indexed".
	want string
	// says is a fragment the per-file message must contain.
	says string
}

func badFiles(t *testing.T) []badFile {
	pdf := func(protect bool, pages ...string) []byte {
		p := fpdf.New("P", "mm", "A4", "")
		if protect {
			p.SetProtection(fpdf.CnProtectPrint, "user-pw", "owner-pw")
		}
		p.SetFont("Helvetica", "", 11)
		for _, s := range pages {
			p.AddPage()
			p.Text(20, 20, s)
		}
		var buf bytes.Buffer
		if err := p.Output(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	full := pdf(false, "first page", "second page")
	deepXML := strings.Repeat("<w:p>", 5000) + "deep" + strings.Repeat("</w:p>", 5000)
	bomb := string(make([]byte, 8<<20)) // 8 MiB of NULs deflates about 1000:1
	files := []badFile{
		{name: "empty.md", body: nil, want: "indexed"},
		{name: "binary.md", body: []byte("\x00\x01\x02\x03binary\x00data"), want: "skipped", says: "binary"},
		{name: "png-named.md", body: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), want: "skipped", says: "binary"},
		{name: "text-named.pdf", body: []byte("# Not a PDF\n\nJust markdown.\n"), want: "error", says: "damaged"},
		{name: "text-named.docx", body: []byte("plain text, not a zip"), want: "error", says: ""},
		{name: "invalid-utf8.txt", body: []byte("caf\xe9 cr\xe8me \xff\xfe\xfd\n"), want: "error", says: "UTF-8"},
		// One 64 KiB line of words: no newline to split on.
		{name: "huge-line.txt", body: bytes.Repeat([]byte("lorem ipsum dolor sit amet, "), (64<<10)/28), want: "indexed"},
		// One 16 KiB unbroken "word" (base64 of random bytes): the
		// tokenizer's pre-tokenizer is quadratic in a word's length, so
		// the chunker must cut such runs into bounded windows (64 KiB took
		// about a minute before it did).
		{name: "base64-line.txt", body: base64Line(16 << 10), want: "indexed"},
		{name: "deep.html", body: []byte("<html><body>" + strings.Repeat("<div>", 100000) + "deep" + strings.Repeat("</div>", 100000) + "</body></html>"), want: "error", says: "deep"},
		{name: "deep.docx", body: zipOf(t, map[string]string{
			"[Content_Types].xml": `<?xml version="1.0"?><Types/>`,
			"word/document.xml":   `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + deepXML + `</w:body></w:document>`,
		}), want: "error", says: "deep"},
		{name: "bomb.docx", body: zipOf(t, map[string]string{
			"[Content_Types].xml": `<?xml version="1.0"?><Types/>`,
			"word/document.xml":   bomb,
		}), want: "error", says: "zip bomb"},
		{name: "bomb.epub", body: zipOf(t, map[string]string{
			"mimetype":               "application/epub+zip",
			"META-INF/container.xml": bomb,
		}), want: "error", says: "zip bomb"},
		{name: "encrypted.pdf", body: pdf(true, "secret"), want: "error", says: "encrypted"},
		{name: "truncated.pdf", body: full[:len(full)/2], want: "error", says: "damaged"},
		{name: "loop", make: func(t *testing.T, dir string) {
			if err := os.Symlink(".", filepath.Join(dir, "loop")); err != nil {
				t.Fatal(err)
			}
		}, want: "skipped", says: "loop"},
		{name: "dangling.md", make: func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(dir, "gone.md"), filepath.Join(dir, "dangling.md")); err != nil {
				t.Fatal(err)
			}
		}, want: "skipped", says: "broken"},
		// Tests run as root, so permissions cannot make a file unreadable; a
		// FIFO named like a document is the file that cannot be read.
		{name: "fifo.md", make: func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: "skipped", says: "not a regular file"},
		{name: "Ca\u0301fe\u0301 \u202Egnp.md \U0001F600 \u200B\nline.md", body: []byte("# Odd name\n\nThe zebrafinch appears only in the oddly named file.\n"), want: "indexed"},
	}
	if os.Geteuid() != 0 {
		// Permissions stop only non-root users: files and a folder nobody
		// may read. (As root the FIFO above is the unreadable file.)
		unreadable := func(name string, body []byte) func(t *testing.T, dir string) {
			return func(t *testing.T, dir string) {
				p := filepath.Join(dir, name)
				if body == nil {
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
					write(t, filepath.Join(p, "inside.md"), "# Hidden\n\nUnreachable text.\n")
				} else if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, 0); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(p, 0o755) }) // let TempDir clean up
			}
		}
		files = append(files,
			badFile{name: "unreadable.md", make: unreadable("unreadable.md", []byte("# Secret\n")), want: "skipped", says: "permission denied"},
			badFile{name: "unreadable.pdf", make: unreadable("unreadable.pdf", full), want: "error", says: "permission denied"},
			badFile{name: "unreadable-folder", make: unreadable("unreadable-folder", nil), want: "skipped", says: "permission denied"},
		)
	}
	return files
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range []string{"mimetype", "META-INF/container.xml", "[Content_Types].xml", "word/document.xml"} {
		body, ok := files[name]
		if !ok {
			continue
		}
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// peakHeap samples the heap until stop is called and returns the highest
// HeapAlloc seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// TestBadFileSuite puts every kind of hostile or broken file into one folder
// next to a good one: each bad file gets its own clear message naming it,
// the good files are indexed and searchable, and memory stays bounded.
func TestBadFileSuite(t *testing.T) {
	en, _ := newTestEngine(t, "http://127.0.0.1:1")
	ctx := context.Background()
	if err := en.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	lib := t.TempDir()
	cases := badFiles(t)
	for _, c := range cases {
		if c.make != nil {
			c.make(t, lib)
			continue
		}
		if err := os.WriteFile(filepath.Join(lib, c.name), c.body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A directory named like a document must be walked, not read.
	if err := os.MkdirAll(filepath.Join(lib, "folder.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	good := "# Good\n\nThe aardvark manual explains burrow maintenance in detail.\n"
	for _, p := range []string{"good.md", "folder.md/inner.md"} {
		if err := os.WriteFile(filepath.Join(lib, p), []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := peakHeap()
	sum, err := en.Ingest(ctx, []string{lib}, nil)
	peak := stop()
	if err != nil {
		t.Fatalf("one bad file must not stop the run: %v", err)
	}
	// Largest single input is 8 MiB; parsing must not balloon beyond a
	// small multiple of the 50 MiB per-file limit.
	const heapLimit = 400 << 20
	if peak > before.HeapAlloc && peak-before.HeapAlloc > heapLimit {
		t.Errorf("heap grew by %d MiB during the bad-file ingest (limit %d MiB)", (peak-before.HeapAlloc)>>20, heapLimit>>20)
	}
	t.Logf("bad files: %d cases, heap peak growth %d MiB; indexed %d, failed %d, skipped %d",
		len(cases), int64(peak-min(peak, before.HeapAlloc))>>20, sum.FilesIndexed, sum.FilesFailed, sum.FilesSkipped)

	find := func(list []FileError, name string) (FileError, bool) {
		for _, fe := range list {
			if filepath.Base(fe.Path) == filepath.Base(name) {
				return fe, true
			}
		}
		return FileError{}, false
	}
	for _, c := range cases {
		fe, inErr := find(sum.Errors, c.name)
		sk, inSkip := find(sum.Skipped, c.name)
		switch c.want {
		case "error":
			if !inErr {
				t.Errorf("%s: want a per-file error, got skipped=%v (%q)", c.name, inSkip, sk.Error)
				continue
			}
			if !strings.Contains(fe.Error, c.says) || fe.Error == "" {
				t.Errorf("%s: error %q should mention %q", c.name, fe.Error, c.says)
			}
		case "skipped":
			if !inSkip {
				t.Errorf("%s: want skipped with a reason, got error=%v (%q)", c.name, inErr, fe.Error)
				continue
			}
			if !strings.Contains(sk.Error, c.says) {
				t.Errorf("%s: reason %q should mention %q", c.name, sk.Error, c.says)
			}
		case "indexed":
			if inErr || inSkip {
				t.Errorf("%s: should be indexed, got error %q / skip %q", c.name, fe.Error, sk.Error)
			}
		}
	}
	for _, fe := range sum.Errors {
		if fe.Path == "" || !strings.HasPrefix(fe.Path, lib) {
			t.Errorf("error does not name its file: %+v", fe)
		}
	}

	res, err := en.Search(ctx, "aardvark burrow maintenance", searchOpts())
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, h := range res.Hits {
		paths[filepath.Base(h.Path)] = true
	}
	if !paths["good.md"] || !paths["inner.md"] {
		t.Errorf("good files next to bad ones were not indexed; hits from %v", paths)
	}
	res, err = en.Search(ctx, "zebrafinch oddly named", searchOpts())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Path, "\u202E") {
		t.Errorf("file with an odd Unicode name not found: %+v", res.Hits)
	}
}

func searchOpts() search.Options { return search.Options{Mode: search.ModeHybrid, TopK: 20} }

// base64Line returns n bytes of base64 text without a single space or newline.
func base64Line(n int) []byte {
	raw := make([]byte, n*3/4)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return []byte(base64.StdEncoding.EncodeToString(raw))
}
