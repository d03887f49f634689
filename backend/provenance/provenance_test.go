package provenance

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

var asked = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func good(n int, section string) Payload {
	return Payload{
		N: n, DocID: "doc_a", SectionID: section, SnippetID: "snip_" + strconv.Itoa(n),
		SourceURL: "file:///docs/a.md", Offsets: corpus.Offsets{Start: 10, End: 50, Unit: corpus.UnitChar},
		Tokens: 12, IndexHash: "hash1", EmbedModel: "m", Analyzer: "an", Rev: "rev1",
		ScoreRaw: 0.03, ScoreNorm: 0.9, KPos: 1, KFinal: n, Source: corpus.SourceCorpus,
		CreatedAt: asked.Add(-time.Hour),
	}
}

func live() Live {
	return Live{IndexHash: "hash1", Analyzer: "an", AsOf: asked,
		Rev: func(id string) (string, bool) { return "rev1", id == "doc_a" }}
}

func TestValidateClean(t *testing.T) {
	r := Validate([]Payload{good(1, "s1"), good(2, "s1")}, []Segment{{Text: "x", Cites: []int{1, 2}}}, live())
	if !r.OK || len(r.Issues) != 0 {
		t.Fatalf("clean payload: %+v", r)
	}
}

func TestValidatorCodes(t *testing.T) {
	mod := func(f func(*Payload)) []Payload { p := good(1, "s1"); f(&p); return []Payload{p} }
	seg := []Segment{{Text: "x", Cites: []int{1}}}
	cases := []struct {
		name  string
		cites []Payload
		segs  []Segment
		live  func(*Live)
		want  string
		ok    bool
	}{
		{"empty", nil, nil, nil, CodeEmptyCitations, false},
		{"missing doc", mod(func(p *Payload) { p.DocID = "" }), seg, nil, "missing_doc_id", false},
		{"missing section", mod(func(p *Payload) { p.SectionID = "" }), seg, nil, "missing_section_id", false},
		{"missing snippet", mod(func(p *Payload) { p.SnippetID = "" }), seg, nil, "missing_snippet_id", false},
		{"missing url", mod(func(p *Payload) { p.SourceURL = "" }), seg, nil, "missing_source_url", false},
		{"missing offsets", mod(func(p *Payload) { p.Offsets.Unit = "" }), seg, nil, "missing_offsets", false},
		{"missing tokens", mod(func(p *Payload) { p.Tokens = 0 }), seg, nil, "missing_tokens", false},
		{"missing hash", mod(func(p *Payload) { p.IndexHash = "" }), seg, nil, "missing_index_hash", false},
		{"missing model", mod(func(p *Payload) { p.EmbedModel = "" }), seg, nil, "missing_embed_model", false},
		{"missing analyzer", mod(func(p *Payload) { p.Analyzer = "" }), seg, nil, "missing_analyzer", false},
		{"missing rev", mod(func(p *Payload) { p.Rev = "" }), seg, nil, "missing_rev", false},
		{"start after end", mod(func(p *Payload) { p.Offsets.Start, p.Offsets.End = 50, 50 }), seg, nil, CodeBadOffsets, false},
		{"mixed units", []Payload{good(1, "s1"), func() Payload { p := good(2, "s1"); p.Offsets.Unit = "byte"; return p }()}, seg, nil, CodeBadOffsets, false},
		{"missing score", mod(func(p *Payload) { p.ScoreNorm = 0 }), seg, nil, CodeMissingScore, false},
		{"missing raw score", mod(func(p *Payload) { p.ScoreRaw = 0 }), seg, nil, CodeMissingScore, false},
		{"index hash", mod(func(p *Payload) { p.IndexHash = "old" }), seg, nil, CodeMismatchIndexHash, false},
		{"analyzer", mod(func(*Payload) {}), seg, func(l *Live) { l.Analyzer = "other" }, CodeAnalyzerMismatch, false},
		{"rev changed", mod(func(p *Payload) { p.Rev = "rev0" }), seg, nil, CodeRevMismatch, false},
		{"doc removed", mod(func(p *Payload) { p.DocID = "doc_gone" }), seg, nil, CodeRevMismatch, false},
		{"model source", mod(func(p *Payload) { p.Source = corpus.SourceModel }), seg, nil, CodeNonCorpusEvidence, false},
		{"gen prefix", mod(func(p *Payload) { p.SnippetID = "gen:1" }), seg, nil, CodeNonCorpusEvidence, false},
		{"created later", mod(func(p *Payload) { p.CreatedAt = asked.Add(time.Second) }), seg, nil, CodeNonCorpusEvidence, false},
		{"cross section allowed", []Payload{good(1, "s1"), good(2, "s2")}, []Segment{{Cites: []int{1, 2}}}, nil, CodeCrossSectionReuse, true},
		{"cross section forbidden", []Payload{good(1, "s1"), good(2, "s2")}, []Segment{{Cites: []int{1, 2}}},
			func(l *Live) { l.CrossSection = PolicyForbid }, CodeCrossSectionReuse, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := live()
			if tc.live != nil {
				tc.live(&l)
			}
			r := Validate(tc.cites, tc.segs, l)
			if !slices.Equal(r.Codes(), []string{tc.want}) {
				t.Fatalf("codes = %v, want [%s]", r.Codes(), tc.want)
			}
			if r.OK != tc.ok {
				t.Fatalf("ok = %v, want %v", r.OK, tc.ok)
			}
			if r.Issues[0].Fix == "" || strings.Contains(r.Issues[0].Fix, "\n") {
				t.Fatalf("fix must be one line: %q", r.Issues[0].Fix)
			}
		})
	}
}

