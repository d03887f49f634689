package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// minimalQA and minimalTrace are all a conventional scorer reads.
type minimalQA struct {
	QID        string   `json:"qid"`
	Q          string   `json:"q"`
	Answerable bool     `json:"answerable"`
	GoldIDs    []string `json:"gold_ids"`
	GoldClaim  string   `json:"gold_claim"`
}

type minimalTrace struct {
	Q         string   `json:"q"`
	Answer    string   `json:"answer"`
	Citations []string `json:"citations"`
	OK        *bool    `json:"ok"`
}

// scoreConventionally is a second, independent implementation of the
// conventional definitions (docs/evaluation.md), written from them and
// sharing no code with backend/eval.
func scoreConventionally(qs []minimalQA, traces []minimalTrace) (map[string]float64, map[string]int) {
	byQ := map[string]minimalTrace{}
	for _, t := range traces {
		byQ[t.Q] = t
	}
	var answerable, unanswerable, answered, correct, refusedAnswerable, answeredUnanswerable, compliant, contained int
	labels := map[string]int{}
	for _, q := range qs {
		t := byQ[q.Q]
		text := strings.ToLower(strings.TrimSpace(t.Answer))
		token := text == "not in context" || text == "i don't know based on the provided documents."
		refused := (t.OK != nil && !*t.OK) || token
		hit := false
		for _, c := range t.Citations {
			for _, g := range q.GoldIDs {
				hit = hit || c == g
			}
		}
		if len(t.Citations) > 0 || token {
			compliant++
		}
		if !refused {
			answered++
		}
		if q.Answerable {
			answerable++
			for _, run := range strings.FieldsFunc(q.GoldClaim, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				if len([]rune(run)) >= 5 && strings.Contains(strings.ToLower(t.Answer), strings.ToLower(run)) {
					contained++
					break
				}
			}
		} else {
			unanswerable++
		}
		switch {
		case q.Answerable && refused:
			refusedAnswerable++
			labels["OVER_REFUSAL"]++
		case q.Answerable && hit:
			correct++
			labels["OK"]++
		case q.Answerable:
			labels["ANS_NO_HIT"]++
		case refused:
			labels["REFUSAL_OK"]++
		default:
			answeredUnanswerable++
			labels["HALLUCINATION"]++
		}
	}
	div := func(n, d int) float64 {
		if d == 0 {
			return 0
		}
		return float64(n) / float64(d)
	}
	return map[string]float64{
		"precision": div(correct, answered), "over_refusal": div(refusedAnswerable, answerable),
		"under_refusal": div(answeredUnanswerable, unanswerable), "citation_hit_rate": div(correct, answerable),
		"compliance": div(compliant, len(qs)), "containment": div(contained, answerable),
	}, labels
}

// TestEvalMatchesAnIndependentScorer: answers Footnote gave and exported
// with `trace export`, scored by `footnote eval --traces` and by the minimal
// scorer above, give the same numbers.
func TestEvalMatchesAnIndependentScorer(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(ollamafake.ScriptedResponder(ollamafake.SampleLibraryScript(), nil)))
	defer fake.Close()
	t.Setenv("FOOTNOTE_HOME", t.TempDir())
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
	data, err := os.ReadFile(filepath.Join("..", "..", "sample", "gold.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sample []minimalQA
	if err := json.Unmarshal(data, &sample); err != nil {
		t.Fatal(err)
	}
	// Planted plays among them: a citation of another section (q03), no
	// citation (q08), a made-up citation (q13), a refusal (q19), a
	// hallucination (u03).
	asked := map[string]bool{"q01": true, "q02": true, "q03": true, "q05": true, "q08": true, "q13": true, "q19": true,
		"u01": true, "u02": true, "u03": true}
	var qs []minimalQA
	for _, q := range sample {
		if !asked[q.QID] {
			continue
		}
		qs = append(qs, q)
		if code, _, errOut := runCLI(t, "ask", "--fresh", q.Q); code != 0 {
			t.Fatalf("ask %s: %s", q.QID, errOut)
		}
	}
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "trace.jsonl")
	if code, _, errOut := runCLI(t, "trace", "export", "--out", tracePath); code != 0 {
		t.Fatalf("trace export: %s", errOut)
	}
	raw, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	var traces []minimalTrace
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var tr minimalTrace
		var full struct {
			Chunks []struct {
				ID        string `json:"id"`
				SectionID string `json:"section_id"`
			} `json:"chunks"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(line), &full); err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
		// The conventional scorer compares passage ids: the gold passages of
		// a question are the packed passages of its gold sections.
		for i := range qs {
			if qs[i].Q != tr.Q || !qs[i].Answerable {
				continue
			}
			sections := qs[i].GoldIDs
			qs[i].GoldIDs = nil
			for _, c := range full.Chunks {
				for _, s := range sections {
					if c.SectionID == s {
						qs[i].GoldIDs = append(qs[i].GoldIDs, c.ID)
					}
				}
			}
			if len(qs[i].GoldIDs) == 0 {
				qs[i].GoldIDs = []string{"snip_not_retrieved_" + qs[i].QID}
			}
		}
	}
	if len(traces) != len(qs) {
		t.Fatalf("%d traces for %d questions", len(traces), len(qs))
	}
	qsPath := filepath.Join(dir, "qaset.json")
	qsData, _ := json.Marshal(qs)
	if err := os.WriteFile(qsPath, qsData, 0o644); err != nil {
		t.Fatal(err)
	}

	want, wantLabels := scoreConventionally(qs, traces)
	// The planted faults fail gates (exit 1); the report is printed either way.
	code, out, errOut := runCLI(t, "eval", "--qaset", qsPath, "--traces", tracePath, "--json")
	if code != 0 && code != 1 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		if got, ok := rep[name].(float64); !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: footnote eval %v, independent scorer %v", name, rep[name], w)
		}
	}
	gotLabels := rep["labels"].(map[string]any)
	for _, l := range []string{"OK", "REFUSAL_OK", "OVER_REFUSAL", "HALLUCINATION", "ANS_NO_HIT"} {
		if g, _ := gotLabels[l].(float64); int(g) != wantLabels[l] {
			t.Errorf("label %s: footnote eval %v, independent scorer %d", l, gotLabels[l], wantLabels[l])
		}
	}
	// The numbers are not degenerate: both refusals and answers occur.
	if wantLabels["OK"] == 0 || wantLabels["OVER_REFUSAL"] == 0 || wantLabels["REFUSAL_OK"] == 0 {
		t.Errorf("labels %v: the trace should hold answers and refusals", wantLabels)
	}
	t.Logf("independent scorer: %v labels %v", want, wantLabels)
}
