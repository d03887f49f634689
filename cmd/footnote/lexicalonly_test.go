package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestWithoutAModelTheCLIIndexesAndSearchesByWords: with the embedding
// model folder missing, ingest, search and ask still work (by words, with a
// warning on stderr naming the fix), and doctor warns without failing.
func TestWithoutAModelTheCLIIndexesAndSearchesByWords(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	missing := filepath.Join(t.TempDir(), "no-model")
	t.Setenv("FOOTNOTE_EMBED_MODEL", missing)
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("the model folder should not exist")
	}

	code, out, errOut := runCLI(t, "ingest", lib)
	if code != 0 || !strings.Contains(out, "1 indexed") || !strings.Contains(errOut, "search by words only") {
		t.Fatalf("ingest exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "search", "--explain", "install Linux AppImage")
	if code != 0 || !strings.Contains(out, "install") || !strings.Contains(errOut, "searching by words only") || !strings.Contains(errOut, "footnote model download") {
		t.Fatalf("search exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(out, "vector") {
		t.Errorf("a vector retriever ran without a model:\n%s", out)
	}
	code, out, errOut = runCLI(t, "ask", "How do I install on Linux?")
	if code != 0 || !strings.Contains(out, "[#1]") {
		t.Fatalf("ask exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "doctor")
	if code != 0 || !strings.Contains(out, "warn embedding model") || !strings.Contains(out, missing) || !strings.Contains(out, "fix: run `footnote model download`") {
		t.Fatalf("doctor exit %d:\n%s", code, out)
	}
}
