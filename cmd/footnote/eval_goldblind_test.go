package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// extractiveMinCover is the share of a question's content words the
// gold-blind reader needs in one sentence before it answers.
const extractiveMinCover = 0.6

// TestEvalSampleLibraryGoldBlind is the quality gate of make eval: the
// sample gold set (sample/gold.json, a third unanswerable) goes through the
// real pipeline — ingest with the test model, retrieval, the score gate,
// prompt, claim verification — answered by an extractive reader that sees
// only the prompt and knows nothing of the gold set. It passes only at
// the conventional default gates (precision ≥ 0.80, under-refusal ≤ 0.05,
// over-refusal ≤ 0.25, citation hit rate ≥ 0.75, compliance ≥ 0.98).
// FOOTNOTE_EVAL_REPORT names a file to keep the Markdown report in.
func TestEvalSampleLibraryGoldBlind(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(ollamafake.ExtractiveResponder(extractiveMinCover)))
	defer fake.Close()
	t.Setenv("FOOTNOTE_HOME", t.TempDir())
	t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.TinyDir(t))
	t.Setenv("OLLAMA_HOST", fake.URL())
	t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
	lib, err := filepath.Abs(filepath.Join("..", "..", "sample", "library"))
	if err != nil {
		t.Fatal(err)
	}
	gold := filepath.Join("..", "..", "sample", "gold.json")
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	reportPath := os.Getenv("FOOTNOTE_EVAL_REPORT")
	if reportPath == "" {
		reportPath = filepath.Join(t.TempDir(), "report.md")
	}
	// No --gate flags: the defaults are the conventional thresholds.
	code, out, errOut := runCLI(t, "eval", "--qaset", gold, "--json", "--out", reportPath)
	md, _ := os.ReadFile(reportPath)
	t.Logf("sample library report (gold-blind extractive reader):\n%s", md)
	if code != 0 {
		t.Fatalf("gold-blind eval missed a gate: exit %d: %s", code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	rows := rep["rows"].([]any)
	unanswerable := 0
	for _, r := range rows {
		if r.(map[string]any)["answerable"] == false {
			unanswerable++
		}
	}
	if len(rows) < 60 || 3*unanswerable < len(rows) {
		t.Errorf("sample gold set has %d questions, %d unanswerable: want ≥ 60, a third unanswerable", len(rows), unanswerable)
	}
	// The figures the gates saw, recomputed by the definitions from
	// the rows, so a gate cannot pass on a metric computed some other way.
	var answerable, refusedAns, answeredUnans, correct, answered float64
	for _, r := range rows {
		row := r.(map[string]any)
		label, _ := row["label"].(string)
		if row["answerable"] == true {
			answerable++
			switch label {
			case "OVER_REFUSAL":
				refusedAns++
			case "OK":
				correct++
				answered++
			default:
				answered++
			}
		} else if label == "HALLUCINATION" {
			answeredUnans++
			answered++
		}
	}
	figures := map[string]float64{
		"precision":         correct / max(answered, 1),
		"over_refusal":      refusedAns / answerable,
		"under_refusal":     answeredUnans / float64(unanswerable),
		"citation_hit_rate": correct / answerable,
	}
	for name, v := range figures {
		got, _ := rep[name].(float64)
		if diff := got - v; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("%s: report %.4f, recomputed from labels %.4f", name, got, v)
		}
	}
	if figures["precision"] < 0.80 || figures["under_refusal"] > 0.05 || figures["over_refusal"] > 0.25 || figures["citation_hit_rate"] < 0.75 {
		t.Errorf("gold-blind figures miss the conventional gates: %v", figures)
	}
	if c, _ := rep["compliance"].(float64); c < 0.98 {
		t.Errorf("compliance %.3f < 0.98", c)
	}
	if !strings.Contains(string(md), "## Summary") {
		t.Errorf("Markdown report incomplete:\n%s", md)
	}
}

