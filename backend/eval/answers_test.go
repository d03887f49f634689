package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/rag"
)

func reason(s string) *string { return &s }

func cite(n int, snippet, section, doc string) TraceCitation {
	return TraceCitation{N: n, SnippetID: snippet, SectionID: section, DocID: doc}
}

// A small hand-computed set: five questions, each label once.
func sampleSet() ([]QA, map[string][]Trace) {
	qs := []QA{
		{QID: "a1", Q: "How do I install on Linux?", Answerable: true, GoldIDs: []string{"install/linux"}, GoldClaim: "chmod +x Footnote.AppImage"},
		{QID: "a2", Q: "Where is the index?", Answerable: true, GoldIDs: []string{"snip_9"}},
		{QID: "a3", Q: "What is the shortcut?", Answerable: true, GoldIDs: []string{"doc_k"}, GoldClaim: "Ctrl+K"},
		{QID: "u1", Q: "Does it sync to the cloud?", Answerable: false},
		{QID: "u2", Q: "What does it cost?", Answerable: false},
	}
	tr := map[string][]Trace{
		// OK: cites the gold section; answer contains the claim. Second
		// marker [#7] resolves to nothing given: one non-corpus citation.
		// (No refusal reason: one the pipeline gave would make it a refusal.)
		"a1": {{Question: qs[0].Q, Answer: "Run chmod +x Footnote.AppImage [#1]. Also [#7].",
			Citations: []TraceCitation{cite(1, "snip_1", "install/linux", "doc_i")},
			Chunks:    []Item{{SnippetID: "snip_0", SectionID: "install", DocID: "doc_i"}, {SnippetID: "snip_1", SectionID: "install/linux", DocID: "doc_i"}}}},
		// ANS_NO_HIT: cites the right section but the gold names a snippet.
		"a2": {{Question: qs[1].Q, Answer: "In the data folder [#1].", Grounded: true,
			Citations: []TraceCitation{cite(1, "snip_8", "trouble/data", "doc_t")},
			Chunks:    []Item{{SnippetID: "snip_8", SectionID: "trouble/data", DocID: "doc_t"}, {SnippetID: "snip_9", SectionID: "trouble/data", DocID: "doc_t"}}}},
		// OVER_REFUSAL: refused by the score gate.
		"a3": {{Question: qs[2].Q, Answer: rag.RefusalSentence, RefusalReason: reason(rag.RefusalScoreGate)}},
		// REFUSAL_OK in the exact sentence.
		"u1": {{Question: qs[3].Q, Answer: rag.RefusalSentence, RefusalReason: reason(rag.RefusalNoCitation)}},
		// HALLUCINATION without citations: not compliant. (A minimal trace
		// with no refusal reason: the pipeline's no_citations would make it
		// a refusal.)
		"u2": {{Question: qs[4].Q, Answer: "It is free."}},
	}
	return qs, tr
}

func TestJudgeLabelsEveryCase(t *testing.T) {
	qs, tr := sampleSet()
	want := map[string]Row{
		"a1": {Label: LabelOK, Answered: true, Hit: true, Compliant: true, Citations: 2, NonCorpus: 1},
		"a2": {Label: LabelAnsNoHit, Answered: true, Hit: false, Compliant: true, Citations: 1},
		"a3": {Label: LabelOverRefusal, Answered: false, Compliant: true},
		"u1": {Label: LabelRefusalOK, Answered: false, Compliant: true},
		"u2": {Label: LabelHallucinate, Answered: true, Compliant: false},
	}
	for _, q := range qs {
		got := Judge(q, tr[q.QID][0], 10)
		w := want[q.QID]
		if got.Label != w.Label || got.Answered != w.Answered || got.Hit != w.Hit || got.Compliant != w.Compliant ||
			got.Citations != w.Citations || got.NonCorpus != w.NonCorpus {
			t.Errorf("%s: got %+v, want %+v", q.QID, got, w)
		}
	}
	a1 := Judge(qs[0], tr["a1"][0], 10)
	if a1.Contains == nil || !*a1.Contains {
		t.Errorf("a1 should contain its claim: %+v", a1.Contains)
	}
	if a1.Retrieval == nil || !near(a1.Retrieval.MRR, 0.5) || !near(a1.Retrieval.Recall, 1) {
		t.Errorf("a1 retrieval = %+v, want gold at rank 2", a1.Retrieval)
	}
	if a3 := Judge(qs[2], tr["a3"][0], 10); a3.Contains == nil || *a3.Contains || a3.Retrieval == nil || a3.Retrieval.Recall != 0 {
		t.Errorf("a3 refused: claim not contained and no retrieval credit, got %+v", a3)
	}
	if u := Judge(qs[3], tr["u1"][0], 10); u.Retrieval != nil || u.Contains != nil {
		t.Errorf("unanswerable rows carry no retrieval or claim: %+v", u)
	}
}

