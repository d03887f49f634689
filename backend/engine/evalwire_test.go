package engine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/eval"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
)

// Live evaluation neither serves answers from the answer cache nor puts
// its answers there.
func TestLiveEvaluationBypassesTheAnswerCache(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	cached := func() int {
		t.Helper()
		recs, err := en.index().CacheCandidates(ctx, en.SettingsHash(), en.pipeline().Provider+"/"+en.pipeline().Model, rag.TemplateVersion)
		if err != nil {
			t.Fatal(err)
		}
		return len(recs)
	}
	ask := eval.LiveAsker(en, eval.LiveOptions{K: 10})
	q := eval.QA{QID: "e1", Q: "How do I install on Linux?", Answerable: true, GoldIDs: []string{"x"}}
	if _, err := ask(ctx, q, q.Q, 1); err != nil {
		t.Fatal(err)
	}
	if n := cached(); n != 0 {
		t.Fatalf("a live evaluation answer was put in the answer cache (%d entries)", n)
	}
	// A user's answer fills the cache; the evaluation still asks the model.
	if ans, err := en.Ask(ctx, rag.Request{ID: "u1", Question: q.Q}, nil); err != nil || !ans.Grounded {
		t.Fatalf("user ask: %+v %v", ans.RefusalReason, err)
	}
	if n := cached(); n != 1 {
		t.Fatalf("the user's answer should be cached once, got %d entries", n)
	}
	calls := len(fake.Requests())
	if _, err := ask(ctx, q, q.Q, 1); err != nil {
		t.Fatal(err)
	}
	if len(fake.Requests()) != calls+1 {
		t.Fatalf("live evaluation was served from the cache: model calls %d → %d", calls, len(fake.Requests()))
	}
	if n := cached(); n != 1 {
		t.Fatalf("cache entries after the evaluation: %d, want 1", n)
	}
}

// auditLinePattern is the conventional key order of an audit log line.
var auditLinePattern = regexp.MustCompile(`^ts=\S+ qid=(\S+) seg=\d+ deltaS=\S+ lambda=\S+ k=\d+ store=\S+ index_hash=\S+ embed=\S+ ` +
	`citations=(\S+) scores=\S+ kpos=\S+ kfinal=\S+ section_id=\S+ rev=\S+ kind=(\S+) trace_id=(\S+) version=\S+(?: evidence_sources=\S+ validation=\S+(?: refused_by=\S+)?| code=\S+ severity=\S+)? text=".*"$`)

// One answer can be followed by its trace id from its record through its
// audit log lines to its rag_traces rows; the lines keep the conventional
// key order, and a refusal logs the passages it found.
func TestTraceIDFollowsAnAnswerThroughEveryRecord(t *testing.T) {
	// Questions about the index get an uncited answer, which the pipeline
	// refuses (no_citations).
	fake := ollamafake.New(ollamafake.WithResponder(func(req llm.ChatRequest) ollamafake.Reply {
		if last := req.Messages[len(req.Messages)-1].Content; strings.Contains(last, "Where is the index kept?") {
			return ollamafake.Reply{Tokens: ollamafake.Words("I am not sure.")}
		}
		return ollamafake.DefaultResponder(req)
	}))
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	ans, err := en.AskWith(ctx, rag.Request{ID: "w1", Question: "How do I install on Linux?"}, nil, AskOptions{Fresh: true})
	if err != nil || !ans.Grounded {
		t.Fatalf("ask: %v %v", ans.RefusalReason, err)
	}
	if ans.Schema != rag.AnswerSchema || !strings.HasPrefix(ans.TraceID, "tr_") {
		t.Fatalf("schema %q trace id %q", ans.Schema, ans.TraceID)
	}
	rec, found, err := en.index().AnswerByID(ctx, ans.ID)
	if err != nil || !found {
		t.Fatal(found, err)
	}
	stored, err := rag.FromRecord(rec)
	if err != nil || stored.TraceID != ans.TraceID || stored.Schema != rag.AnswerSchema {
		t.Fatalf("stored record: trace id %q schema %q, want %q", stored.TraceID, stored.Schema, ans.TraceID)
	}
	rows, err := en.index().Traces(ctx, "w1")
	if err != nil || len(rows) < 2 {
		t.Fatalf("rag_traces: %v %v", rows, err)
	}
	for _, r := range rows {
		if r.TraceID != ans.TraceID || r.K != ans.Retrieval.K || r.K == 0 {
			t.Errorf("rag_traces row %d: trace id %q k %d, want %q and %d", r.Seg, r.TraceID, r.K, ans.TraceID, ans.Retrieval.K)
		}
	}
	// A second question the pipeline refuses (nothing packed is cited) still
	// logs the candidate passages on its question line.
	refused, err := en.AskWith(ctx, rag.Request{ID: "w2", Question: "Where is the index kept?"}, nil, AskOptions{Fresh: true})
	if err != nil || !refused.Refused() || refused.TraceID == ans.TraceID {
		t.Fatalf("refused ask: refused=%v trace %q err %v", refused.Refused(), refused.TraceID, err)
	}
	log, err := os.ReadFile(filepath.Join(en.Config().Home, provenance.AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		m := auditLinePattern.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("audit line out of the conventional key order:\n%s", line)
			continue
		}
		want := map[string]string{"w1": ans.TraceID, "w2": refused.TraceID}[m[1]]
		if m[4] != want {
			t.Errorf("line of %s carries trace id %s, want %s", m[1], m[4], want)
		}
		if m[1] == "w2" && m[3] == "question" && m[2] == "-" {
			t.Errorf("the refusal's question line lists no candidate passages: %s", line)
		}
		lines++
	}
	if lines < 3 {
		t.Errorf("want the question and segment lines of both answers, got %d lines", lines)
	}
	// The uncited answer's validator code is on its question line, and on a
	// line of its own with the fix.
	if !regexp.MustCompile(`qid=w2 seg=0 .* kind=question .* validation=empty_citations text=`).Match(log) ||
		!regexp.MustCompile(`qid=w2 seg=0 .* kind=check .* code=empty_citations severity=error text=".*Fix: `).Match(log) {
		t.Errorf("the uncited answer's empty_citations is not logged:\n%s", log)
	}
}
