package eval

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/verify"
)

func res(verdicts ...string) []verify.Result {
	out := make([]verify.Result, len(verdicts))
	for i, v := range verdicts {
		out[i] = verify.Result{N: i + 1, Verdict: v}
	}
	return out
}

func claimResult(verdict string, results ...string) verify.ClaimResult {
	cr := verify.ClaimResult{Verdict: verdict, Results: res(results...)}
	for _, r := range cr.Results {
		cr.Claim.Markers = append(cr.Claim.Markers, r.N)
	}
	return cr
}

// sixCitations: four cited claims (two supported by a citation alone), one
// uncited claim, one segment that is not a claim; six citations of which
// four support their claim:
//
//	A [supported]            recall 1, precision 1 of 1
//	B [supported, partial]   recall 1, precision 1 of 2 (the partial one is redundant)
//	C [partial, partial]     recall 0, precision 2 of 2 (each is needed)
//	D [unsupported]          recall 0, precision 0 of 1
//
// recall 2/4 = 0.5, precision 4/6.
func sixCitations() []verify.ClaimResult {
	return []verify.ClaimResult{
		claimResult(verify.Supported, verify.Supported),
		claimResult(verify.Supported, verify.Supported, verify.Partial),
		claimResult(verify.Partial, verify.Partial, verify.Partial),
		claimResult(verify.Unsupported, verify.Unsupported),
		{Verdict: verify.Uncited},
		{Claim: verify.Claim{NonClaim: "lead-in"}},
	}
}

func nearPtr(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }

func TestCountCitationsALCE(t *testing.T) {
	c := CountCitations(sixCitations())
	want := CitationCounts{CitedClaims: 4, SupportedClaims: 2, UncitedClaims: 1, Citations: 6, SupportingCitations: 4}
	if c != want {
		t.Fatalf("counts %+v, want %+v", c, want)
	}
	if !nearPtr(c.Recall(), 0.5) || !nearPtr(c.Precision(), 4.0/6) {
		t.Errorf("recall %v, precision %v; want 0.5 and 0.667", *c.Recall(), *c.Precision())
	}
	if none := CountCitations([]verify.ClaimResult{{Verdict: verify.Uncited}}); none.Recall() != nil || none.Precision() != nil {
		t.Errorf("an answer with no cited claim must have no recall or precision, got %+v", none)
	}
}

const diskPassage = "Footnote is a desktop application for Linux, macOS and Windows. It needs about 200 MB of disk space plus the\nspace for your index, which is roughly a third of the size of the text you add."