func TestComputeHandComputed(t *testing.T) {
	qs, tr := sampleSet()
	m := Build(qs, tr, 10, nil).Metrics
	// answered: a1, a2, u2 = 3; correct: a1 = 1 → precision 1/3.
	// over-refusal: a3 of 3 answerable = 1/3. under-refusal: u2 of 2 = 1/2.
	// hit rate: a1 of 3 = 1/3. compliance: 4 of 5. containment over the 3
	// answerable: a1 ("chmod"), a2 no claim, a3 ("Ctrl+K" has no 5-character
	// run) = 1/3; phrase containment over the 2 with a claim: a1 = 1/2. non-corpus: 1 of 3 citations. Retrieval over a1..a3:
	// recall (1 + 1 + 0)/3, MRR (1/2 + 1/2 + 0)/3, nDCG (1/log2(3) + 1/log2(3) + 0)/3.
	checks := map[string]float64{
		"precision": 1.0 / 3, "over_refusal": 1.0 / 3, "under_refusal": 0.5, "citation_hit_rate": 1.0 / 3,
		"compliance": 0.8, "containment": 1.0 / 3, "phrase_containment": 0.5, "non_corpus_citation_rate": 1.0 / 3,
		"recall_at_k": 2.0 / 3, "mrr_at_10": 1.0 / 3, "ndcg_at_10": (2 * 0.6309297535714575) / 3,
	}
	for name, want := range checks {
		if got, _ := m.Value(name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if m.Questions != 5 || m.Answerable != 3 || m.Unanswerable != 2 || m.Answered != 3 {
		t.Errorf("counts = %+v", m)
	}
	for _, l := range []string{LabelOK, LabelAnsNoHit, LabelOverRefusal, LabelRefusalOK, LabelHallucinate} {
		if m.Labels[l] != 1 {
			t.Errorf("label %s counted %d times, want 1", l, m.Labels[l])
		}
	}
}

func TestComputeEmptyAndDegenerate(t *testing.T) {
	empty := Compute(nil, 10)
	for _, name := range MetricNames {
		if v, _ := empty.Value(name); v != 0 {
			t.Errorf("empty %s = %v, want 0", name, v)
		}
	}
	// Everything refused: precision has no denominator (0), over-refusal 1,
	// under-refusal 0, compliance 1.
	qs := []QA{{QID: "a", Q: "a?", Answerable: true, GoldIDs: []string{"s"}}, {QID: "u", Q: "u?"}}
	refuse := Trace{Answer: rag.RefusalSentence, RefusalReason: reason(rag.RefusalNoChunks)}
	m := Build(qs, map[string][]Trace{"a": {refuse}, "u": {refuse}}, 10, nil).Metrics
	if m.Precision != 0 || m.OverRefusal != 1 || m.UnderRefusal != 0 || m.Compliance != 1 || m.NonCorpusCitationRate != 0 || m.Containment != 0 {
		t.Errorf("all refused: %+v", m)
	}
	// Only unanswerable questions, all answered: over-refusal and hit rate
	// have no denominator, precision 0, under-refusal 1.
	ans := Trace{Answer: "Yes [#1].", Citations: []TraceCitation{cite(1, "snip_x", "x", "doc_x")}}
	m = Build(qs[1:], map[string][]Trace{"u": {ans}}, 10, nil).Metrics
	if m.Precision != 0 || m.UnderRefusal != 1 || m.OverRefusal != 0 || m.CitationHitRate != 0 || m.Compliance != 1 {
		t.Errorf("unanswerable answered: %+v", m)
	}
	// An empty answer the pipeline did not refuse is an answer (neither the
	// refusal sentence nor the token), and not a compliant one.
	if r := Judge(qs[0], Trace{Answer: "  "}, 10); !r.Answered || r.Compliant || r.Label != LabelAnsNoHit {
		t.Errorf("empty answer: %+v", r)
	}
	// Citations without marker numbers: extra markers count as non-corpus.
	r := Judge(qs[0], Trace{Answer: "x [#1] [#2] [#3]", Citations: []TraceCitation{{SnippetID: "snip_1", SectionID: "s"}, {SectionID: "t"}}}, 10)
	if r.Citations != 3 || r.NonCorpus != 2 || !r.Hit {
		t.Errorf("unnumbered citations: %+v", r)
	}
}

func TestContainsClaim(t *testing.T) {
	cases := []struct {
		answer, claim string
		want          bool
	}{
		{"Make it executable with chmod +x first.", "chmod +x Footnote.AppImage", true}, // "chmod +x" is 8 chars
		{"Press CTRL+K.", "Ctrl+K", true},
		{"Press Ctrl.", "Ctrl+K", false},
		{"It uses SQLite.", "uses", false}, // 4 characters is not enough
		{"anything", "", false},
		{"", "chmod", false},
		{"The model is all-MiniLM-L6-v2 [#1]", "all-MiniLM-L6-v2 model", true},
		{"a bcd efg", "bcd efg", true},  // a 7-character run of two words
		{"bcd x efg", "bcd efg", false}, // words not adjacent
	}
	for _, c := range cases {
		if got := ContainsClaim(c.answer, c.claim); got != c.want {
			t.Errorf("ContainsClaim(%q, %q) = %v, want %v", c.answer, c.claim, got, c.want)
		}
	}
}

func TestGates(t *testing.T) {
	m := Metrics{Precision: 0.8, UnderRefusal: 0.06, OverRefusal: 0.25, CitationHitRate: 0.9, Compliance: 1}
	res := CheckGates(m, DefaultGates())
	failed := map[string]bool{}
	for _, g := range res {
		if !g.Passed {
			failed[g.Metric] = true
		}
	}
	if len(failed) != 1 || !failed["under_refusal"] {
		t.Errorf("failed gates = %v, want only under_refusal (0.8 and 0.25 sit on their thresholds)", failed)
	}
	g, err := ParseGate("under_refusal=0.1")
	if err != nil || g.Min || g.Value != 0.1 {
		t.Fatalf("ParseGate = %+v, %v", g, err)
	}
	res = CheckGates(m, WithGates(DefaultGates(), g))
	for _, r := range res {
		if !r.Passed {
			t.Errorf("with under_refusal ≤ 0.1 %s still fails", r.Gate)
		}
	}
	if g, _ := ParseGate("recall_at_k=0.5"); !g.Min {
		t.Error("recall gates are minima")
	}
	for _, bad := range []string{"precision", "nope=0.5", "precision=x", "precision=1.5"} {
		if _, err := ParseGate(bad); err == nil {
			t.Errorf("ParseGate(%q) accepted", bad)
		}
	}
	if rep := Build(nil, nil, 10, DefaultGates()); rep.Passed {
		t.Error("an empty evaluation must not pass the precision gate")
	}
}

func TestParseQASetValidates(t *testing.T) {
	good := `[{"qid":"a","q":"A?","answerable":true,"gold_ids":["x"]},{"qid":"b","q":"B?","answerable":false}]`
	qs, err := ParseQASet([]byte(good))
	if err != nil || len(qs) != 2 || qs[0].gold().SectionIDs[0] != "x" {
		t.Fatalf("ParseQASet = %+v, %v", qs, err)
	}
	jsonl := "{\"qid\":\"a\",\"q\":\"A?\",\"answerable\":true,\"gold_ids\":[\"snip_1\",\"doc_2\"]}\n\n"
	qs, err = ParseQASet([]byte(jsonl))
	if err != nil || len(qs) != 1 || qs[0].gold().SnippetIDs[0] != "snip_1" || qs[0].gold().DocIDs[0] != "doc_2" {
		t.Fatalf("JSONL = %+v, %v", qs, err)
	}
	for name, bad := range map[string]string{
		"empty":            "",
		"no questions":     "[]",
		"no qid":           `[{"q":"A?"}]`,
		"duplicate":        `[{"qid":"a","q":"A?"},{"qid":"a","q":"B?"}]`,
		"no text":          `[{"qid":"a"}]`,
		"answerable bare":  `[{"qid":"a","q":"A?","answerable":true}]`,
		"unanswerable ids": `[{"qid":"a","q":"A?","gold_ids":["x"]}]`,
		"bad line":         "{not json}",
	} {
		if _, err := ParseQASet([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMatchTracesByQIDOrText(t *testing.T) {
	qs := []QA{{QID: "a", Q: "How do I install?", Paraphrases: []string{"Install how?"}}, {QID: "b", Q: "Other?"}}
	traces := []Trace{
		{Question: "how do I  INSTALL?", Answer: "x"},
		{QID: "b", Question: "reworded", Answer: "y"},
		{Question: "Install how?", Answer: "z"},
		{Question: "not in the gold set"},
	}
	m, untraced, err := Match(qs, traces)
	if err != nil || len(untraced) != 0 {
		t.Fatal(err, untraced)
	}
	if len(m["a"]) != 2 || m["a"][0].Run != 1 || m["a"][1].Run != 2 || len(m["b"]) != 1 {
		t.Errorf("Match = %+v", m)
	}
	// Like the conventional scorer, a gold question without a trace is not
	// scored; it is named.
	if m, untraced, err := Match(qs, traces[:1]); err != nil || len(m["a"]) != 1 || len(untraced) != 1 || untraced[0] != "b" {
		t.Errorf("missing trace for b: %v %v %v", m, untraced, err)
	}
	if _, _, err := Match(qs, traces[3:]); err == nil || !strings.Contains(err.Error(), "no trace answers any question") {
		t.Errorf("no trace for any question: %v", err)
	}
}

func TestLoadTracesJSONLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	line := `{"qid":"a","question":"Q?","answer":"A [#1]","grounded":true,"refusal_reason":null,"citations":[{"snippet_id":"s","section_id":"x","doc_id":"d","source":"file:///a.md"}],"chunks":[{"snippet_id":"s","section_id":"x","doc_id":"d","text":"..."}],"extra":1}`
	if err := os.WriteFile(path, []byte(line+"\n"+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := LoadTraces(path)
	if err != nil || len(ts) != 2 || ts[0].Citations[0].SectionID != "x" || ts[0].Chunks[0].DocID != "d" {
		t.Fatalf("LoadTraces = %+v, %v", ts, err)
	}
}

func TestRunsSpreadAndMarkdown(t *testing.T) {
	qs := []QA{{QID: "a", Q: "A?", Answerable: true, GoldIDs: []string{"x"}, Paraphrases: []string{"A again?"}}}
	var asked []string
	ask := func(_ context.Context, q QA, question string, run int) (Trace, error) {
		asked = append(asked, question)
		if run == 1 {
			return Trace{Question: question, Answer: "yes [#1]", Citations: []TraceCitation{cite(1, "snip", "x", "doc")}}, nil
		}
		return Trace{Question: question, Answer: rag.RefusalSentence}, nil
	}
	var progress []Progress
	traces, err := RunLive(context.Background(), qs, 2, ask, func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, "|") != "A?|A again?" || len(progress) != 2 || progress[1] != (Progress{Done: 2, Total: 2, QID: "a"}) {
		t.Errorf("asked %v, progress %v", asked, progress)
	}
	rep := Build(qs, traces, 10, DefaultGates())
	rep.Source = "live"
	if rep.Runs != 2 || !near(rep.Spread["citation_hit_rate"].Mean, 0.5) || rep.Spread["citation_hit_rate"].Min != 0 ||
		rep.Spread["citation_hit_rate"].Max != 1 || !near(rep.Spread["citation_hit_rate"].StdDev, 0.5) {
		t.Errorf("spread = %+v", rep.Spread)
	}
	if rep.Passed || len(rep.FailedGates()) == 0 {
		t.Errorf("over-refusal 0.5 must fail a gate: %+v", rep.Gates)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{"## Summary", "| precision | 1.000 | 0.000 | 1.000 | 0.500 |", "FAIL over_refusal ≤ 0.25 (got 0.500)",
		"| a | 1 | OK | yes | yes | yes |", "| a | 2 | OVER_REFUSAL | no |", "## Questions"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "## Summary") > strings.Index(out, "## Questions") {
		t.Error("summary must come before the per-question table")
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	_ = json.Unmarshal(data, &generic)
	for _, name := range append(MetricNames, "rows", "gates", "passed", "spread") {
		if _, ok := generic[name]; !ok {
			t.Errorf("JSON metrics lack %q", name)
		}
	}
}
