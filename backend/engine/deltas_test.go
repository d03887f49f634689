package engine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
)

// ΔS is recorded wherever an answer is: its record (question and each
// citation), its audit log lines and its rag_traces rows, with the λ state
// and the analyzer; the values agree across them.
func TestDeltaSRecordedInEveryRecord(t *testing.T) {
	en, _, _ := ingestedEngine(t)
	ctx := context.Background()
	ans, err := en.AskWith(ctx, rag.Request{ID: "d1", Question: "How do I install on Linux?"}, nil, AskOptions{Fresh: true})
	if err != nil || !ans.Grounded {
		t.Fatalf("ask: %v %v", ans.RefusalReason, err)
	}
	r := ans.Retrieval
	if r.DeltaS == nil || r.DeltaSBackground == nil || *r.DeltaS < 0 || *r.DeltaS > 2 || r.DeltaSGate == "" {
		t.Fatalf("retrieval ΔS %v background %v gate %q", r.DeltaS, r.DeltaSBackground, r.DeltaSGate)
	}
	if len(ans.Citations) == 0 || ans.Citations[0].DeltaS == nil || *ans.Citations[0].DeltaS < *r.DeltaS {
		t.Fatalf("citations carry no ΔS, or one below the best: %+v", ans.Citations)
	}
	if ans.Lambda == "" {
		t.Error("no λ state on the answer")
	}
	rec, _, err := en.index().AnswerByID(ctx, ans.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := rag.FromRecord(rec)
	if err != nil || stored.Retrieval.DeltaS == nil || *stored.Retrieval.DeltaS != *r.DeltaS || stored.Lambda != ans.Lambda ||
		stored.Citations[0].DeltaS == nil {
		t.Fatalf("stored answer lost ΔS or λ: %+v %q %v", stored.Retrieval, stored.Lambda, err)
	}
	rows, err := en.index().Traces(ctx, "d1")
	if err != nil || len(rows) < 2 {
		t.Fatalf("rag_traces: %v %v", rows, err)
	}
	if q := rows[0]; q.DeltaS == nil || *q.DeltaS != *r.DeltaS || q.Lambda != ans.Lambda || !strings.HasPrefix(q.Analyzer, "fts5:") {
		t.Errorf("question row: ΔS %v λ %q analyzer %q", q.DeltaS, q.Lambda, q.Analyzer)
	}
	for _, seg := range rows[1:] {
		if len(seg.Citations) > 0 && seg.DeltaS == nil {
			t.Errorf("segment %d cites %v but has no ΔS", seg.Seg, seg.Citations)
		}
	}
	log, err := os.ReadFile(filepath.Join(en.Config().Home, provenance.AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	deltaS := regexp.MustCompile(`qid=d1 seg=0 deltaS=(\S+) lambda=(\S+) `).FindStringSubmatch(string(log))
	if deltaS == nil {
		t.Fatalf("no question line for d1:\n%s", log)
	}
	if v, err := strconv.ParseFloat(deltaS[1], 64); err != nil || v != float64(int(*r.DeltaS*1000+0.5))/1000 || deltaS[2] != ans.Lambda {
		t.Errorf("audit line deltaS=%s lambda=%s, want %.3f and %s", deltaS[1], deltaS[2], *r.DeltaS, ans.Lambda)
	}
}
