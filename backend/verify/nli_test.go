package verify_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/verify"
)

// fixedJudge judges every span the same, as a three-label NLI model would.
type fixedJudge struct{ entail, contradict float32 }

func (f fixedJudge) Judge(_ context.Context, _ string, spans []string) ([]verify.Judgement, error) {
	out := make([]verify.Judgement, len(spans))
	for i := range out {
		out[i] = verify.Judgement{Entailment: f.entail, Contradiction: f.contradict}
	}
	return out, nil
}

func (fixedJudge) TellsContradiction() bool { return true }

func (f fixedJudge) Entail(ctx context.Context, claim string, spans []string) ([]float32, error) {
	return fixedEntailer{f.entail}.Entail(ctx, claim, spans)
}

func (fixedJudge) Name() string { return "fixed-judge" }

// fakeClassifier returns fixed logits for every pair and records the pairs.
type fakeClassifier struct {
	labels []string
	logits []float32
	pairs  [][2]string
}

func (f *fakeClassifier) Logits(_ context.Context, pairs [][2]string) ([][]float32, error) {
	f.pairs = append(f.pairs, pairs...)
	out := make([][]float32, len(pairs))
	for i := range out {
		out[i] = slices.Clone(f.logits)
	}
	return out, nil
}

func (f *fakeClassifier) Labels() []string { return f.labels }
func (f *fakeClassifier) Name() string     { return "fake" }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-5 }

// The softmax of (1, 2, 0) gives each label's probability.
var p0, p1, p2 = softmax3(1, 2, 0)

func softmax3(a, b, c float64) (float64, float64, float64) {
	s := math.Exp(a) + math.Exp(b) + math.Exp(c)
	return math.Exp(a) / s, math.Exp(b) / s, math.Exp(c) / s
}

func TestCrossEncoderReadsLabelsFromTheModel(t *testing.T) {
	cases := []struct {
		labels             []string
		entail, contradict float64
	}{
		// The public model's order, and MoritzLaurer's: the same logits
		// mean other labels.
		{[]string{"contradiction", "entailment", "neutral"}, p1, p0},
		{[]string{"entailment", "neutral", "contradiction"}, p0, p2},
		{[]string{"ENTAILMENT", "NEUTRAL", "CONTRADICTION"}, p0, p2},
		// FEVER's fact-checking labels.
		{[]string{"REFUTES", "SUPPORTS", "NOT ENOUGH INFO"}, p1, p0},
	}
	for _, c := range cases {
		m := &fakeClassifier{labels: c.labels, logits: []float32{1, 2, 0}}
		e, err := verify.NewCrossEncoder(m)
		if err != nil {
			t.Fatalf("%v: %v", c.labels, err)
		}
		if !e.TellsContradiction() {
			t.Errorf("%v: a model with a contradiction label does not tell contradiction", c.labels)
		}
		got, err := e.Judge(context.Background(), "the claim", []string{"span one", "span two"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || !near(float64(got[0].Entailment), c.entail) || !near(float64(got[0].Contradiction), c.contradict) {
			t.Errorf("%v: judgement %+v, want entailment %.4f contradiction %.4f", c.labels, got, c.entail, c.contradict)
		}
		// An NLI model reads (premise, hypothesis) = (span, claim).
		if !slices.Equal(m.pairs, [][2]string{{"span one", "the claim"}, {"span two", "the claim"}}) {
			t.Errorf("%v: pairs %q, want (span, claim)", c.labels, m.pairs)
		}
		scores, err := e.Entail(context.Background(), "the claim", []string{"span one"})
		if err != nil || !near(float64(scores[0]), c.entail) {
			t.Errorf("%v: Entail %v, %v", c.labels, scores, err)
		}
	}
}

func TestCrossEncoderWithoutContradiction(t *testing.T) {
	// One label: the sigmoid of its logit, the claim read as the query.
	one := &fakeClassifier{labels: []string{"LABEL_0"}, logits: []float32{2}}
	e, err := verify.NewCrossEncoder(one)
	if err != nil {
		t.Fatal(err)
	}
	if e.TellsContradiction() {
		t.Error("a one-label model claims to tell contradiction")
	}
	got, err := e.Entail(context.Background(), "the claim", []string{"a span"})
	if want := 1 / (1 + math.Exp(-2)); err != nil || !near(float64(got[0]), want) {
		t.Errorf("one label: %v, %v; want sigmoid %.4f", got, err, want)
	}
	if !slices.Equal(one.pairs, [][2]string{{"the claim", "a span"}}) {
		t.Errorf("one label: pairs %q, want (claim, span) as a reranker reads them", one.pairs)
	}

	// Entailment and not_entailment: softmax, no contradiction.
	two := &fakeClassifier{labels: []string{"entailment", "not_entailment"}, logits: []float32{0, 1}}
	e, err = verify.NewCrossEncoder(two)
	if err != nil {
		t.Fatal(err)
	}
	if e.TellsContradiction() {
		t.Error("entailment / not_entailment claims to tell contradiction")
	}
	got, _ = e.Entail(context.Background(), "the claim", []string{"a span"})
	if want := 1 / (1 + math.E); !near(float64(got[0]), want) {
		t.Errorf("two labels: %v, want %.4f", got, want)
	}
}

func TestCrossEncoderRefusesOtherLabels(t *testing.T) {
	for _, c := range []struct {
		labels []string
		want   string
	}{
		{[]string{"LABEL_0", "LABEL_1", "LABEL_2"}, `"LABEL_0" is none of entailment, neutral, contradiction, not_entailment`},
		{[]string{"negative", "neutral", "positive"}, `"negative" is none of`},
		{[]string{"neutral", "contradiction"}, "no entailment label"},
		{[]string{"entailment", "entailed", "neutral"}, "name entailment twice"},
		{nil, "no output labels"},
	} {
		_, err := verify.NewCrossEncoder(&fakeClassifier{labels: c.labels})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("labels %v: %v, want an error saying %q", c.labels, err, c.want)
		}
	}
}

func TestCombineContradiction(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		name    string
		s       verify.Signals
		verdict string
	}{
		{"refuted despite full lexical support", verify.Signals{Lexical: 1, Entailment: f(0.02), Contradiction: f(0.95)}, verify.Unsupported},
		{"contradiction below one half", verify.Signals{Lexical: 1, Entailment: f(0.3), Contradiction: f(0.45)}, verify.Partial},
		{"contradiction no likelier than entailment", verify.Signals{Lexical: 1, Entailment: f(0.5), Contradiction: f(0.5)}, verify.Supported},
		{"a paraphrase the model entails", verify.Signals{Lexical: 0.5, Entailment: f(0.95), Contradiction: f(0.02)}, verify.Supported},
		{"no contradiction label", verify.Signals{Lexical: 1, Entailment: f(0.02)}, verify.Partial},
	}
	for _, c := range cases {
		score, verdict := verify.Combine(c.s)
		if verdict != c.verdict {
			t.Errorf("%s: %s (%.3f), want %s", c.name, verdict, score, c.verdict)
		}
		if verdict == verify.Unsupported && score > 0.2 {
			t.Errorf("%s: a refuted claim scores %.3f", c.name, score)
		}
	}
}

