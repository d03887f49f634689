package app

import (
	"flag"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/internal/tsgen"
)

// update rewrites the generated TypeScript: `make types`, or
// `go test ./app -run TestGeneratedTypesMatchGo -args -update`.
var update = flag.Bool("update", false, "rewrite "+generatedTypesPath+" from the Go types")

const generatedTypesPath = "../frontend/src/generated/models.ts"

// boundEvents is every event the app emits, with its payload type.
var boundEvents = []tsgen.Event{
	{Name: EventAnswerStart, TSName: "AnswerStartEvent", Payload: reflect.TypeFor[startEvent]()},
	{Name: EventAnswerToken, TSName: "AnswerTokenEvent", Payload: reflect.TypeFor[tokenEvent]()},
	{Name: EventAnswerDone, TSName: "AnswerDoneEvent", Payload: reflect.TypeFor[doneEvent]()},
	{Name: EventAnswerError, TSName: "AnswerErrorEvent", Payload: reflect.TypeFor[errorEvent]()},
	{Name: EventIngestProgress, TSName: "IngestProgressEvent", Payload: reflect.TypeFor[engine.Progress]()},
	{Name: EventModelProgress, TSName: "ModelProgressEvent", Payload: reflect.TypeFor[engine.ModelProgress]()},
	{Name: EventModelPull, TSName: "PullProgressEvent", Payload: reflect.TypeFor[PullProgress]()},
	{Name: EventEvalProgress, TSName: "EvalProgress", Payload: reflect.TypeFor[engine.EvalProgress]()},
}

const generatedHeader = `// Code generated from the Go types crossing the Wails boundary; DO NOT EDIT.
// Regenerate with ` + "`make types`" + ` (app/generated_types_test.go checks it is current).
`

// The TypeScript the UI compiles against is generated from the Go types of
// the bound methods and the emitted events; this fails when the two drift.
func TestGeneratedTypesMatchGo(t *testing.T) {
	got, err := tsgen.Generate(generatedHeader, tsgen.Methods(reflect.TypeFor[*App]()), boundEvents)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(generatedTypesPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(generatedTypesPath)
	if err != nil {
		t.Fatalf("%v; run `make types` to generate it", err)
	}
	if string(want) != got {
		t.Fatalf("frontend/src/generated/models.ts no longer matches the Go types crossing the Wails boundary; run `make types` and commit the result.\n%s", firstDifference(string(want), got))
	}
}

// firstDifference shows the first line where the committed and the
// generated text differ.
func firstDifference(committed, generated string) string {
	c, g := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	for i := range max(len(c), len(g)) {
		var cl, gl string
		if i < len(c) {
			cl = c[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if cl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  committed: " + cl + "\n  generated: " + gl
		}
	}
	return ""
}
