package engine

import (
	"os"
	"testing"

	"github.com/footnote-app/footnote/backend/ingest"
)

// TestMain lets this test binary serve as its own extractor child, so the
// tests parse rich formats the way Footnote does.
func TestMain(m *testing.M) {
	ingest.RunExtractorIfChild()
	os.Exit(m.Run())
}
