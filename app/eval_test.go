package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/eval"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func TestEvaluateEmitsProgressAndReport(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	gold := filepath.Join(t.TempDir(), "gold.json")
	body := `[{"qid":"linux","q":"How do I install on Linux?","answerable":true,"gold_ids":["guide/guide/linux"],"gold_claim":"download the AppImage"},
	{"qid":"price","q":"How much does a licence cost?","answerable":false}]`
	if err := os.WriteFile(gold, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := a.Evaluate(gold)
	if err != nil {
		t.Fatal(err)
	}
	// The unanswerable question finds no evidence above the score gate, so
	// the pipeline refuses it before asking the model.
	if len(rep.Rows) != 2 || rep.Rows[0].Label != eval.LabelOK || rep.Rows[1].Label != eval.LabelRefusalOK || !rep.Passed {
		t.Errorf("report rows %+v, passed %v", rep.Rows, rep.Passed)
	}
	if !strings.Contains(rep.Markdown, "PASS under_refusal") || !strings.Contains(rep.Markdown, "| linux | 1 | OK |") {
		t.Errorf("markdown:\n%s", rep.Markdown)
	}
	var progress []eval.Progress
	rec.mu.Lock()
	for _, e := range rec.events {
		if e.name == EventEvalProgress {
			progress = append(progress, e.payload.(eval.Progress))
		}
	}
	rec.mu.Unlock()
	if len(progress) != 2 || progress[1] != (eval.Progress{Done: 2, Total: 2, QID: "price"}) {
		t.Errorf("progress events %+v", progress)
	}
	if _, err := a.Evaluate(" "); err == nil || !strings.Contains(err.Error(), "gold set") {
		t.Errorf("empty path: %v", err)
	}
	if a.DefaultGoldSet() != "" {
		t.Error("no startup folders: no default gold set")
	}
	IndexOnStart(a, []string{filepath.Join(filepath.Dir(gold), "library")})
	if got := a.DefaultGoldSet(); got != gold {
		t.Errorf("DefaultGoldSet = %q, want %q", got, gold)
	}
}
