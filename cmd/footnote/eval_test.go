package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// sampleGates are the loosened gates for the 36 scripted plays
// (testdata/scripted_gold.json) answered by the scripted fake model with the
// tiny test embedding model: its script holds one hallucination, one missing
// citation and two made-up citations on purpose, and the test model misses
// gold sections. The pipeline refuses all four planted faults
// (unsupported_claim, no_citations, llm_self_judge) and a refusal is what the
// pipeline refused, so they cost over-refusal, citation hit rate (17/24) and
// compliance (34/36) rather than precision or under-refusal. The CI quality
// gate is gold-blind and at the conventional thresholds:
// TestEvalSampleLibraryGoldBlind.
var sampleGates = []string{"--gate", "precision=0.75", "--gate", "under_refusal=0.10", "--gate", "compliance=0.94",
	"--gate", "citation_hit_rate=0.70"}

// TestEvalSampleLibrary runs the whole pipeline — ingest with the test
// model, retrieval, the scripted fake Ollama, validation — over the
// sample library and the 36 questions its script plays (testdata; the
// sample gold set has grown past them) and checks that every label and
// metric is exercised. The gold-blind gate is TestEvalSampleLibraryGoldBlind.
func TestEvalSampleLibrary(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(ollamafake.ScriptedResponder(ollamafake.SampleLibraryScript(), nil)))
	defer fake.Close()
	home := t.TempDir()
	t.Setenv("FOOTNOTE_HOME", home)
	// The plays test the evaluator's labels, so the pipeline's answerability
	// gate must not refuse the planted hallucination before it is scored.
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"min_rare_term_share": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.TinyDir(t)) // the gates are calibrated on it
	t.Setenv("OLLAMA_HOST", fake.URL())
	t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
	// The plays' labels count strict verification's refusals (u03's planted
	// answer is refused as unsupported_claim); the default, warn, would
	// show it with the claim marked, which the conventional labels cannot see.
	t.Setenv("FOOTNOTE_VERIFICATION", "strict")
	lib, err := filepath.Abs(filepath.Join("..", "..", "sample", "library"))
	if err != nil {
		t.Fatal(err)
	}
	gold := filepath.Join("testdata", "scripted_gold.json")
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	reportPath := filepath.Join(t.TempDir(), "report.md")
	args := append([]string{"eval", "--qaset", gold, "--json", "--out", reportPath}, sampleGates...)
	code, out, errOut := runCLI(t, args...)
	md, _ := os.ReadFile(reportPath)
	t.Logf("sample library report:\n%s", md)
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	rows := map[string]map[string]any{}
	for _, r := range rep["rows"].([]any) {
		row := r.(map[string]any)
		rows[row["qid"].(string)] = row
	}
	if len(rows) != 36 {
		t.Fatalf("report has %d rows, want 36", len(rows))
	}
	// The scripted plays, whatever retrieval does. The pipeline refuses the
	// uncited q08, the made-up citation of q13 and the hallucination of u03.
	for qid, want := range map[string]string{"q03": "ANS_NO_HIT", "q08": "OVER_REFUSAL", "q13": "OVER_REFUSAL", "q19": "OVER_REFUSAL",
		"u03": "REFUSAL_OK", "u01": "REFUSAL_OK"} {
		if got := rows[qid]["label"]; got != want {
			t.Errorf("%s labelled %v, want %s", qid, got, want)
		}
	}
	if rows["q08"]["compliant"] != false || rows["q13"]["non_corpus_citations"] != 1.0 {
		t.Errorf("q08 must be non-compliant and q13 cite one made-up passage: %v / %v", rows["q08"], rows["q13"])
	}
	labels := rep["labels"].(map[string]any)
	for _, l := range []string{"OK", "REFUSAL_OK", "OVER_REFUSAL", "ANS_NO_HIT"} {
		if labels[l] == nil {
			t.Errorf("label %s never occurs: %v", l, labels)
		}
	}
	for _, name := range []string{"precision", "over_refusal", "under_refusal", "citation_hit_rate", "compliance",
		"containment", "non_corpus_citation_rate", "recall_at_k", "mrr_at_10", "ndcg_at_10"} {
		v, ok := rep[name].(float64)
		if !ok || v < 0 || v > 1 {
			t.Errorf("metric %s = %v", name, rep[name])
		}
	}
	// Every answer of the scripted model was verified: citation recall and
	// precision are figures, not n/a.
	if r, ok := rep["citation_recall"].(float64); !ok || r < 0 || r > 1 || rep["citation_answers"].(float64) < 20 {
		t.Errorf("citation_recall %v over %v answers", rep["citation_recall"], rep["citation_answers"])
	}
	if p, ok := rep["citation_precision"].(float64); !ok || p < 0 || p > 1 {
		t.Errorf("citation_precision %v", rep["citation_precision"])
	}
	if rep["recall_at_k"].(float64) < 0.8 {
		t.Errorf("recall@10 %.3f on the sample library: retrieval regressed", rep["recall_at_k"])
	}
	if !strings.Contains(string(md), "## Summary") || !strings.Contains(string(md), "| u03 | 1 | REFUSAL_OK |") {
		t.Errorf("Markdown report incomplete:\n%s", md)
	}

	// With the default gates the planted mistakes fail the run, by name:
	// the answers refused for a missing or made-up citation cost compliance.
	code, _, errOut = runCLI(t, "eval", "--qaset", gold)
	if code != 1 || !strings.Contains(errOut, "compliance ≥ 0.98 (got 0.944)") {
		t.Errorf("default gates: exit %d, stderr %s", code, errOut)
	}
}

