package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
)

func writeFile(t *testing.T, path string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScan(t *testing.T) {
	root := t.TempDir()
	w := func(rel, data string) { writeFile(t, filepath.Join(root, rel), data) }
	w("a.md", "# A\n")
	w("B.MARKDOWN", "# B\n")
	w("c.txt", "plain")
	w("d.exe", "MZ")
	w("README", "no extension")
	w(".hidden.md", "secret")
	w(".git/config.md", "x")
	w("sub/e.md", "e")
	w("sub/deeper/f.txt", "f")
	w("bin.md", "text\x00more")
	w("big.txt", strings.Repeat("x", 200))
	if err := os.Symlink(root, filepath.Join(root, "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a.md"), filepath.Join(root, "sub", "alias.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "missing.md"), filepath.Join(root, "broken.md")); err != nil {
		t.Fatal(err)
	}

	files, skips, err := Scan([]string{root}, Options{MaxFileBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	var gotFiles []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		gotFiles = append(gotFiles, rel+":"+f.Format)
		if !filepath.IsAbs(f.Path) || f.Size <= 0 || f.ModTime.IsZero() {
			t.Errorf("file %+v: want absolute path, size and mod time", f)
		}
	}
	wantFiles := []string{"B.MARKDOWN:md", "a.md:md", "c.txt:txt", "sub/deeper/f.txt:txt", "sub/e.md:md"}
	if !reflect.DeepEqual(gotFiles, wantFiles) {
		t.Errorf("files = %v, want %v", gotFiles, wantFiles)
	}
	gotSkips := map[string]string{}
	for _, s := range skips {
		rel, _ := filepath.Rel(root, s.Path)
		gotSkips[rel] = s.Reason
	}
	wantSkips := map[string]string{
		".git":         "hidden folder",
		".hidden.md":   "hidden file",
		"README":       "unsupported file type (no extension)",
		"d.exe":        "unsupported file type .exe",
		"bin.md":       "binary file",
		"big.txt":      "file too large (200 bytes, limit 100 bytes)",
		"broken.md":    "broken symbolic link",
		"sub/loop":     "folder already scanned (symbolic link loop or duplicate)",
		"sub/alias.md": "same file as " + filepath.Join(root, "a.md"),
	}
	if !reflect.DeepEqual(gotSkips, wantSkips) {
		t.Errorf("skips:\n got %v\nwant %v", gotSkips, wantSkips)
	}

	// Scanning again gives the same answer.
	files2, skips2, err := Scan([]string{root}, Options{MaxFileBytes: 100})
	if err != nil || !reflect.DeepEqual(files, files2) || !reflect.DeepEqual(skips, skips2) {
		t.Error("second scan differs")
	}
}

func TestScanExplicitPaths(t *testing.T) {
	root := t.TempDir()
	hidden := filepath.Join(root, ".notes.md")
	writeFile(t, hidden, "explicitly chosen")
	files, _, err := Scan([]string{hidden, root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != hidden {
		t.Errorf("files = %+v, want only the explicitly named hidden file", files)
	}

	missing := filepath.Join(root, "nope")
	_, _, err = Scan([]string{root, missing}, Options{})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("nonexistent path: err = %v", err)
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "notes", "guide.md")
	content := "\uFEFFIntro ☕.\r\n\r\n# Install Guide\r\n\tStep one 😀 then step two.\r\n## 리눅스\r\napt install\r\n"
	writeFile(t, path, content)
	files, _, err := Scan([]string{root}, Options{})
	if err != nil || len(files) != 1 {
		t.Fatalf("scan: %v %v", files, err)
	}
	doc, err := Load(files[0], wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != content || doc.Path != path || doc.DocID != corpus.DocID(path) || doc.Rev != corpus.Rev([]byte(content)) {
		t.Errorf("doc identity/text wrong: %+v", doc)
	}
	if doc.Title != "Install Guide" || doc.Format != "md" || doc.Size != int64(len(content)) || !doc.ModTime.Equal(files[0].ModTime) {
		t.Errorf("doc metadata wrong: title %q format %q size %d", doc.Title, doc.Format, doc.Size)
	}
	var ids []string
	for _, s := range doc.Sections {
		ids = append(ids, s.SectionID)
	}
	if want := []string{"guide", "guide/install-guide", "guide/install-guide/리눅스"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("sections = %v, want %v", ids, want)
	}
	checkInvariants(t, doc.Text, doc.Sections, doc.Chunks, wordCounter{}, Options{}.WithDefaults())

	again, err := Load(files[0], wordCounter{}, Options{}, testNow)
	if err != nil || !reflect.DeepEqual(doc, again) {
		t.Error("reloading an unchanged file gave a different document")
	}
}

func TestLoadErrors(t *testing.T) {
	root := t.TempDir()
	bad := filepath.Join(root, "a.md")
	writeFile(t, bad, "good text \xc3\x28 broken")
	_, err := Load(File{Path: bad, Format: "md"}, wordCounter{}, Options{}, testNow)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "not valid UTF-8 at byte 10") {
		t.Errorf("invalid UTF-8: err = %v", err)
	}

	bin := filepath.Join(root, "b.txt")
	writeFile(t, bin, strings.Repeat("a", 9000)+"\x00")
	_, err = Load(File{Path: bin, Format: "txt"}, wordCounter{}, Options{}, testNow)
	if err == nil || !strings.Contains(err.Error(), "binary file") {
		t.Errorf("NUL after sniff window: err = %v", err)
	}

	big := filepath.Join(root, "c.txt")
	writeFile(t, big, strings.Repeat("a", 101))
	_, err = Load(File{Path: big}, wordCounter{}, Options{MaxFileBytes: 100}, testNow)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("too large: err = %v", err)
	}

	_, err = Load(File{Path: filepath.Join(root, "gone.md")}, wordCounter{}, Options{}, testNow)
	if err == nil || !strings.Contains(err.Error(), "gone.md") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestLoadEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.txt")
	writeFile(t, path, "")
	doc, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Chunks) != 0 || len(doc.Sections) != 1 || doc.Format != "txt" || doc.Title != "empty" {
		t.Errorf("empty file: %+v", doc)
	}
}
