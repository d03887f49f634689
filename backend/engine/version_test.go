package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/version"
)

// A stored answer says which build produced it: the answer, its record in
// the index, a cached answer served from it, and every audit line carry the
// running build's version.
func TestAnswersAndAuditLinesNameTheBuild(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	want := version.String()
	if want == "" {
		t.Fatal("version.String() is empty")
	}
	first, err := en.Ask(ctx, rag.Request{ID: "v1", Question: "How do I install on Linux?"}, nil)
	if err != nil || !first.Grounded {
		t.Fatalf("ask: %v %v", first.RefusalReason, err)
	}
	cached, err := en.Ask(ctx, rag.Request{ID: "v2", Question: "How do I install on Linux?"}, nil)
	if err != nil || cached.Cache == nil {
		t.Fatalf("second ask was not served from the cache: %+v %v", cached.Cache, err)
	}
	for _, a := range []rag.Answer{first, cached} {
		if a.Version != want {
			t.Errorf("answer %s: footnote_version %q, want %q", a.ID, a.Version, want)
		}
		rec, found, err := en.index().AnswerByID(ctx, a.ID)
		if err != nil || !found {
			t.Fatal(found, err)
		}
		if stored := AnswerFromRecord(rec); stored.Version != want {
			t.Errorf("stored answer %s: footnote_version %q, want %q", a.ID, stored.Version, want)
		}
	}
	log, err := os.ReadFile(en.AuditLogPath())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	for _, line := range lines {
		if !strings.Contains(line, " version="+want+" ") {
			t.Errorf("audit line without version=%s:\n%s", want, line)
		}
	}
	if len(lines) < 4 {
		t.Errorf("want question and segment lines of both answers, got %d", len(lines))
	}
}
