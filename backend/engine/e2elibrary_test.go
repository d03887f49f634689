package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/ingest"
)

// e2eLibrary holds the documents the browser E2E (scripts/e2e.sh) adds to
// the sample library.
const e2eLibrary = "../../frontend/e2e/library"

// TestE2ELibraryLinesFitOneChunk holds what the browser E2E's steps rely on
// whatever model indexes the library: every line of text in its documents
// lies whole inside one chunk, so the fake model quotes each asserted
// sentence from one passage and cites it. The generated test model (128
// positions, a small vocabulary) gives the smallest chunks; MODEL_SRC, when
// set, adds the model the suite runs with (CI repeats this with the shared
// bert-tiny and MiniLM shapes). Once, a planted sentence of 219 characters
// was cut in two by the generated model and every newcomer's E2E failed.
func TestE2ELibraryLinesFitOneChunk(t *testing.T) {
	dirs := []string{embedtest.TinyDir(t)}
	if d := embedtest.Dir(t); d != dirs[0] {
		dirs = append(dirs, d)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			emb, err := embed.Load(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			en := newEngineWith(t, "", nil, WithEmbedder(emb))
			opts := en.ingestOptions()
			files, _, err := ingest.Scan([]string{e2eLibrary}, opts)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, f := range files {
				if f.Format != "md" && f.Format != "txt" {
					continue // broken.pdf is there to fail
				}
				doc, err := ingest.Load(f, emb, opts, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(doc.Text, "\n") {
					line = strings.TrimSpace(line)
					if line == "" || strings.HasPrefix(line, "#") {
						continue
					}
					checked++
					whole := false
					for _, c := range doc.Chunks {
						whole = whole || strings.Contains(c.Text, line)
					}
					if !whole {
						t.Errorf("%s: no chunk of the %d (at most %d tokens each) holds the line %q whole; shorten it",
							filepath.Base(f.Path), len(doc.Chunks), opts.ChunkTokens, line)
					}
				}
			}
			if checked < 6 {
				t.Fatalf("checked %d lines of %d files; the E2E library is not where this test looks", checked, len(files))
			}
		})
	}
}
