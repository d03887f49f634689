package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// specQA and specPrediction are what the evaluation specification's
// reference scorer reads of a gold QA set and a trace line.
type specQA struct {
	QID        string   `json:"qid"`
	Q          string   `json:"q"`
	Answerable bool     `json:"answerable"`
	GoldIDs    []string `json:"gold_ids"`
	GoldClaim  string   `json:"gold_claim"`
}

type specPrediction struct {
	Q         string `json:"q"`
	Question  string `json:"question"`
	Answer    string `json:"answer"`
	Citations any    `json:"citations"`
}

// The reference scorer's expressions, as the specification writes them.
var (
	specCitations = regexp.MustCompile(`(?i)citations\s*:\s*\[([^\]]*)\]`)
	specSplit     = regexp.MustCompile(`[,\s]+`)
	specPhrase    = regexp.MustCompile(`[a-z0-9][a-z0-9\-\s]{4,}`)
)

// scoreBySpecification is a second, independent scorer, written from the
// evaluation specification's definitions and its reference scorer (section
// 2 and 3: parse_citations, is_refusal, phrase_containment, the aggregates
// and labels), sharing no code with backend/eval. Predictions are matched
// to gold questions by their exact text; others are skipped, as are gold
// questions without a prediction. It returns the metrics under
// footnote eval's names and the label counts.
func scoreBySpecification(qs []specQA, preds []specPrediction) (map[string]float64, map[string]int) {
	gold := map[string]specQA{}
	for _, q := range qs {
		gold[q.Q] = q
	}
	type row struct{ answerable, refusal, hit, contain, compliant bool }
	var rows []row
	for _, p := range preds {
		q := p.Q
		if q == "" {
			q = p.Question
		}
		g, ok := gold[q]
		if !ok {
			continue
		}
		var cits []string
		if list, isList := p.Citations.([]any); isList {
			for _, x := range list {
				s, _ := x.(string)
				cits = append(cits, strings.TrimSpace(s))
			}
		} else if m := specCitations.FindStringSubmatch(p.Answer); m != nil {
			for _, t := range specSplit.Split(strings.TrimSpace(m[1]), -1) {
				if t = strings.TrimSpace(t); t != "" {
					cits = append(cits, t)
				}
			}
		}
		r := row{answerable: g.Answerable, refusal: strings.ToLower(strings.TrimSpace(p.Answer)) == "not in context"}
		for _, c := range cits {
			for _, id := range g.GoldIDs {
				r.hit = r.hit || c == id
			}
		}
		if g.GoldClaim != "" {
			ans := strings.ToLower(p.Answer)
			for _, m := range specPhrase.FindAllString(strings.ToLower(g.GoldClaim), -1) {
				if ph := strings.TrimSpace(m); len(ph) >= 5 && strings.Contains(ans, ph) {
					r.contain = true
					break
				}
			}
		}
		// Schema/template compliance: a citations list, or the refusal token.
		r.compliant = len(cits) > 0 || r.refusal
		rows = append(rows, r)
	}
	var pos, neg, answered, correct, overRefused, underRefused, hits, contained, compliant int
	labels := map[string]int{}
	for _, r := range rows {
		if r.answerable {
			pos++
		} else {
			neg++
		}
		if !r.refusal {
			answered++
			if r.answerable && r.hit {
				correct++
			}
		}
		switch {
		case r.answerable && r.refusal:
			overRefused++
		case !r.answerable && !r.refusal:
			underRefused++
		}
		if r.answerable && !r.refusal && r.hit {
			hits++
		}
		if r.answerable && !r.refusal && r.contain {
			contained++
		}
		if r.compliant {
			compliant++
		}
		switch {
		case r.answerable && !r.refusal && r.hit:
			labels["OK"]++
		case !r.answerable && r.refusal:
			labels["REFUSAL_OK"]++
		case r.answerable && r.refusal:
			labels["OVER_REFUSAL"]++
		case !r.answerable && !r.refusal:
			labels["HALLUCINATION"]++
		default:
			labels["ANS_NO_HIT"]++
		}
	}
	div := func(n, d int) float64 {
		if d == 0 {
			return 0
		}
		return float64(n) / float64(d)
	}
	return map[string]float64{
		"questions": float64(len(rows)), "precision": div(correct, answered), "over_refusal": div(overRefused, pos),
		"under_refusal": div(underRefused, neg), "citation_hit_rate": div(hits, pos), "containment": div(contained, pos),
		"compliance": div(compliant, len(rows)),
	}, labels
}

