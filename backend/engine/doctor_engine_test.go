package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/encoder"
)

// TestDoctorSaysWhatRunsTheModel: doctor's embedding-model line names the
// engine running it, so a slow machine's user can see why.
func TestDoctorSaysWhatRunsTheModel(t *testing.T) {
	en := newEngineWith(t, "127.0.0.1:1", nil, WithEmbedder(loadTestEmbedder(t)))
	want := "run by the built-in encoder"
	if !encoder.Supported() {
		want = "run by the Go ONNX backend (" // followed by why
	}
	for _, c := range en.Doctor(context.Background()) {
		if c.Name == "embedding model" {
			if !c.OK || !strings.Contains(c.Detail, want) {
				t.Fatalf("embedding model check: ok %v, %q; want it to say %q", c.OK, c.Detail, want)
			}
			return
		}
	}
	t.Fatal("doctor has no embedding model check")
}
