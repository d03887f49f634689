package main

import (
	"os"
	"testing"

	"github.com/footnote-app/footnote/backend/engine"
)

// TestMain lets this test binary serve as its own parser child, as main
// does, so the CLI's processes in these tests read rich formats the way
// footnote does.
func TestMain(m *testing.M) {
	engine.RunExtractorIfChild()
	os.Exit(m.Run())
}