// TestEvalTracesGates scores a trace file without any model and checks
// that failed gates exit 1 naming each one, and that passing gates exit 0.
func TestEvalTracesGates(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, "gold.json")
	traces := filepath.Join(dir, "trace.jsonl")
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(gold, `[{"qid":"a","q":"How do I install?","answerable":true,"gold_ids":["install/linux"],"gold_claim":"chmod +x"},
		{"qid":"b","q":"What does it cost?","answerable":false}]`)
	write(traces, `{"qid":"a","question":"How do I install?","answer":"Run chmod +x [#1].","grounded":true,"refusal_reason":null,"citations":[{"snippet_id":"snip_1","section_id":"install/linux","doc_id":"doc_1","source_url":"file:///x.md","source":"corpus"}],"chunks":[{"snippet_id":"snip_1","section_id":"install/linux","doc_id":"doc_1"}]}
{"question":"What does it cost?","answer":"It is free [#1].","grounded":true,"refusal_reason":null,"citations":[{"snippet_id":"snip_2","section_id":"pricing","doc_id":"doc_2"}],"chunks":[]}
`)
	code, out, errOut := runCLI(t, "eval", "--qaset", gold, "--traces", traces, "--json")
	if code != 1 || !strings.Contains(errOut, "under_refusal ≤ 0.05 (got 1.000)") || !strings.Contains(errOut, "precision ≥ 0.80 (got 0.500)") ||
		strings.Contains(errOut, "compliance") {
		t.Fatalf("exit %d, stderr %q: want exit 1 naming the precision and under_refusal gates only", code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep["precision"] != 0.5 || rep["under_refusal"] != 1.0 || rep["citation_hit_rate"] != 1.0 || rep["containment"] != 1.0 || rep["recall_at_k"] != 1.0 {
		t.Errorf("metrics: %v", rep)
	}
	code, out, errOut = runCLI(t, "eval", "--qaset", gold, "--traces", traces, "--gate", "under_refusal=1", "--gate", "precision=0.5")
	if code != 0 || !strings.Contains(out, "| b | 1 | HALLUCINATION |") {
		t.Errorf("relaxed gates: exit %d, %s\n%s", code, errOut, out)
	}
	if code, _, errOut := runCLI(t, "eval", "--qaset", gold, "--gate", "precision"); code != 2 || !strings.Contains(errOut, "metric=value") {
		t.Errorf("bad gate: exit %d, %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "eval"); code != 2 {
		t.Errorf("missing --qaset: exit %d, want 2", code)
	}
}