// evalJSON runs footnote eval --json on a qaset and trace file; failed gates
// (exit 1) still print the report.
func evalJSON(t *testing.T, qaset, traces string) map[string]any {
	t.Helper()
	code, out, errOut := runCLI(t, "eval", "--qaset", qaset, "--traces", traces, "--json")
	if code != 0 && code != 1 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	return rep
}

// sameFigures compares footnote eval's report with a scorer's figures.
func sameFigures(t *testing.T, rep map[string]any, want map[string]float64, wantLabels map[string]int) {
	t.Helper()
	for name, w := range want {
		if got, ok := rep[name].(float64); !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: footnote eval %v, the specification's scorer %v", name, rep[name], w)
		}
	}
	gotLabels, _ := rep["labels"].(map[string]any)
	for _, l := range []string{"OK", "REFUSAL_OK", "OVER_REFUSAL", "HALLUCINATION", "ANS_NO_HIT"} {
		if g, _ := gotLabels[l].(float64); int(g) != wantLabels[l] {
			t.Errorf("label %s: footnote eval %v, the specification's scorer %d", l, gotLabels[l], wantLabels[l])
		}
	}
}

// TestSpecificationExampleScores: the evaluation specification's own gold
// set and trace line (testdata/spec_eval, verbatim), scored by footnote
// eval, give the specification's figures. By its reference scorer: one
// question scored (q2–q4 have no prediction), q1 answered with a bulleted
// "- citations: [p1#1]" line that hits its gold id, so precision 1, hit rate
// 1, no refusals; its claim "x is a constrained mapping" is not in the
// answer, so containment 0; label OK.
func TestSpecificationExampleScores(t *testing.T) {
	t.Setenv("FOOTNOTE_HOME", t.TempDir())
	dir := filepath.Join("testdata", "spec_eval")
	qaset, traces := filepath.Join(dir, "qaset.json"), filepath.Join(dir, "trace.jsonl")
	rep := evalJSON(t, qaset, traces)
	sameFigures(t, rep, map[string]float64{"questions": 1, "precision": 1, "over_refusal": 0, "under_refusal": 0,
		"citation_hit_rate": 1, "containment": 0, "compliance": 1}, map[string]int{"OK": 1})
	if u, _ := rep["untraced"].([]any); len(u) != 3 || u[0] != "q2" {
		t.Errorf("untraced = %v, want q2 q3 q4 named", rep["untraced"])
	}
	if rep["passed"] != true {
		t.Errorf("the example passes the default gates: %v", rep["gates"])
	}
	// The same figures from the independent scorer, on the same files.
	var qs []specQA
	var pred specPrediction
	if err := json.Unmarshal(mustRead(t, qaset), &qs); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustRead(t, traces), &pred); err != nil {
		t.Fatal(err)
	}
	want, labels := scoreBySpecification(qs, []specPrediction{pred})
	sameFigures(t, rep, want, labels)
	code, md, _ := runCLI(t, "eval", "--qaset", qaset, "--traces", traces)
	if code != 0 || !strings.Contains(md, "| q1 | 1 | OK |") || !strings.Contains(md, "Not scored, no trace answers them: q2, q3, q4") {
		t.Errorf("Markdown report (exit %d):\n%s", code, md)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEvalMatchesTheSpecificationScorer: Footnote answers the 60 questions
// of the sample gold set (a scripted model with planted mistakes), the
// answers are exported with `trace export --ids section` (the gold set names
// sections), and the specification's scorer above and `footnote eval` give
// the same figures on that file. Exported at snippet level instead, the
// specification's scorer finds no hit, while footnote eval, which reads the
// full citations under "cited", still does.
func TestEvalMatchesTheSpecificationScorer(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(ollamafake.ScriptedResponder(ollamafake.SampleLibraryScript(), nil)))
	defer fake.Close()
	home := t.TempDir()
	t.Setenv("FOOTNOTE_HOME", home)
	// The plays' planted hallucinations must reach the trace to be scored,
	// so the gates that would refuse them before the model is called are off.
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"word_match_gate": 0, "min_rare_term_share": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
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
	goldPath := filepath.Join("..", "..", "sample", "gold.json")
	var qs []specQA
	if err := json.Unmarshal(mustRead(t, goldPath), &qs); err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if code, _, errOut := runCLI(t, "ask", "--fresh", q.Q); code != 0 {
			t.Fatalf("ask %s: %s", q.QID, errOut)
		}
	}
	dir := t.TempDir()
	export := func(level string) (string, []specPrediction, []map[string]any) {
		path := filepath.Join(dir, level+".jsonl")
		if code, _, errOut := runCLI(t, "trace", "export", "--ids", level, "--out", path); code != 0 {
			t.Fatalf("trace export: %s", errOut)
		}
		var preds []specPrediction
		var full []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(string(mustRead(t, path))), "\n") {
			var p specPrediction
			var f map[string]any
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(line), &f); err != nil {
				t.Fatal(err)
			}
			preds, full = append(preds, p), append(full, f)
		}
		if len(preds) != len(qs) {
			t.Fatalf("%d trace lines for %d questions", len(preds), len(qs))
		}
		return path, preds, full
	}
	path, preds, full := export("section")
	want, labels := scoreBySpecification(qs, preds)
	rep := evalJSON(t, goldPath, path)
	sameFigures(t, rep, want, labels)
	t.Logf("the specification's scorer on the exported trace: %v labels %v", want, labels)
	// Not degenerate: answers, refusals and mistakes all occur.
	if labels["OK"] == 0 || labels["OVER_REFUSAL"] == 0 || labels["REFUSAL_OK"] == 0 || labels["HALLUCINATION"] == 0 {
		t.Errorf("labels %v: the trace should hold answers, refusals and mistakes", labels)
	}
	// A refusal is the refusal token, Footnote's text beside it.
	for _, f := range full {
		if f["ok"] == false && (f["answer"] != "not in context" || f["footnote_answer"] == "" || f["ids"] != "section") {
			t.Errorf("refusal exported as %q (footnote_answer %q, ids %v)", f["answer"], f["footnote_answer"], f["ids"])
		}
	}

	snipPath, snipPreds, _ := export("snippet")
	if w, _ := scoreBySpecification(qs, snipPreds); w["citation_hit_rate"] != 0 {
		t.Errorf("snippet ids cannot hit section gold ids in the specification's scorer: %v", w)
	}
	sameFigures(t, evalJSON(t, goldPath, snipPath), want, labels)
}

