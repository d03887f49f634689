package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// The Evaluate view reads citation recall and precision from the report's
// top level and each row; a refusal has none (null).
func TestEvaluateReportsCitationQuality(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, _, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	gold := filepath.Join(t.TempDir(), "gold.json")
	body := `[{"qid":"linux","q":"How do I install on Linux?","answerable":true,"gold_ids":["guide/guide/linux"]},
	{"qid":"price","q":"How much does a licence cost?","answerable":false}]`
	if err := os.WriteFile(gold, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := a.Evaluate(gold)
	if err != nil {
		t.Fatal(err)
	}
	if rep.CitationAnswers != 1 || rep.CitationRecall == nil || rep.CitationPrecision == nil {
		t.Fatalf("citation quality over %d answers: recall %v precision %v", rep.CitationAnswers, rep.CitationRecall, rep.CitationPrecision)
	}
	if rep.Rows[0].CitationRecall == nil || rep.Rows[1].CitationRecall != nil {
		t.Errorf("rows: answered %v, refused %v", rep.Rows[0].CitationRecall, rep.Rows[1].CitationRecall)
	}
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"citation_recall":`, `"citation_precision":`, `"citation_answers":1`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("report JSON lacks %s", key)
		}
	}
}
