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

// linkedLibrary builds base/notes with links leading out of it (a file and a
// folder in base/secrets, and base itself), a link inside it and a link
// loop, and returns notes.
func linkedLibrary(t *testing.T) (notes string) {
	t.Helper()
	base := t.TempDir()
	notes = filepath.Join(base, "notes")
	writeFile(t, filepath.Join(notes, "a.md"), "# A\n")
	writeFile(t, filepath.Join(notes, "sub", "b.md"), "# B\n")
	writeFile(t, filepath.Join(base, "secrets", "creds.txt"), "password=hunter2")
	writeFile(t, filepath.Join(base, "secrets", "more.md"), "# More secrets\n")
	for link, target := range map[string]string{
		"leak.md":    "../secrets/creds.txt", // a file outside
		"outdir":     "../secrets",           // a folder outside
		"z-alias.md": "a.md",                 // a file inside: indexed once, at its own path
		"sub/up":     "..",                   // a loop inside
		"sub/base":   "../..",                // a loop through the folder's parent
		"loop1.md":   "loop2.md",             // links pointing at each other
		"loop2.md":   "loop1.md",
	} {
		if err := os.Symlink(target, filepath.Join(notes, link)); err != nil {
			t.Fatal(err)
		}
	}
	return notes
}

func relNames(root string, files []File, skips []Skip) (got []string, reasons map[string]string) {
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, rel)
	}
	reasons = map[string]string{}
	for _, s := range skips {
		rel, _ := filepath.Rel(root, s.Path)
		reasons[rel] = s.Reason
	}
	return got, reasons
}

func TestScanSkipsLinksLeadingOutOfTheFolder(t *testing.T) {
	notes := linkedLibrary(t)
	files, skips, err := Scan([]string{notes}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, reasons := relNames(notes, files, skips)
	if want := []string{"a.md", "sub/b.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	wantReasons := map[string]string{
		"leak.md":    "a link to a file outside the folder (../secrets/creds.txt); allow links outside the folder in Settings (follow_outside_links) to index it",
		"outdir":     "a link to a folder outside the folder (../secrets); allow links outside the folder in Settings (follow_outside_links) to index it",
		"z-alias.md": "same file as " + filepath.Join(notes, "a.md"),
		"sub/up":     "folder already scanned (symbolic link loop or duplicate)",
		"sub/base":   "a link to a folder outside the folder (../..); allow links outside the folder in Settings (follow_outside_links) to index it",
		"loop1.md":   "broken symbolic link",
		"loop2.md":   "broken symbolic link",
	}
	if !reflect.DeepEqual(reasons, wantReasons) {
		t.Errorf("skips:\n got %v\nwant %v", reasons, wantReasons)
	}

	// Allowed: what the links lead to is indexed, each real file once, and
	// the loop through the parent folder still ends.
	files, skips, err = Scan([]string{notes}, Options{FollowOutsideLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	got, reasons = relNames(notes, files, skips)
	if want := []string{"a.md", "leak.md", "outdir/more.md", "sub/b.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with outside links allowed: files = %v, want %v", got, want)
	}
	if r := reasons["outdir/creds.txt"]; r != "same file as "+filepath.Join(notes, "leak.md") {
		t.Errorf("outdir/creds.txt: %q, want a duplicate of leak.md", r)
	}
}

func TestScanWithinJudgesLinksAgainstTheFolder(t *testing.T) {
	notes := linkedLibrary(t)
	for _, tc := range []struct {
		path, wantReason string
	}{
		{"leak.md", "a link to a file outside the folder (../secrets/creds.txt)"},
		{"outdir", "a link to a folder outside the folder (../secrets)"},
		// Not a link itself, but reached through one.
		{"outdir/more.md", "a link to a file outside the folder (" + filepath.Join(filepath.Dir(realPath(notes)), "secrets", "more.md") + ")"},
	} {
		files, skips, err := ScanWithin(notes, []string{filepath.Join(notes, tc.path)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 0 || len(skips) != 1 || !strings.HasPrefix(skips[0].Reason, tc.wantReason) {
			t.Errorf("%s: files %v, skips %v; want skipped with %q", tc.path, files, skips, tc.wantReason)
		}
	}
	files, _, err := ScanWithin(notes, []string{filepath.Join(notes, "z-alias.md"), filepath.Join(notes, "sub")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := relNames(notes, files, nil); !reflect.DeepEqual(got, []string{"z-alias.md", "sub/b.md"}) {
		t.Errorf("links inside the folder: files = %v", got)
	}
	files, _, err = ScanWithin(notes, []string{filepath.Join(notes, "leak.md")}, Options{FollowOutsideLinks: true})
	if err != nil || len(files) != 1 {
		t.Errorf("allowed outside link: %v, %v", files, err)
	}
	// A link named explicitly is the user's choice.
	files, _, err = Scan([]string{filepath.Join(notes, "leak.md")}, Options{})
	if err != nil || len(files) != 1 {
		t.Errorf("explicitly named link: %v, %v", files, err)
	}
}

func TestHumanBytesDropsAZeroDecimal(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1024 MiB", 1536: "1.5 KiB", 3 << 20: "3 MiB", 900: "900 bytes"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