// A supported claim the model reads as contradicted is refuted; one it
// reads as entailed stays supported, and a paraphrase the words only
// partly cover becomes supported.
func TestVerifyWithAJudge(t *testing.T) {
	claim := "Footnote needs about 200 MB of disk space."
	refuted := verifyOne(t, &verify.Verifier{Entailer: fixedJudge{entail: 0.02, contradict: 0.95}}, claim, installPassage)
	if refuted.Verdict != verify.Unsupported || refuted.Score > 0.2 || !strings.Contains(refuted.Reason, "contradicting") ||
		refuted.Signals.Contradiction == nil || *refuted.Signals.Contradiction != 0.95 {
		t.Errorf("refuted: %s %.3f %q %+v", refuted.Verdict, refuted.Score, refuted.Reason, refuted.Signals)
	}
	entailed := verifyOne(t, &verify.Verifier{Entailer: fixedJudge{entail: 0.95, contradict: 0.02}}, claim, installPassage)
	if entailed.Verdict != verify.Supported || entailed.Signals.Contradiction == nil || *entailed.Signals.Contradiction != 0.02 {
		t.Errorf("entailed: %s %+v", entailed.Verdict, entailed.Signals)
	}

	paraphrase := "Your index takes some extra space."
	lexical := verifyOne(t, &verify.Verifier{}, paraphrase, installPassage)
	if lexical.Verdict != verify.Partial {
		t.Fatalf("fixture: %q is %s by words alone (%.3f); the test needs a claim the words only partly cover", paraphrase, lexical.Verdict, lexical.Score)
	}
	lifted := verifyOne(t, &verify.Verifier{Entailer: fixedJudge{entail: 0.95, contradict: 0.02}}, paraphrase, installPassage)
	if lifted.Verdict != verify.Supported {
		t.Errorf("a partly covered paraphrase the model entails: %s %.3f", lifted.Verdict, lifted.Score)
	}
}

// The generated three-label model runs through the real loading path: its
// signals are probabilities, and the label its biases favour (wherever
// id2label puts it) decides the verdict.
func TestVerifyWithTheGeneratedNLIModel(t *testing.T) {
	claim := "Footnote needs about 200 MB of disk space."
	plain := verifyOne(t, &verify.Verifier{Entailer: loadEntailer(t, embedtest.NLIDir(t))}, claim, installPassage)
	e, c := plain.Signals.Entailment, plain.Signals.Contradiction
	if e == nil || c == nil || *e <= 0 || *c <= 0 || *e+*c >= 1 {
		t.Fatalf("entailment %v, contradiction %v: want probabilities leaving room for neutral", e, c)
	}

	for _, tc := range []struct {
		labels   []string
		favoured string
		verdict  string
	}{
		{embedtest.NLILabels, "contradiction", verify.Unsupported},
		{[]string{"entailment", "neutral", "contradiction"}, "contradiction", verify.Unsupported},
		{embedtest.NLILabels, "entailment", verify.Supported},
	} {
		dir := filepath.Join(t.TempDir(), "nli")
		if err := embedtest.WriteNLIModel(dir, embedtest.NLIOptions{Labels: tc.labels, Bias: map[string]float32{tc.favoured: 4}}); err != nil {
			t.Fatal(err)
		}
		r := verifyOne(t, &verify.Verifier{Entailer: loadEntailer(t, dir)}, claim, installPassage)
		if r.Verdict != tc.verdict {
			t.Errorf("labels %v favouring %s: %s (%q), signals %+v", tc.labels, tc.favoured, r.Verdict, r.Reason, r.Signals)
		}
	}
}
