package eval

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/clock"
	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
)

// The fixed pair in testdata/conventional, every figure worked out by hand
// from the definitions in docs/evaluation.md:
//
//	c1 answered, cites gold p1#1, compliant, contains "the warranty lasts 24 months"  OK
//	c2 answered, cites p2#3,p9#1 (citations line), only the word "reset"            ANS_NO_HIT
//	c3 "Not in context" (refusal token)                                             OVER_REFUSAL
//	c4 answered, cites {"id":"p4#1"}, contains "firmware 2"                         OK
//	c5 "ok": false (the pipeline refused)                                           OVER_REFUSAL
//	u1 the refusal sentence                                                         REFUSAL_OK
//	u2 answered with a citation                                                     HALLUCINATION
//	u3 answered without a citation (not compliant)                                  HALLUCINATION
//
// answered = c1 c2 c4 u2 u3 = 5; correct = c1 c4 = 2 → precision 2/5;
// over-refusal c3 c5 of 5 = 2/5; under-refusal u2 u3 of 3 = 2/3; hit rate
// 2/5; compliance 7/8 (u3 has neither citations nor the token);
// containment c1 c4 of 5 answerable = 2/5 (c2's claim is one phrase, "press
// the reset button for ten seconds", which its answer lacks; refusals
// contain nothing); word containment c1 c2 c4 = 3/5. Retrieval: only c1 has
// chunks, gold p1#1 at rank 2 → recall@10 1/5, MRR@10 (1/2)/5 = 0.1,
// nDCG@10 (1/log2(3))/5.
func TestConventionalMetricsHandComputed(t *testing.T) {
	qs, err := LoadQASet(filepath.Join("testdata", "conventional", "qaset.json"))
	if err != nil {
		t.Fatal(err)
	}
	traces, err := LoadTraces(filepath.Join("testdata", "conventional", "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	matched, _, err := Match(qs, traces)
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(qs, matched, 10, nil)
	m := rep.Metrics
	for name, want := range map[string]float64{
		"precision": 2.0 / 5, "over_refusal": 2.0 / 5, "under_refusal": 2.0 / 3,
		"citation_hit_rate": 2.0 / 5, "compliance": 7.0 / 8, "containment": 2.0 / 5, "word_containment": 3.0 / 5,
		"recall_at_k": 1.0 / 5, "mrr_at_10": 0.1, "ndcg_at_10": 0.6309297535714575 / 5,
	} {
		if got, _ := m.Value(name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if m.Questions != 8 || m.Answerable != 5 || m.Unanswerable != 3 || m.Answered != 5 {
		t.Errorf("counts: %d questions, %d answerable, %d unanswerable, %d answered", m.Questions, m.Answerable, m.Unanswerable, m.Answered)
	}
	wantLabels := map[string]string{"c1": LabelOK, "c2": LabelAnsNoHit, "c3": LabelOverRefusal, "c4": LabelOK,
		"c5": LabelOverRefusal, "u1": LabelRefusalOK, "u2": LabelHallucinate, "u3": LabelHallucinate}
	for _, r := range rep.Rows {
		if r.Label != wantLabels[r.QID] {
			t.Errorf("%s labelled %s, want %s", r.QID, r.Label, wantLabels[r.QID])
		}
	}
	for label, n := range map[string]int{LabelOK: 2, LabelAnsNoHit: 1, LabelOverRefusal: 2, LabelRefusalOK: 1, LabelHallucinate: 2} {
		if m.Labels[label] != n {
			t.Errorf("label %s counted %d, want %d", label, m.Labels[label], n)
		}
	}
}

func TestTraceShapes(t *testing.T) {
	cases := map[string]struct {
		line     string
		question string
		answer   string
		ids      []string
		refused  bool
	}{
		"minimal":          {`{"q":"Q?","answer":"A","citations":["p1#1","p2#1"]}`, "Q?", "A", []string{"p1#1", "p2#1"}, false},
		"question key":     {`{"question":"Q?","answer":"A","citations":["p1#1"]}`, "Q?", "A", []string{"p1#1"}, false},
		"id objects":       {`{"q":"Q?","answer":"A","citations":[{"id":"p1#1"},"p2#1"]}`, "Q?", "A", []string{"p1#1", "p2#1"}, false},
		"footnote objects": {`{"question":"Q?","answer":"A [#1]","grounded":true,"citations":[{"n":1,"snippet_id":"snip_1","section_id":"s","doc_id":"doc_1"}]}`, "Q?", "A [#1]", []string{"snip_1"}, false},
		"line in answer":   {`{"q":"Q?","answer":"It is X.\ncitations: [p1#1, \"p3#2\"]"}`, "Q?", "It is X.", []string{"p1#1", "p3#2"}, false},
		"ok false":         {`{"q":"Q?","answer":"It is X.","citations":["p1#1"],"ok":false}`, "Q?", "It is X.", []string{"p1#1"}, true},
		"token and line":   {`{"q":"Q?","answer":"NOT IN CONTEXT\ncitations: []"}`, "Q?", "NOT IN CONTEXT", nil, true},
		"grounded alone":   {`{"question":"Q?","answer":"A","grounded":false,"citations":["p1#1"]}`, "Q?", "A", []string{"p1#1"}, false},
		"reason":           {`{"question":"Q?","answer":"x","refusal_reason":"no_citations"}`, "Q?", "x", nil, true},
		"cited beats list": {`{"q":"Q?","answer":"A","citations":["snip_1"],"cited":[{"snippet_id":"snip_1","section_id":"s"}]}`, "Q?", "A", []string{"snip_1"}, false},
		"bulleted line":    {`{"q":"Q?","answer":"- claim\n- citations: [p1#1]","ok":true}`, "Q?", "- claim", []string{"p1#1"}, false},
		"inline list":      {`{"q":"Q?","answer":"X is Y (Citations: [p1#1 p2#1]).","ok":true}`, "Q?", "X is Y ().", []string{"p1#1", "p2#1"}, false},
		"empty list wins":  {`{"q":"Q?","answer":"A\ncitations: [p1#1]","citations":[]}`, "Q?", "A", nil, false},
	}
	for name, c := range cases {
		var tr Trace
		if err := json.Unmarshal([]byte(c.line), &tr); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var ids []string
		for _, ct := range tr.Citations {
			ids = append(ids, ct.SnippetID)
		}
		if tr.Question != c.question || tr.Answer != c.answer || len(ids) != len(c.ids) || IsRefusal(tr) != c.refused {
			t.Errorf("%s: got question %q answer %q ids %v refused %v", name, tr.Question, tr.Answer, ids, IsRefusal(tr))
			continue
		}
		for i := range ids {
			if ids[i] != c.ids[i] {
				t.Errorf("%s: ids %v, want %v", name, ids, c.ids)
			}
		}
	}
	var tr Trace
	if err := json.Unmarshal([]byte(`{"q":"Q?","answer":"A","cited":[{"snippet_id":"snip_1","section_id":"s"}]}`), &tr); err != nil || tr.Citations[0].SectionID != "s" {
		t.Errorf("cited objects keep their section: %+v, %v", tr.Citations, err)
	}
	if err := json.Unmarshal([]byte(`{"q":"Q?","answer":"A","citations":[7]}`), &tr); err == nil {
		t.Error("a citation that is a number must be rejected")
	}
}

// The re-entry guard's metric: a citation is non-corpus by its source or a
// reserved id, as the specification's chunk "chat:42" (source "model").
func TestNonCorpusCitationsBySource(t *testing.T) {
	lines := []string{
		`{"q":"Q?","answer":"Yes.","citations":[{"id":"chat:42"}]}`,
		`{"q":"Q?","answer":"Yes.","citations":[{"id":"p1#1","source":"model"}]}`,
		`{"q":"Q?","answer":"Yes.","cited":[{"snippet_id":"snip_1","section_id":"s","doc_id":"d","source":"user"}]}`,
		`{"q":"Q?","answer":"Yes.","citations":[{"id":"p1#1","source":"corpus"}, "p2#1"]}`,
		`{"q":"Q?","answer":"not in context","citations":[{"id":"chat:42"}]}`,
	}
	want := []int{1, 1, 1, 0, 1}
	var rows []Row
	q := QA{QID: "q", Q: "Q?", Answerable: true, GoldIDs: []string{"p1#1"}}
	for i, l := range lines {
		var tr Trace
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		r := Judge(q, tr, 10)
		if r.NonCorpus != want[i] {
			t.Errorf("%s: %d non-corpus citations, want %d", l, r.NonCorpus, want[i])
		}
		rows = append(rows, r)
	}
	// Over the answered lines' 5 citations, 3 are not corpus text; the
	// refusal's citation shows no evidence and does not count.
	m := Compute(rows, 10)
	if !near(m.NonCorpusCitationRate, 3.0/5) {
		t.Errorf("non_corpus_citation_rate = %v, want 3/5", m.NonCorpusCitationRate)
	}
	for _, g := range CheckGates(m, DefaultGates()) {
		if g.Metric == "non_corpus_citation_rate" && g.Passed {
			t.Errorf("the default gate must fail on non-corpus citations: %+v", g)
		}
	}
}

func TestContainsClaimWord(t *testing.T) {
	cases := []struct {
		answer, claim string
		want          bool
	}{
		{"Make it executable with CHMOD first.", "chmod +x Footnote.AppImage", true},
		{"Press Ctrl+K.", "Ctrl+K", false}, // no run reaches 5 characters
		{"It uses SQLite.", "uses", false},
		{"The model is all-MiniLM-L6-v2.", "all-MiniLM-L6-v2", true}, // "minilm"
		{"It needs the WebKit runtime.", "libwebkit2gtk-4.1-0", false},
		{"anything", "", false},
		{"bcdefg", "xbcdefg", false},
		{"xbcdefgx", "bcdef", true}, // a substring, not a whole word
		{"X is a mapping.", "X is a constrained mapping.", true},
	}
	for _, c := range cases {
		if got := ContainsClaimWord(c.answer, c.claim); got != c.want {
			t.Errorf("ContainsClaimWord(%q, %q) = %v, want %v", c.answer, c.claim, got, c.want)
		}
	}
}

// The conventional scorer's containment: the claim's maximal runs of ASCII
// letters, digits, hyphens and white space, not any word of it. Expected
// values are the reference scorer's (phrase_containment in the evaluation
// specification) on the same strings.
func TestContainsGoldRun(t *testing.T) {
	cases := []struct {
		answer, claim string
		want          bool
	}{
		{"- claim\n- citations: [p1#1]", "X is a constrained mapping.", false}, // the specification's own example
		{"X is a constrained mapping [#1].", "X is a constrained mapping.", true},
		{"X is a mapping.", "X is a constrained mapping.", false},                    // a word is not the phrase
		{"Make it executable with CHMOD first.", "chmod +x Footnote.AppImage", true}, // "chmod", cut at "+"
		{"Run the AppImage.", "chmod +x Footnote.AppImage", true},                    // "appimage", cut at "."
		{"Open the footnote app.", "chmod +x Footnote.AppImage", false},              // the run is "x footnote"
		{"Press Ctrl+K.", "Ctrl+K", false},
		{"The model is all-minilm-l6-v2 [#2].", "all-MiniLM-L6-v2", true},
		{"It uses all-MiniLM.", "all-MiniLM-L6-v2", false},
		{"Install libwebkit2gtk-4 first.", "libwebkit2gtk-4.1-0", true}, // "libwebkit2gtk-4", then "1-0" is too short
		{"See 127.0.0.1:11434.", "127.0.0.1:11434", true},               // "11434" is the only 5-character run
		{"Port 1143.", "127.0.0.1:11434", false},
		{"Übergröße", "Übergröße", true}, // "bergr": only ASCII letters make a run
		{"anything", "", false},
		{"", "claim", false},
		{"is a  b", "is a  b", true}, // inner white space is kept
		{"x\u00a0is a mapping", "X is a mapping", false},
	}
	for _, c := range cases {
		if got := ContainsGoldRun(c.answer, c.claim); got != c.want {
			t.Errorf("ContainsGoldRun(%q, %q) = %v, want %v (phrases %q)", c.answer, c.claim, got, c.want, goldRuns(c.claim))
		}
	}
}

// scriptedModel answers every prompt with one fixed text.
type scriptedModel struct{ text string }

func (s scriptedModel) Chat(_ context.Context, _ *llm.ChatRequest, fn llm.ChatFunc) error {
	if err := fn(llm.ChatResponse{Message: llm.Message{Role: "assistant", Content: s.text}}); err != nil {
		return err
	}
	return fn(llm.ChatResponse{Done: true, DoneReason: "stop"})
}

type fixedHits []search.Hit

func (f fixedHits) Search(context.Context, string, search.Options) (search.Result, error) {
	return search.Result{Hits: f}, nil
}

// The pipeline and the evaluator agree on what a refusal is: the same model
// answers go through the real pipeline and then through the evaluator, as a
// live answer and as a trace line.
func TestPipelineAndEvaluatorAgreeOnRefusals(t *testing.T) {
	var h search.Hit
	h.Chunk = corpus.Chunk{SnippetID: "snip_a", DocID: "doc_a", SectionID: "guide/a", Text: "Install with the AppImage.", Tokens: 6,
		Offsets: corpus.Offsets{Start: 0, End: 26, Unit: corpus.UnitChar}, Source: corpus.SourceCorpus}
	h.Title, h.Path, h.Rev, h.EmbedModel = "Guide", "/docs/guide.md", "rev_a", "e"
	h.ScoreNorm, h.RRF, h.KFinal = 0.9, 0.03, 1
	h.Explain = []search.Contribution{{Retriever: search.Lexical, ScoreRaw: -1, KPos: 1, RRF: 0.03}}
	answers := map[string]bool{
		"Install with the AppImage [#1].": false,
		rag.RefusalSentence:               true,
		"not in context":                  true,
		"  NOT IN CONTEXT  ":              true,
		"Not in context.":                 true, // no citation: the pipeline refuses it (no_citations)
		"Install it [#7].":                true, // cites a passage it was not given
		"It is not in context [#1].":      false,
	}
	for text, want := range answers {
		p := &rag.Pipeline{Retriever: fixedHits{h}, LLM: scriptedModel{text},
			Clock: &clock.Fixed{T: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)},
			Model: "m", EmbedModel: "e", Mode: search.ModeHybrid, TopK: 10, EvidenceK: 3, ContextTokens: 100,
			IndexHash: "idx", Analyzer: "an", Live: provenance.Live{IndexHash: "idx", Analyzer: "an"}, Verification: rag.VerifyOff}
		ans, err := p.Ask(context.Background(), rag.Request{ID: "r", Question: "How do I install it?"}, nil)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		live := IsRefusal(FromAnswer("q", 1, ans, nil))
		line, _ := json.Marshal(map[string]any{"q": ans.Question, "answer": ans.Answer, "ok": ans.Grounded, "refusal_reason": ans.RefusalReason})
		var traced Trace
		if err := json.Unmarshal(line, &traced); err != nil {
			t.Fatal(err)
		}
		if ans.Refused() != want || live != want || IsRefusal(traced) != want {
			reason := "none"
			if ans.RefusalReason != nil {
				reason = *ans.RefusalReason
			}
			t.Errorf("%q: pipeline %v (reason %s), evaluator live %v, traced %v; want %v", text, ans.Refused(), reason, live, IsRefusal(traced), want)
		}
	}
}