// TestEvalGoldBlindCatchesPlantedHallucination: the same gold-blind reader,
// but writing Ctrl+J where its quoted sentence says Ctrl+K — a citation of
// the right passage for a fact it does not contain. The pipeline's claim
// verification flags the answer (not grounded, unsupported_claim), and the
// evaluation row shows it flagged.
func TestEvalGoldBlindCatchesPlantedHallucination(t *testing.T) {
	reader := ollamafake.ExtractiveResponder(extractiveMinCover)
	planted := func(req llm.ChatRequest) ollamafake.Reply {
		text := strings.Join(reader(req).Tokens, "")
		return ollamafake.Reply{Tokens: ollamafake.Words(strings.ReplaceAll(text, "Ctrl+K", "Ctrl+J"))}
	}
	fake := ollamafake.New(ollamafake.WithResponder(planted))
	defer fake.Close()
	t.Setenv("FOOTNOTE_HOME", t.TempDir())
	// Strict verification is what turns the flagged claim into a refusal
	// the evaluation can score; the default (warn) only marks it.
	t.Setenv("FOOTNOTE_VERIFICATION", "strict")
	t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.TinyDir(t))
	t.Setenv("OLLAMA_HOST", fake.URL())
	t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
	lib, err := filepath.Abs(filepath.Join("..", "..", "sample", "library"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	code, out, errOut := runCLI(t, "ask", "--json", "--fresh", "Which keyboard shortcut focuses the question box?")
	if code != 0 {
		t.Fatalf("ask exit %d: %s", code, errOut)
	}
	var ans struct {
		Answer        string  `json:"answer"`
		Grounded      bool    `json:"grounded"`
		RefusalReason *string `json:"refusal_reason"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	if !strings.Contains(ans.Answer, "Ctrl+J") {
		t.Fatalf("the planted fact is not in the answer, the test proves nothing: %q", ans.Answer)
	}
	if ans.Grounded || ans.RefusalReason == nil || *ans.RefusalReason != "unsupported_claim" {
		t.Errorf("planted hallucination not flagged: grounded %v, reason %v, answer %q", ans.Grounded, ans.RefusalReason, ans.Answer)
	}

	gold := filepath.Join("..", "..", "sample", "gold.json")
	code, out, errOut = runCLI(t, "eval", "--qaset", gold, "--json", "--gate", "precision=0", "--gate", "under_refusal=1",
		"--gate", "over_refusal=1", "--gate", "citation_hit_rate=0", "--gate", "compliance=0")
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, errOut)
	}
	var rep struct {
		Rows []struct {
			QID               string   `json:"qid"`
			Label             string   `json:"label"`
			RefusalReason     string   `json:"refusal_reason"`
			Contains          *bool    `json:"contains_claim"`
			CitationPrecision *float64 `json:"citation_precision"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v", err)
	}
	found := false
	for _, r := range rep.Rows {
		if r.QID != "q07" {
			continue
		}
		found = true
		// The pipeline refused the answer (unsupported_claim), and a refusal
		// is whatever the pipeline refused (docs/evaluation.md), so the
		// evaluation counts the planted hallucination as a refusal of an
		// answerable question, never as a correct answer.
		if r.RefusalReason != "unsupported_claim" || r.Label != "OVER_REFUSAL" {
			t.Errorf("q07 with the planted Ctrl+J not flagged in the evaluation: %+v", r)
		}
	}
	if !found {
		t.Errorf("no q07 row in the evaluation")
	}
}

// TestAnswerabilityOnNearQuestions measures the product's refusals on the
// sample gold set plus 50 unanswerable questions near the library's
// topics (testdata/unanswerable_near.json): with a model that answers
// whenever it is given evidence (so every refusal is the pipeline's own
// gate decision) and with the gold-blind extractive reader.
// It logs over- and under-refusal for both; the assertions hold the set's
// shape and the figures' consistency.
func TestAnswerabilityOnNearQuestions(t *testing.T) {
	var gold, near []map[string]any
	for path, into := range map[string]*[]map[string]any{
		filepath.Join("..", "..", "sample", "gold.json"):    &gold,
		filepath.Join("testdata", "unanswerable_near.json"): &near,
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	seen := map[string]bool{}
	for _, q := range append(append([]map[string]any{}, gold...), near...) {
		if seen[q["qid"].(string)] || seen[strings.ToLower(q["q"].(string))] {
			t.Fatalf("duplicate question %v", q)
		}
		seen[q["qid"].(string)], seen[strings.ToLower(q["q"].(string))] = true, true
	}
	if len(near) < 50 {
		t.Fatalf("%d near unanswerable questions, want ≥ 50", len(near))
	}
	qaset := filepath.Join(t.TempDir(), "answerability.json")
	b, _ := json.Marshal(append(gold, near...))
	if err := os.WriteFile(qaset, b, 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := filepath.Abs(filepath.Join("..", "..", "sample", "library"))
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		name   string
		r      ollamafake.Responder
		word   float64 // word_match_gate, the score gate; 0 is off
		share  float64 // min_rare_term_share, the answerability gate; 0 is off
		deltaS float64 // delta_s_gate; 0 records ΔS only
	}
	extractive, always := ollamafake.ExtractiveResponder(extractiveMinCover), ollamafake.DefaultResponder
	word, share := config.DefaultWordMatchGate, config.DefaultMinRareTermShare
	runs := []run{{"extractive reader, gates off", extractive, 0, 0, 0},
		{"extractive reader, default gates", extractive, word, share, config.DefaultDeltaSGate},
		{"answers whenever given evidence, gates off", always, 0, 0, 0},
		{"answers whenever given evidence, word_match_gate alone", always, word, 0, 0}}
	for _, s := range []float64{0.34, 0.5, share, 0.67} {
		runs = append(runs, run{fmt.Sprintf("answers whenever given evidence, word_match_gate and min_rare_term_share=%.2f", s), always, word, s, 0})
	}
	// ΔS alone at its default, the other gates off.
	runs = append(runs, run{"answers whenever given evidence, delta_s_gate=0.95 alone", always, 0, 0, config.DefaultDeltaSGate})
	deltaSStates := map[string]int{}
	figures := map[string][2]float64{} // run name → over, under
	for _, reader := range runs {
		fake := ollamafake.New(ollamafake.WithResponder(reader.r))
		home := t.TempDir()
		t.Setenv("FOOTNOTE_HOME", home)
		if err := os.WriteFile(filepath.Join(home, "settings.json"), fmt.Appendf(nil, `{"word_match_gate": %g, "min_rare_term_share": %g, "delta_s_gate": %g}`, reader.word, reader.share, reader.deltaS), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.TinyDir(t))
		t.Setenv("OLLAMA_HOST", fake.URL())
		t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
		// The figures are measured with strict verification refusing what
		// its claims do not support, as the gates were calibrated.
		t.Setenv("FOOTNOTE_VERIFICATION", "strict")
		if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
			t.Fatalf("ingest: %s", errOut)
		}
		gates := []string{"--gate", "precision=0", "--gate", "under_refusal=1", "--gate", "over_refusal=1", "--gate", "citation_hit_rate=0", "--gate", "compliance=0"}
		code, out, errOut := runCLI(t, append([]string{"eval", "--qaset", qaset, "--json"}, gates...)...)
		defer fake.Close()
		if code != 0 {
			t.Fatalf("%s: eval exit %d: %s", reader.name, code, errOut)
		}
		var rep struct {
			OverRefusal  float64 `json:"over_refusal"`
			UnderRefusal float64 `json:"under_refusal"`
			Rows         []struct {
				Answerable bool   `json:"answerable"`
				Label      string `json:"label"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var ans, unans, over, under float64
		for _, r := range rep.Rows {
			if r.Answerable {
				ans++
				if r.Label == "OVER_REFUSAL" {
					over++
				}
			} else {
				unans++
				if r.Label == "HALLUCINATION" {
					under++
				}
			}
		}
		if int(ans+unans) != len(gold)+len(near) || over/ans != rep.OverRefusal || under/unans != rep.UnderRefusal {
			t.Errorf("%s: report over %.3f under %.3f, recomputed over %.0f/%.0f under %.0f/%.0f", reader.name, rep.OverRefusal, rep.UnderRefusal, over, ans, under, unans)
		}
		t.Logf("%s: over-refusal %.3f (%.0f/%.0f answerable), under-refusal %.3f (%.0f/%.0f unanswerable)",
			reader.name, rep.OverRefusal, over, ans, rep.UnderRefusal, under, unans)
		figures[reader.name] = [2]float64{rep.OverRefusal, rep.UnderRefusal}
		if reader.deltaS > 0 {
			// What the ΔS gate made of this model, from the last answer.
			code, out, _ := runCLI(t, "ask", "--json", "--fresh", "How do I install Footnote on Linux?")
			var last struct {
				Retrieval struct {
					Gate string `json:"delta_s_gate"`
				} `json:"retrieval"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &last) != nil {
				t.Fatalf("ask: exit %d %s", code, out)
			}
			state, _, _ := strings.Cut(last.Retrieval.Gate, " (")
			deltaSStates[state]++
			t.Logf("%s: ΔS gate %s", reader.name, last.Retrieval.Gate)
		}
	}
	// The pipeline's own answerability decision, with a model that answers
	// whenever it gets evidence: off, the pipeline refuses no unanswerable
	// question; the score gate alone costs no answerable one; at the
	// defaults the gates refuse most unanswerable questions while keeping
	// over-refusal within the conventional 0.25.
	// The tiny test model has random weights: the ΔS calibration finds no
	// separation, so ΔS stays inert and changes no figure.
	if len(deltaSStates) != 1 || deltaSStates["inert: the embedding model does not separate passages from unrelated ones"] != 2 {
		t.Errorf("ΔS states %v, want inert with the random-weight model", deltaSStates)
	}
	off := figures["answers whenever given evidence, gates off"]
	if got := figures["answers whenever given evidence, delta_s_gate=0.95 alone"]; got != off {
		t.Errorf("the inert ΔS changed the figures: %v, without it %v", got, off)
	}
	if off[1] < 0.9 {
		t.Errorf("without the gates under-refusal is %.3f; the baseline the gates were measured against changed", off[1])
	}
	if alone := figures["answers whenever given evidence, word_match_gate alone"]; alone[0] != off[0] || alone[1] >= off[1] {
		t.Errorf("the score gate alone: over-refusal %.3f (off %.3f), under-refusal %.3f (off %.3f)", alone[0], off[0], alone[1], off[1])
	}
	def := figures[fmt.Sprintf("answers whenever given evidence, word_match_gate and min_rare_term_share=%.2f", share)]
	if def[0] > 0.25 || def[1] > off[1]/2 {
		t.Errorf("default gates: over-refusal %.3f, under-refusal %.3f (off: %.3f)", def[0], def[1], off[1])
	}
}
