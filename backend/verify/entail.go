package verify

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// Entailer scores how strongly each span entails the claim, in [0,1]. It is
// optional: a Verifier without one uses lexical, constraint and semantic
// signals only.
type Entailer interface {
	// Entail returns one score per span, in order.
	Entail(ctx context.Context, claim string, spans []string) ([]float32, error)
	// Name identifies the model in recorded signals and provenance.
	Name() string
}

// Judgement is an entailment model's reading of one (claim, span) pair.
type Judgement struct {
	// Entailment is the probability that the span entails the claim.
	Entailment float32
	// Contradiction is the probability that the span contradicts the
	// claim, when the model tells it (Judge.TellsContradiction).
	Contradiction float32
}

// Judge is an Entailer that may also tell when a span contradicts the
// claim, as a three-label NLI model does; the verifier then records the
// contradiction signal.
type Judge interface {
	Entailer
	// Judge returns one judgement per span, in order.
	Judge(ctx context.Context, claim string, spans []string) ([]Judgement, error)
	// TellsContradiction reports whether judgements carry a
	// contradiction probability.
	TellsContradiction() bool
}

// PairClassifier is a cross-encoder with one or more output labels, as
// rerank.Hugot is: one logit per label (Labels, in logit order) for each
// (first, second) text pair.
type PairClassifier interface {
	Logits(ctx context.Context, pairs [][2]string) ([][]float32, error)
	Labels() []string
	Name() string
}

// CrossEncoder is the entailment model: a cross-encoder exported as a
// sequence classifier, of one of two kinds.
//
//   - An NLI or fact-checking model whose labels name entailment (and
//     neutral, contradiction or not_entailment; FEVER's supports / refutes /
//     not enough info too), e.g. cross-encoder/nli-MiniLM2-L6-H768. It reads
//     (premise, hypothesis) = (span, claim), as it was trained; the softmax
//     of its logits gives the entailment probability and, when it has the
//     label, the contradiction probability.
//   - A one-label model: the sigmoid of its logit is the entailment score,
//     with the claim first and the span second, as a reranker reads (query,
//     passage). Load one trained to score whether a passage supports a
//     statement; a relevance model such as ms-marco measures topic, not
//     support, and is only a weak signal here.
//
// NewCrossEncoder makes one.
type CrossEncoder struct {
	model              PairClassifier
	entail, contradict int // label indexes; contradict is -1 without the label
	nli                bool
}

var _ Judge = (*CrossEncoder)(nil)

// Kinds of NLI label, by normalised name (lower case, letters only).
const (
	labelEntailment    = "entailment"
	labelContradiction = "contradiction"
	labelNeutral       = "neutral"
	labelNotEntailment = "not_entailment"
)

var nliLabelKinds = map[string]string{
	"entailment": labelEntailment, "entail": labelEntailment, "entailed": labelEntailment,
	"supports": labelEntailment, "supported": labelEntailment,
	"contradiction": labelContradiction, "contradict": labelContradiction, "contradicted": labelContradiction,
	"refutes": labelContradiction, "refuted": labelContradiction,
	"neutral": labelNeutral, "notenoughinfo": labelNeutral, "nei": labelNeutral,
	"notentailment": labelNotEntailment, "nonentailment": labelNotEntailment,
}

// NewCrossEncoder reads m's labels and returns it as the entailment model,
// or says why its labels cannot be read as entailment.
func NewCrossEncoder(m PairClassifier) (*CrossEncoder, error) {
	labels := m.Labels()
	c := &CrossEncoder{model: m, contradict: -1}
	if len(labels) == 1 {
		return c, nil
	}
	list := strings.Join(labels, ", ")
	if len(labels) == 0 {
		return nil, fmt.Errorf("the model names no output labels")
	}
	c.entail = -1
	seen := map[string]bool{}
	for i, l := range labels {
		kind, ok := nliLabelKinds[normaliseLabel(l)]
		switch {
		case !ok:
			return nil, fmt.Errorf("its labels (%s, from config.json's id2label) are not entailment labels: %q is none of entailment, neutral, contradiction, not_entailment; use an NLI or fact-checking cross-encoder, or a one-label one", list, l)
		case seen[kind]:
			return nil, fmt.Errorf("its labels (%s, from config.json's id2label) name %s twice", list, kind)
		}
		seen[kind] = true
		switch kind {
		case labelEntailment:
			c.entail = i
		case labelContradiction:
			c.contradict = i
		}
	}
	if c.entail < 0 {
		return nil, fmt.Errorf("its labels (%s, from config.json's id2label) have no entailment label", list)
	}
	c.nli = true
	return c, nil
}

func normaliseLabel(l string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, l)
}

