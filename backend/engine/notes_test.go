package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestReportsHowAFileWasDecoded: a text file saved in EUC-KR is
// indexed as Korean text, and the summary names the charset it was
// detected in, so the user can see why the text may look off.
func TestIngestReportsHowAFileWasDecoded(t *testing.T) {
	ctx := context.Background()
	en, _ := newTestEngine(t, "127.0.0.1:9")
	dir := t.TempDir()
	korean := "\xb4\xeb\xc7\xd1\xb9\xce\xb1\xb9\xc0\xc7 \xbc\xf6\xb5\xb5\xb4\xc2 \xbc\xad\xbf\xef\xc0\xd4\xb4\xcf\xb4\xd9. \xc7\xd1\xb1\xb9\xbe\xee \xb9\xae\xbc\xad\xb8\xa6 \xb0\xcb\xbb\xf6\xc7\xd2 \xbc\xf6 \xc0\xd6\xbe\xee\xbe\xdf \xc7\xd5\xb4\xcf\xb4\xd9."
	path := filepath.Join(dir, "seoul.txt")
	if err := os.WriteFile(path, []byte(korean), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain.md"), []byte("# Plain\n\nUTF-8 text.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := en.Ingest(ctx, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 2 || sum.FilesFailed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if len(sum.Notes) != 1 || sum.Notes[0].Path != path || !strings.Contains(sum.Notes[0].Error, "EUC-KR") {
		t.Errorf("notes = %+v, want one for %s naming EUC-KR", sum.Notes, path)
	}
	// The index keeps the charset after the report is gone: the Library
	// lists it with the file, and plain UTF-8 has none.
	docs, err := en.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	charsets := map[string]string{}
	for _, d := range docs {
		charsets[filepath.Base(d.Path)] = d.Charset
	}
	if !strings.HasPrefix(charsets["seoul.txt"], "EUC-KR") || charsets["plain.md"] != "" {
		t.Errorf("stored charsets %v, want EUC-KR for seoul.txt only", charsets)
	}
}
