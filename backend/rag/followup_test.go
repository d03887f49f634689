package rag

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/search"
)

type queryRecorder struct {
	fakeRetriever
	queries []string
}

func (q *queryRecorder) Search(ctx context.Context, query string, opts search.Options) (search.Result, error) {
	q.queries = append(q.queries, query)
	return q.fakeRetriever.Search(ctx, query, opts)
}

func TestParseRewrite(t *testing.T) {
	for reply, want := range map[string]string{
		"Standalone question: Who designed the main office?":    "Who designed the main office?",
		"  standalone question: \"Where is the office?\"\n":     "Where is the office?",
		"Who designed the main office?":                         "", // no prefix
		"Standalone question: A\nStandalone question: B":        "", // two lines
		"Standalone question: ":                                 "",
		"Standalone question: It was Mara Lind [#1].":           "", // an answer, with a citation
		"Standalone question: " + strings.Repeat("word ", 100):  "",
		"Sure! Here it is.\nStandalone question: Who designed?": "",
	} {
		got, ok := ParseRewrite(reply)
		if got != want || ok != (want != "") {
			t.Errorf("ParseRewrite(%q) = %q, %v; want %q", reply, got, ok, want)
		}
	}
}

// TestFollowupFallbackWhenRewriteUnusable: a model that answers instead of
// rewriting, and one that cannot be reached, both lead to the deterministic
// fallback, which is what retrieval searches for.
func TestFollowupFallbackWhenRewriteUnusable(t *testing.T) {
	history := []Turn{{Question: "When was the main office opened?", Standalone: "When was the main office opened?"}}
	for name, model := range map[string]llm.LLM{
		"answers instead": &scriptedLLM{tokens: []string{"The main office opened in 1998 [#1]."}},
		"unreachable":     failingLLM{},
	} {
		ret := &queryRecorder{fakeRetriever: fakeRetriever{[]search.Hit{hit("a", 0.9, 20)}}}
		p := newPipeline(nil, model, nil)
		p.Retriever = ret
		ans, _ := p.Ask(context.Background(), Request{ID: "r", Question: "And who designed it?", History: history}, &recordingSink{})
		f := ans.Followup
		const want = "And who designed it? (main office opened)"
		if f == nil || f.Standalone != want || f.RewriteSource != RewriteFallback || f.RewriteNote == "" {
			t.Fatalf("%s: followup = %+v, want fallback %q", name, f, want)
		}
		if len(ret.queries) != 1 || ret.queries[0] != want {
			t.Errorf("%s: searched for %q, want the fallback", name, ret.queries)
		}
	}
}

// TestHistoryCountedInBudget: earlier questions take at most a quarter of
// the evidence budget, the oldest are dropped first, the prompt lists only
// the kept ones, and the stored answer records which turns were used.
func TestHistoryCountedInBudget(t *testing.T) {
	var history []Turn
	for _, q := range []string{"first question about the oldest topic here?", "second question about another topic here?",
		"third question about yet another topic?", "fourth question about the boiler room?", "fifth question about the main office?"} {
		history = append(history, Turn{Question: q, Standalone: q})
	}
	model := &scriptedLLM{tokens: []string{"Standalone question: Who designed the main office?"}}
	hits := []search.Hit{hit("a", 0.9, 20)}
	p := newPipeline(hits, model, nil)
	solo, err := newPipeline(hits, &scriptedLLM{tokens: []string{"x"}}, nil).Ask(context.Background(), Request{ID: "s", Question: "Who designed the main office?"}, &recordingSink{})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "Who designed it?", History: history}, &recordingSink{})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("ask: %v", err)
	}
	f := ans.Followup
	if f == nil || f.RewriteSource != RewriteModel || f.Standalone != "Who designed the main office?" {
		t.Fatalf("followup = %+v", f)
	}
	if len(f.TurnsUsed) == 0 || len(f.TurnsUsed) == len(history) || f.TurnsUsed[len(f.TurnsUsed)-1] != 5 || f.TurnsDropped != len(history)-len(f.TurnsUsed) {
		t.Errorf("turns used %v, dropped %d: want the newest kept, the oldest dropped", f.TurnsUsed, f.TurnsDropped)
	}
	if f.HistoryTokens <= 0 || f.HistoryTokens > p.ContextTokens/historyShare {
		t.Errorf("history tokens %d, want 1..%d", f.HistoryTokens, p.ContextTokens/historyShare)
	}
	if ans.Retrieval.Budget != solo.Retrieval.Budget-f.HistoryTokens {
		t.Errorf("evidence budget %d, want %d less the history's %d", ans.Retrieval.Budget, solo.Retrieval.Budget, f.HistoryTokens)
	}
	prompt := model.seen.Messages[1].Content
	if !strings.Contains(prompt, "fifth question") || strings.Contains(prompt, "first question") {
		t.Errorf("answer prompt should list only the kept questions:\n%s", prompt)
	}
	rec, err := Record(ans)
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromRecord(rec)
	if err != nil || back.Followup == nil || back.Followup.Standalone != f.Standalone || len(back.Followup.TurnsUsed) != len(f.TurnsUsed) {
		t.Errorf("stored followup = %+v, %v", back.Followup, err)
	}
}

// TestFallbackReplacesTheContrastedTerm: a follow-up that puts another
// term in the place of one of the previous question ("on Windows" for "on
// Linux") does not keep the old term; when the contrast is all it says,
// the previous question is asked with the term replaced.
func TestFallbackReplacesTheContrastedTerm(t *testing.T) {
	linux := []Turn{{Question: "How do I install Footnote on Linux?", Standalone: "How do I install Footnote on Linux?"}}
	for followUp, want := range map[string]string{
		"And on Windows?":                     "How do I install Footnote on Windows?",
		"What about on macOS 14?":             "How do I install Footnote on macOS 14?",
		"Which version is needed on Windows?": "Which version is needed on Windows? (install Footnote)",
		"And who maintains it?":               "And who maintains it? (install Footnote Linux)", // no contrast: all key terms kept
		"Does it also run on Linux?":          "Does it also run on Linux? (install Footnote)",
	} {
		if got := FallbackStandalone(linux, followUp); got != want {
			t.Errorf("FallbackStandalone(%q) = %q, want %q", followUp, got, want)
		}
	}
	office := []Turn{{Question: "Who designed the office in 1998?"}}
	if got, want := FallbackStandalone(office, "And in 2004?"), "Who designed the office in 2004?"; got != want {
		t.Errorf("year swap: %q, want %q", got, want)
	}
}
