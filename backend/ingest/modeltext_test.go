package ingest_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/verify"
)

type wordCounter struct{}

func (wordCounter) CountTokens(s string) int { return len(strings.Fields(s)) + 2 }

// TestModelTextDetectorOnRealFiles measures the ingest-time detector of
// model-made text over every file of the sample library and of the format
// test data, read exactly as ingest reads them (PDF, DOCX, EPUB, HTML
// included): an ordinary document kept out of evidence is a silent loss,
// so none of them may be flagged.
func TestModelTextDetectorOnRealFiles(t *testing.T) {
	d := verify.NewDetector(rag.SystemPrompt())
	for _, set := range []struct {
		name    string
		root    string
		atLeast int
	}{
		{"sample library", filepath.Join("..", "..", "sample", "library"), 12},
		{"format test data", "testdata", 13},
		// The project's own documentation explains [#n] markers, role tags
		// and the prompt's rules: the hardest ordinary documents there are.
		{"project docs", filepath.Join("..", "..", "docs"), 1},
	} {
		files, _, err := ingest.Scan([]string{set.root}, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		read, flagged := 0, 0
		for _, f := range files {
			if strings.Contains(f.Path, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
				continue // fuzz seeds, not documents
			}
			doc, err := ingest.Load(f, wordCounter{}, ingest.Options{}, time.Now())
			if err != nil {
				continue // the broken files of the test data; their reading is tested elsewhere
			}
			read++
			if got := d.Detect(doc.Text); got.Source != corpus.SourceCorpus {
				flagged++
				t.Errorf("%s: %s flagged as %s: %s (cues %v)", set.name, f.Path, got.Source, got.Reason, got.Cues)
			}
		}
		t.Logf("%s: %d files read, %d flagged as model-made", set.name, read, flagged)
		if read < set.atLeast {
			t.Errorf("%s: only %d files read, want at least %d", set.name, read, set.atLeast)
		}
	}
}
