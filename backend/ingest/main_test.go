package ingest

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as its own extractor child, so the
// tests parse rich formats the way Footnote does.
func TestMain(m *testing.M) {
	RunExtractorIfChild()
	os.Exit(m.Run())
}