func TestAggregateTier(t *testing.T) {
	cases := []struct {
		sources []string
		want    int
	}{
		{nil, TierInferred},
		{[]string{"corpus"}, 1},
		{[]string{"corpus", "corpus", "corpus", "corpus", "corpus", "model"}, 1}, // model = 16.7%, under 20%
		{[]string{"corpus", "corpus", "corpus", "model"}, 4},                     // 25%
		{[]string{"corpus", "corpus", "corpus", "corpus", "user"}, 1},            // exactly 20% is not more
		{[]string{"corpus", "user", "user"}, 2},
	}
	for _, tc := range cases {
		var ev []Evidence
		for _, s := range tc.sources {
			ev = append(ev, Evidence{Source: s, ScoreNorm: 1})
		}
		if got := AggregateTier(Breakdown(ev)); got != tc.want {
			t.Errorf("%v: tier %d, want %d", tc.sources, got, tc.want)
		}
	}
}

func TestAggregate(t *testing.T) {
	retrieved := asked.Add(time.Minute)
	in := Inputs{
		IndexHash: "h", RetrievedAt: retrieved, Retrievers: []string{"vector", "lexical"}, RRFK: 60, Provider: "ollama", Model: "llama3.2",
		TotalRetrieved: 20, TotalAfterFusion: 14, Grounded: true,
		Cited:    []Evidence{{Source: "corpus", ScoreNorm: 0.8, CreatedAt: asked}, {Source: "corpus", ScoreNorm: 0.6, CreatedAt: asked.Add(-time.Hour)}},
		Segments: []Segment{{Cites: []int{1}}, {Cites: []int{}}},
	}
	p := Aggregate(in)
	want := []string{StepLexical, StepVector, "Fusion:RRF(k=60)", "LLM:ollama/llama3.2"}
	if !slices.Equal(p.DerivationChain, want) {
		t.Fatalf("chain %v, want %v", p.DerivationChain, want)
	}
	if p.Steps[len(p.Steps)-1].Tier != TierInferred || p.Steps[0].Tier != 1 {
		t.Fatalf("step tiers %+v", p.Steps)
	}
	if p.DataTier != 1 || p.DataTierBreakdown[1] != 1 {
		t.Fatalf("tier %d breakdown %v", p.DataTier, p.DataTierBreakdown)
	}
	if !slices.Equal(p.SourcesQueried, []string{"fts5", "sqlite-vec"}) || p.TotalRetrieved != 20 || p.TotalAfterFusion != 14 {
		t.Fatalf("sources %+v", p)
	}
	// When the evidence was retrieved, and when the newest cited passage
	// was indexed; the policy and the model that wrote it.
	if !p.SourceTimestamp.Equal(retrieved) || p.IndexedAt == nil || !p.IndexedAt.Equal(asked) {
		t.Fatalf("source timestamp %v, indexed at %v", p.SourceTimestamp, p.IndexedAt)
	}
	if p.RevalidationPolicy != RevalidateOnAccess || p.LLMProvider != "ollama" || p.LLMModel != "llama3.2" {
		t.Fatalf("policy %q, model %q/%q", p.RevalidationPolicy, p.LLMProvider, p.LLMModel)
	}
	// coverage 0.5 × mean 0.7 × tier factor 1
	if got := p.ConfidenceScore; got < 0.3499 || got > 0.3501 {
		t.Fatalf("confidence %v, want 0.35", got)
	}
	p.MarkCached()
	p.MarkCached()
	if p.DerivationChain[0] != StepCache || p.DerivationChain[1] != StepLexical {
		t.Fatalf("cached chain %v", p.DerivationChain)
	}
	in.Grounded = false
	if Aggregate(in).ConfidenceScore != 0 {
		t.Fatal("ungrounded answers have confidence 0")
	}
}