// Build averages per answer over the answers that have figures: a refusal
// and a trace with neither claims nor passage text are n/a, not 0; a trace
// without claims but with its passages is verified from them.
func TestBuildCitationRecallAndPrecision(t *testing.T) {
	qs := []QA{
		{QID: "a", Q: "qa", Answerable: true, GoldIDs: []string{"s"}},
		{QID: "b", Q: "qb", Answerable: true, GoldIDs: []string{"s"}},
		{QID: "c", Q: "qc", Answerable: true, GoldIDs: []string{"s"}},
		{QID: "d", Q: "qd", Answerable: true, GoldIDs: []string{"s"}},
		{QID: "e", Q: "How much disk space does Footnote need?", Answerable: true, GoldIDs: []string{"s"}},
	}
	traces := map[string][]Trace{
		"a": {{Answer: "Four claims [#1].", Claims: sixCitations()}},
		"b": {{Answer: "One claim [#1].", Claims: []verify.ClaimResult{claimResult(verify.Supported, verify.Supported)}}},
		"c": {{Answer: "I could not find this in your documents.", RefusalReason: reason("no_chunks")}},
		"d": {{Answer: "Claims were not exported [#1].", Chunks: []Item{{SnippetID: "s"}}}},
		// Verified here: the first claim is in the passage, the second
		// names a Windows version the passage does not.
		"e": {{Question: qs[4].Q, Answer: "Footnote needs about 200 MB of disk space [#1]. It runs on Windows 95 [#1].",
			Chunks: []Item{{SnippetID: "s", N: 1, Text: diskPassage}}}},
	}
	rep := Build(qs, traces, 10, nil)
	byQID := map[string]Row{}
	for _, r := range rep.Rows {
		byQID[r.QID] = r
	}
	if r := byQID["a"]; !nearPtr(r.CitationRecall, 0.5) || !nearPtr(r.CitationPrecision, 4.0/6) || r.ClaimCounts.From != "answer" {
		t.Errorf("a: %+v", r)
	}
	for _, qid := range []string{"c", "d"} {
		if r := byQID[qid]; r.CitationRecall != nil || r.CitationPrecision != nil {
			t.Errorf("%s: want n/a, got recall %v precision %v", qid, r.CitationRecall, r.CitationPrecision)
		}
	}
	e := byQID["e"]
	if e.ClaimCounts == nil || e.ClaimCounts.From != "evidence" || !nearPtr(e.CitationRecall, 0.5) || !nearPtr(e.CitationPrecision, 0.5) {
		t.Fatalf("e (verified from its passage): %+v counts %+v", e, e.ClaimCounts)
	}
	// (0.5 + 1 + 0.5) / 3 and (4/6 + 1 + 0.5) / 3.
	m := rep.Metrics
	if m.CitationAnswers != 3 || !nearPtr(m.CitationRecall, 2.0/3) || !nearPtr(m.CitationPrecision, (4.0/6+1+0.5)/3) {
		t.Errorf("aggregate: answers %d recall %v precision %v", m.CitationAnswers, *m.CitationRecall, *m.CitationPrecision)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "citation_recall 0.667 · citation_precision 0.722") || !strings.Contains(md.String(), "| d | 1 | ANS_NO_HIT | yes | no | no | no | 1 | 1 | n/a | n/a |") {
		t.Errorf("Markdown:\n%s", md.String())
	}
	out, err := json.Marshal(Build(qs[2:4], map[string][]Trace{"c": traces["c"], "d": traces["d"]}, 10, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"citation_recall":null,"citation_precision":null,"citation_answers":0`)) {
		t.Errorf("no answer with figures must report null, not 0: %s", out)
	}
}

// A trace line as `footnote trace export` writes it carries its claims.
func TestTraceLineCarriesClaims(t *testing.T) {
	line := `{"qid":"x","question":"q","answer":"A [#1].","grounded":true,"refusal_reason":null,"citations":[],"chunks":[{"n":1,"snippet_id":"s","section_id":"t","doc_id":"d","text":"A."}],` +
		`"claims":[{"claim":{"text":"A [#1].","plain":"A.","markers":[1],"non_claim":""},"results":[{"n":1,"verdict":"partial","score":0.5,"span":{},"signals":{"lexical":0.5}}],"verdict":"partial","score":0.5}]}`
	var tr Trace
	if err := json.Unmarshal([]byte(line), &tr); err != nil {
		t.Fatal(err)
	}
	c, ok := traceCitationCounts(tr)
	if !ok || c.From != "answer" || c.CitedClaims != 1 || c.SupportedClaims != 0 || c.SupportingCitations != 1 {
		t.Errorf("counts %+v ok %v", c, ok)
	}
	if tr.Chunks[0].N != 1 || tr.Chunks[0].Text != "A." {
		t.Errorf("chunk n/text not read: %+v", tr.Chunks[0])
	}
}

// A live answer asked with verification off carries no claims; it is
// verified from the passages it was given.
func TestLiveAnswerWithoutClaimsIsVerifiedFromEvidence(t *testing.T) {
	a := rag.Answer{Question: "How much disk space does Footnote need?",
		Answer:   "Footnote needs about 200 MB of disk space [#1].",
		Evidence: []rag.Citation{{N: 1, Text: diskPassage}}}
	q := QA{QID: "x", Q: a.Question, Answerable: true, GoldIDs: []string{"s"}}
	r := Judge(q, FromAnswer("x", 1, a, nil), 10)
	if r.ClaimCounts == nil || r.ClaimCounts.From != "evidence" || !nearPtr(r.CitationRecall, 1) || !nearPtr(r.CitationPrecision, 1) {
		t.Errorf("row %+v counts %+v", r, r.ClaimCounts)
	}
}