// The traceability specification's λ: a question asked in several wordings
// and with several seeds should converge. eval --runs 3 asks the question,
// then each paraphrase, each run with the next seed, and reports λ.
func TestEvalRunsParaphrasesAndSeeds(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	qaset := filepath.Join(t.TempDir(), "qaset.json")
	if err := os.WriteFile(qaset, []byte(`[{"qid":"q1","q":"How do I install on Linux?","answerable":true,"gold_ids":["install/install/linux"],
		"paraphrases":["What are the steps to install on Linux?","Linux installation: what do I run?"]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "eval", "--qaset", qaset, "--runs", "3", "--json", "--gate", "precision=0")
	var rep struct {
		Runs int `json:"runs"`
		Rows []struct {
			Run      int    `json:"run"`
			Question string `json:"question"`
			Lambda   string `json:"lambda"`
		} `json:"rows"`
		Lambda *struct {
			Convergent int `json:"convergent"`
			Divergent  int `json:"divergent"`
		} `json:"lambda"`
	}
	if (code != 0 && code != 1) || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("eval --runs 3: exit %d %s %s", code, out, errOut)
	}
	want := []string{"How do I install on Linux?", "What are the steps to install on Linux?", "Linux installation: what do I run?"}
	if rep.Runs != 3 || len(rep.Rows) != 3 || rep.Lambda == nil || rep.Lambda.Convergent+rep.Lambda.Divergent != 1 {
		t.Fatalf("report: %+v", rep)
	}
	for i, r := range rep.Rows {
		if r.Run != i+1 || r.Question != want[i] || (r.Lambda != "convergent" && r.Lambda != "divergent") {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	seeds := map[any]bool{}
	for _, req := range fake.Requests() {
		seeds[req.Options["seed"]] = true
	}
	if len(seeds) != 3 {
		t.Errorf("seeds sent %v, want one per run", seeds)
	}
}
