package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalTracesCitationQuality scores ALCE citation recall and precision
// from a trace file: one trace carries its verified claims (one claim
// supported by [#1], one only partly by [#2]: recall 1/2, precision 2/2),
// one carries none but has its passage text (verified here: the 40 MB claim
// contradicts the passage, recall 0, precision 0), and a refusal is n/a.
func TestEvalTracesCitationQuality(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, "gold.json")
	traces := filepath.Join(dir, "trace.jsonl")
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(gold, `[{"qid":"a","q":"How do I install?","answerable":true,"gold_ids":["install/linux"]},
		{"qid":"b","q":"How much disk space?","answerable":true,"gold_ids":["install"]},
		{"qid":"c","q":"What does it cost?","answerable":false}]`)
	claimA := `{"claim":{"text":"Run the AppImage [#1].","plain":"Run the AppImage.","markers":[1],"non_claim":""},"results":[{"n":1,"verdict":"supported","score":0.9,"span":{},"signals":{"lexical":0.9}}],"verdict":"supported","score":0.9}`
	claimB := `{"claim":{"text":"It updates itself [#2].","plain":"It updates itself.","markers":[2],"non_claim":""},"results":[{"n":2,"verdict":"partial","score":0.5,"span":{},"signals":{"lexical":0.5}}],"verdict":"partial","score":0.5}`
	write(traces, `{"qid":"a","question":"How do I install?","answer":"Run the AppImage [#1]. It updates itself [#2].","grounded":true,"refusal_reason":null,"citations":[{"n":1,"snippet_id":"snip_1","section_id":"install/linux","doc_id":"doc_1"}],"chunks":[],"claims":[`+claimA+`,`+claimB+`]}
{"qid":"b","question":"How much disk space?","answer":"Footnote needs about 40 MB of disk space [#1].","grounded":true,"refusal_reason":null,"citations":[{"n":1,"snippet_id":"snip_2","section_id":"install","doc_id":"doc_1"}],"chunks":[{"n":1,"snippet_id":"snip_2","section_id":"install","doc_id":"doc_1","text":"Footnote needs about 200 MB of disk space plus the space for your index."}]}
{"qid":"c","question":"What does it cost?","answer":"I could not find this in your documents.","grounded":false,"refusal_reason":"no_chunks","citations":[],"chunks":[]}
`)
	code, out, errOut := runCLI(t, "eval", "--qaset", gold, "--traces", traces, "--json", "--gate", "over_refusal=1", "--gate", "precision=0", "--gate", "compliance=0", "--gate", "citation_hit_rate=0", "--gate", "non_corpus_citation_rate=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Recall    *float64 `json:"citation_recall"`
		Precision *float64 `json:"citation_precision"`
		Answers   int      `json:"citation_answers"`
		Rows      []struct {
			QID       string   `json:"qid"`
			Recall    *float64 `json:"citation_recall"`
			Precision *float64 `json:"citation_precision"`
			Counts    *struct {
				From string `json:"from"`
			} `json:"claim_counts"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Answers != 2 || rep.Recall == nil || *rep.Recall != 0.25 || rep.Precision == nil || *rep.Precision != 0.5 {
		t.Fatalf("aggregate: answers %d recall %v precision %v, want 2, 0.25, 0.5\n%s", rep.Answers, rep.Recall, rep.Precision, out)
	}
	want := map[string]string{"a": "answer 0.5 1", "b": "evidence 0 0", "c": "n/a"}
	for _, r := range rep.Rows {
		got := "n/a"
		if r.Counts != nil && r.Recall != nil && r.Precision != nil {
			got = strings.TrimSpace(r.Counts.From + " " + trimFloat(*r.Recall) + " " + trimFloat(*r.Precision))
		}
		if got != want[r.QID] {
			t.Errorf("%s: %s, want %s", r.QID, got, want[r.QID])
		}
	}
	code, out, _ = runCLI(t, "eval", "--qaset", gold, "--traces", traces, "--gate", "over_refusal=1", "--gate", "precision=0", "--gate", "compliance=0", "--gate", "citation_hit_rate=0", "--gate", "non_corpus_citation_rate=1")
	if code != 0 || !strings.Contains(out, "citation_recall 0.250 · citation_precision 0.500") || !strings.Contains(out, "| c | 1 | REFUSAL_OK | no | no | no | – | 0 | 0 | n/a | n/a |") {
		t.Errorf("text report: exit %d\n%s", code, out)
	}
}

func trimFloat(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
