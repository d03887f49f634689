package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
)

// TestAnswerabilityGateReadsNegationAndYears, through the engine with the
// default settings: a question that asks what is not so, against passages
// that negate nothing, and one about a year no passage states while the
// passage about it states another, are refused before the model is called,
// with the signal on the answer and the audit line; the same library
// answers the question it holds.
func TestAnswerabilityGateReadsNegationAndYears(t *testing.T) {
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	en := newEngineWith(t, fake.URL(), nil, WithEmbedder(loadTestEmbedder(t)))
	ctx := context.Background()
	lib := writeFiles(t, map[string]string{
		"uploads.md": "# Uploads\n\nSince 2021 the upload limit is 40 MB per file. Larger files are rejected with a message.\n",
		"cache.md":   "# Answer cache\n\nThe answer cache keeps answers for 30 days. After that they expire.\n",
	})
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, signal, why string }{
		{"Which files are not rejected by the upload limit?", rag.SignalNegation, "the question asks what is not so (“not”)"},
		{"What was the upload limit per file in 2019?", rag.SignalValues, "the question asks about “2019”, which no passage found states; the best passage speaks of “2021” instead"},
		{"What is the upload limit per file?", "", ""},
	} {
		calls := len(fake.Requests())
		ans, err := en.Ask(ctx, rag.Request{ID: "q" + tc.signal, Question: tc.q}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.signal == "" {
			if ans.RefusalReason != nil || !ans.Grounded || len(fake.Requests()) != calls+1 {
				t.Errorf("%q: refused %v (%+v), grounded %v", tc.q, ans.RefusalReason, ans.Retrieval.RefusedBy, ans.Grounded)
			}
			continue
		}
		by := ans.Retrieval.RefusedBy
		if ans.RefusalReason == nil || *ans.RefusalReason != rag.RefusalUnanswerable || by == nil || by.Signal != tc.signal ||
			!strings.HasPrefix(by.Why, tc.why) || len(fake.Requests()) != calls || len(ans.Nearest) == 0 {
			t.Errorf("%q: reason %v, refused by %+v, model called %d times, nearest %d", tc.q, ans.RefusalReason, by,
				len(fake.Requests())-calls, len(ans.Nearest))
		}
	}
	log, err := os.ReadFile(filepath.Join(en.Config().Home, provenance.AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, signal := range []string{rag.SignalNegation, rag.SignalValues} {
		if !strings.Contains(string(log), " refused_by="+signal+":") {
			t.Errorf("no audit line with refused_by=%s:\n%s", signal, log)
		}
	}
}
