package app

import (
	"os"
	"testing"

	"github.com/footnote-app/footnote/backend/engine"
)

// TestMain lets this test binary serve as its own extractor child, so the
// tests parse rich formats the way the app does.
func TestMain(m *testing.M) {
	engine.RunExtractorIfChild()
	os.Exit(m.Run())
}