// Judge runs the model on the claim and every span.
func (c *CrossEncoder) Judge(ctx context.Context, claim string, spans []string) ([]Judgement, error) {
	pairs := make([][2]string, len(spans))
	for i, s := range spans {
		pairs[i] = [2]string{claim, s}
		if c.nli {
			pairs[i] = [2]string{s, claim}
		}
	}
	logits, err := c.model.Logits(ctx, pairs)
	if err != nil {
		return nil, err
	}
	out := make([]Judgement, len(logits))
	for i, l := range logits {
		if !c.nli {
			out[i].Entailment = float32(1 / (1 + math.Exp(-float64(l[0]))))
			continue
		}
		p := softmax(l)
		out[i].Entailment = p[c.entail]
		if c.contradict >= 0 {
			out[i].Contradiction = p[c.contradict]
		}
	}
	return out, nil
}

// TellsContradiction reports whether the model has a contradiction label.
func (c *CrossEncoder) TellsContradiction() bool { return c.contradict >= 0 }

// Entail returns the entailment probability of the claim and each span.
func (c *CrossEncoder) Entail(ctx context.Context, claim string, spans []string) ([]float32, error) {
	js, err := c.Judge(ctx, claim, spans)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(js))
	for i, j := range js {
		out[i] = j.Entailment
	}
	return out, nil
}

// Name is the model's name.
func (c *CrossEncoder) Name() string { return c.model.Name() }

// softmax turns logits into probabilities (shifted by the largest, so
// large logits do not overflow).
func softmax(logits []float32) []float32 {
	top := logits[0]
	for _, l := range logits[1:] {
		top = max(top, l)
	}
	out := make([]float32, len(logits))
	var sum float64
	for i, l := range logits {
		e := math.Exp(float64(l - top))
		out[i], sum = float32(e), sum+e
	}
	for i := range out {
		out[i] = float32(float64(out[i]) / sum)
	}
	return out
}

// contradictedAt is the contradiction probability at or above which the
// entailment model refutes a claim (when it is also above the entailment
// probability): where contradiction is the model's most likely reading.
// Not tuned: no real model weights are available where this was written.
const contradictedAt = 0.5

// withEntailment is Combine's entailment step: it mixes the entailment
// probability into score and reports whether the model refutes the claim.
func withEntailment(score float64, s Signals) (float64, bool) {
	if s.Entailment == nil {
		return score, false
	}
	score = (1-entailmentWeight)*score + entailmentWeight*clamp01(*s.Entailment)
	return score, refuted(s)
}

func refuted(s Signals) bool {
	return s.Contradiction != nil && s.Entailment != nil &&
		*s.Contradiction >= contradictedAt && *s.Contradiction > *s.Entailment
}

// refutation is the reason for a claim the entailment model refutes, or "".
func refutation(s Signals) string {
	if !refuted(s) {
		return ""
	}
	return fmt.Sprintf("the entailment model reads the passage as contradicting this (contradiction %.2f)", *s.Contradiction)
}

// entail adds the entailment signal (and, from a Judge that tells
// contradiction, the contradiction signal) to each result's chosen span and
// recombines its score; one model call per claim. (One call per answer,
// batching all its pairs, measured no less CPU on BenchmarkVerifyAnswer's
// 8 claims, whose pairs pad to different lengths, and 2-3 times the wall
// time on a loaded 2-core host.)
func (v *Verifier) entail(ctx context.Context, claim string, results []Result) error {
	if v.Entailer == nil {
		return nil
	}
	var spans []string
	var idx []int
	for i, r := range results {
		if r.Span.Text != "" {
			spans = append(spans, r.Span.Text)
			idx = append(idx, i)
		}
	}
	if len(spans) == 0 {
		return nil
	}
	judged, err := v.judge(ctx, claim, spans)
	if err != nil {
		return fmt.Errorf("entailment model %s: %w", v.Entailer.Name(), err)
	}
	if len(judged) != len(spans) {
		return fmt.Errorf("entailment model %s returned %d scores for %d spans", v.Entailer.Name(), len(judged), len(spans))
	}
	j, ok := v.Entailer.(Judge)
	contradiction := ok && j.TellsContradiction()
	for k, i := range idx {
		r := &results[i]
		r.Signals.Entailment = ptr(round3(float64(judged[k].Entailment)))
		if contradiction {
			r.Signals.Contradiction = ptr(round3(float64(judged[k].Contradiction)))
		}
		score, verdict := Combine(r.Signals)
		r.Score, r.Verdict = round3(score), verdict
		r.Reason = reason(verdict, r.Signals)
	}
	return nil
}

// judge asks a Judge for judgements, another Entailer for entailment
// scores only.
func (v *Verifier) judge(ctx context.Context, claim string, spans []string) ([]Judgement, error) {
	if j, ok := v.Entailer.(Judge); ok {
		return j.Judge(ctx, claim, spans)
	}
	scores, err := v.Entailer.Entail(ctx, claim, spans)
	if err != nil {
		return nil, err
	}
	out := make([]Judgement, len(scores))
	for i, s := range scores {
		out[i].Entailment = s
	}
	return out, nil
}