// Confidence's coverage counts claims: a heading or a lead-in needs no
// citation and does not lower it.
func TestConfidenceCoverageCountsClaims(t *testing.T) {
	in := Inputs{Grounded: true, Cited: []Evidence{{Source: "corpus", ScoreNorm: 1}},
		Segments: []Segment{{Text: "# Install", NonClaim: "heading"}, {Text: "Run it [#1].", Cites: []int{1}}, {Text: "Steps:", NonClaim: "lead_in"}}}
	if got := Aggregate(in).ConfidenceScore; got != 1 {
		t.Errorf("confidence %v, want 1 (one claim, cited)", got)
	}
	in.Segments = append(in.Segments, Segment{Text: "It needs root."})
	if got := Aggregate(in).ConfidenceScore; got != 0.5 {
		t.Errorf("confidence %v, want 0.5 (one of two claims cited)", got)
	}
}

func TestAuditLogLinesAndRotation(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenAudit(dir, 600, 2)
	if err != nil {
		t.Fatal(err)
	}
	q := TraceRow{TS: asked, QID: "q1", Kind: "question", Store: "index.db", IndexHash: "h", EmbedModel: "m", Text: "how do I \"install\"?"}
	s := TraceRow{TS: asked, QID: "q1", Seg: 1, Kind: "segment", K: 20, TraceID: "tr_1", Store: "index.db", IndexHash: "h", EmbedModel: "m",
		Citations: []string{"snip_a", "snip_b"}, Scores: []float64{0.9, 0.5}, KPos: []int{1, 3}, KFinal: []int{1, 2},
		SectionIDs: []string{"a", "b"}, Revs: []string{"r1", "r2"}, Text: "Use apt [#1].", Version: "0.1.0-dev.3+gabc1234"}
	if err := l.Write(q, s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(l.Path())
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", data)
	}
	// The conventional keys, in their order (embed, kpos and kfinal by their
	// conventional names), then Footnote's own.
	want := `ts=2025-03-01T12:00:00Z qid=q1 seg=1 deltaS=- lambda=- k=20 store=index.db index_hash=h embed=m citations=snip_a,snip_b ` +
		`scores=0.9000,0.5000 kpos=1,3 kfinal=1,2 section_id=a,b rev=r1,r2 kind=segment trace_id=tr_1 version=0.1.0-dev.3+gabc1234 text="Use apt [#1]."`
	if lines[1] != want {
		t.Errorf("segment line\n got %s\nwant %s", lines[1], want)
	}
	if !strings.Contains(lines[0], ` evidence_sources=- validation=ok text="how do I \"install\"?"`) {
		t.Errorf("question line: %s", lines[0])
	}
	// A failed check: its code on the question line, and a line of its own
	// with the code, severity, what failed and the fix.
	q.Checks = []string{CodeMismatchIndexHash}
	rows := CheckRows(q, []Issue{issue(CodeMismatchIndexHash, SeverityError, 2, 0, "citation [#2] comes from index state a")})
	if got := q.Line(); !strings.Contains(got, " validation=mismatch_index_hash text=") {
		t.Errorf("question line with a failed check: %s", got)
	}
	if got := rows[0].Line(); !strings.Contains(got, ` kind=check trace_id=- version=- code=mismatch_index_hash severity=error text="citation [#2] comes from index state a. Fix: Ask fresh;`) {
		t.Errorf("check line: %s", got)
	}
	for range 10 {
		if err := l.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{AuditFileName, AuditFileName + ".1", AuditFileName + ".2"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("rotation: %v", err)
		}
		if st.Size() > 600 {
			t.Errorf("%s has %d bytes, over the limit", name, st.Size())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, AuditFileName+".3")); err == nil {
		t.Error("rotation kept more files than asked")
	}
	f, _ := os.Open(filepath.Join(dir, AuditFileName))
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "ts=") {
			t.Errorf("broken line after rotation: %q", sc.Text())
		}
	}
}
