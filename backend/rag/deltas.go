package rag

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/footnote-app/footnote/backend/embed"
)

// ΔS ("delta S") is the embedding model's absolute view of relevance, next
// to the word match the score gate reads: ΔS = 1 − cos(question, passage). A raw ΔS
// means little on its own — a model trained on other text, or one with
// random weights, puts every text near every other — so it is judged
// against the library itself:
//
//   - the background is the question's median ΔS to a fixed sample of the
//     library's passages: how far it is from passages in general;
//   - a passage's margin is background − ΔS: how much closer it is than that;
//   - the calibration asks the model, once per library state, whether it
//     tells a passage from an unrelated one: for sampled passages it takes
//     one sentence as a pseudo-question and compares its margin to the rest
//     of its passage (the sentence removed, so no words are simply copied)
//     with its margin to the rest of an unrelated passage. The null margin
//     is the delta_s_gate quantile of the unrelated margins.
//
// A best passage nearer than an unrelated passage usually is (margin >
// null margin) is evidence for the score gate (gate.go): a question whose
// words the library barely holds is answered when the model puts a passage
// near it — but only when the model separates (most own-passage margins beat
// the null margin); a model that cannot tell passages apart leaves ΔS inert
// and says so. ΔS never refuses on its own: a model with random weights
// "separated" at 0.57 on the SQuAD 2.0 extract's 646 paragraphs
// (bench/answerability, minilm-l6-random), and as a gate it refused 10
// answerable questions whose gold paragraph was the first hit.

// RelevanceVectors is what ΔS is computed from.
type RelevanceVectors interface {
	// QuestionVector embeds a question as retrieval does.
	QuestionVector(ctx context.Context, question string) ([]float32, error)
	// PassageVectors returns stored passage vectors by snippet id.
	PassageVectors(ctx context.Context, snippetIDs []string) (map[string][]float32, error)
	// EmbedPassages embeds texts as passages (for the calibration).
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
	// Background returns the library's sample passages (text and vector)
	// and a key that changes when the library does.
	Background(ctx context.Context) (key string, passages []BackgroundPassage, err error)
}

// BackgroundPassage is a sampled passage of the library.
type BackgroundPassage struct {
	Text   string
	Vector []float32
}

// Calibration is how well the embedding model separates, measured on the
// library's own passages.
type Calibration struct {
	Samples int `json:"samples"`
	// NullMargin is the margin an unrelated passage reaches (the quantile
	// of such margins); a passage must beat it to count as near.
	NullMargin float64 `json:"null_margin"`
	// Separation is the share of pseudo-questions whose own passage beats
	// NullMargin; Separates says it is high enough for the gate to act.
	Separation float64 `json:"separation"`
	Separates  bool    `json:"separates"`
}

// Relevance computes ΔS and calibrates it per library state. One
// Relevance serves every question of an engine.
type Relevance struct {
	Vectors RelevanceVectors

	mu    sync.Mutex // guards cache: one Relevance serves concurrent questions
	cache *relevanceCache
}

// relevanceCache keeps the calibration of one library state.
type relevanceCache struct {
	key  string
	bg   [][]float32
	cal  Calibration
	err  error
	done bool
}

// minSeparation is the share of own-passage margins that must beat the
// null margin for the model to count as separating; below it the gate
// would refuse at random. By chance the share is 1 − the null quantile
// (0.05 at the default). The random-weight test models score 0.03–0.12 on
// the sample library and 0.07–0.41 on the evaluation's (bert-tiny, 64
// samples, 16 libraries on each embedding engine), so half is ten times
// chance and clear of them.
const minSeparation = 0.5

// minCalibrationSamples is the smallest library sample that says anything.
const minCalibrationSamples = 12

// calibrationSamples bounds the pseudo-questions embedded per library
// state (about 10 ms each with MiniLM on one core). With 32 the share that
// separates swung by ±0.2 with which passages the sample caught: on the
// evaluation's library the random-weight model scored 0.03–0.50 over 42
// calibrations, and a 0.50 switched the gate on; with 64 it scored
// 0.07–0.41.
const calibrationSamples = 64

// DeltaS is the measurement for one question.
type DeltaS struct {
	// PerPassage is ΔS by snippet id.
	PerPassage map[string]float64
	// Best is the smallest ΔS among the passages, Background the median to
	// the library sample.
	Best, Background float64
	Calibration      Calibration
}

// Margin is how much closer than the background a ΔS is.
func (d DeltaS) Margin(ds float64) float64 { return d.Background - ds }

// Near reports whether a passage at ΔS ds is closer to the question than an
// unrelated passage would be; false when the model does not separate.
func (d DeltaS) Near(ds float64) bool {
	return d.Calibration.Separates && d.Margin(ds) > d.Calibration.NullMargin
}

// Measure computes ΔS of question to each of snippetIDs, its background and
// the library's calibration at nullQuantile (the delta_s_gate setting: the
// quantile of unrelated margins a near passage must beat).
func (r *Relevance) Measure(ctx context.Context, question string, snippetIDs []string, nullQuantile float64) (DeltaS, error) {
	cal, bg, err := r.calibration(ctx, nullQuantile)
	if err != nil {
		return DeltaS{}, err
	}
	q, err := r.Vectors.QuestionVector(ctx, question)
	if err != nil {
		return DeltaS{}, fmt.Errorf("ΔS: embed the question: %w", err)
	}
	vecs, err := r.Vectors.PassageVectors(ctx, snippetIDs)
	if err != nil {
		return DeltaS{}, fmt.Errorf("ΔS: %w", err)
	}
	d := DeltaS{PerPassage: map[string]float64{}, Best: math.Inf(1), Background: medianDeltaS(q, bg), Calibration: cal}
	for _, id := range snippetIDs {
		if v, ok := vecs[id]; ok {
			ds := 1 - embed.Cosine(q, v)
			d.PerPassage[id] = ds
			d.Best = min(d.Best, ds)
		}
	}
	if math.IsInf(d.Best, 1) {
		d.Best = d.Background
	}
	return d, nil
}

// DeltaSGateState says in words what ΔS does for the score gate with this
// library's model at nullQuantile (0: off).
func DeltaSGateState(cal Calibration, nullQuantile float64) string {
	switch {
	case nullQuantile <= 0:
		return "off (delta_s_gate=0)"
	case cal.Samples < minCalibrationSamples:
		return fmt.Sprintf("inert: %d passages are too few to calibrate", cal.Samples)
	case !cal.Separates:
		return fmt.Sprintf("inert: the embedding model does not separate passages from unrelated ones (separation %.2f < %.2f)", cal.Separation, minSeparation)
	}
	return fmt.Sprintf("on: a passage nearer than an unrelated one is evidence for the score gate (margin > %.3f; separation %.2f)", cal.NullMargin, cal.Separation)
}

func (r *Relevance) calibration(ctx context.Context, nullQuantile float64) (Calibration, [][]float32, error) {
	key, passages, err := r.Vectors.Background(ctx)
	if err != nil {
		return Calibration{}, nil, fmt.Errorf("ΔS: sample the library: %w", err)
	}
	if nullQuantile <= 0 {
		nullQuantile = DefaultNullQuantile // ΔS is recorded with the gate off too
	}
	key = fmt.Sprintf("%s q=%g", key, nullQuantile)
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.cache; c != nil && c.done && c.key == key {
		return c.cal, c.bg, c.err
	}
	bg := make([][]float32, len(passages))
	for i, p := range passages {
		bg[i] = p.Vector
	}
	cal, err := r.calibrate(ctx, passages, nullQuantile)
	r.cache = &relevanceCache{key: key, bg: bg, cal: cal, err: err, done: true}
	return cal, bg, err
}

// calibrate measures, on the library's own passages, the margins of
// pseudo-questions (one sentence of a passage) to the rest of their own
// passage and to the rest of an unrelated one.
func (r *Relevance) calibrate(ctx context.Context, passages []BackgroundPassage, nullQuantile float64) (Calibration, error) {
	var questions, rests []string
	for _, p := range passages {
		if len(questions) == calibrationSamples {
			break
		}
		if q, rest := pseudoQuestion(p.Text); q != "" {
			questions, rests = append(questions, q), append(rests, rest)
		}
	}
	cal := Calibration{Samples: len(questions)}
	if len(questions) < minCalibrationSamples {
		return cal, nil
	}
	restVecs, err := r.Vectors.EmbedPassages(ctx, rests)
	if err != nil {
		return Calibration{}, fmt.Errorf("ΔS calibration: %w", err)
	}
	n := len(questions)
	var own, unrelated []float64
	for i, text := range questions {
		q, err := r.Vectors.QuestionVector(ctx, text)
		if err != nil {
			return Calibration{}, fmt.Errorf("ΔS calibration: %w", err)
		}
		// The background of a pseudo-question is taken over the rests too,
		// so its margins compare like with like.
		background := medianDeltaS(q, restVecs)
		other := restVecs[(i+n/2)%n] // far along the hash-ordered sample: unrelated
		own = append(own, background-(1-embed.Cosine(q, restVecs[i])))
		unrelated = append(unrelated, background-(1-embed.Cosine(q, other)))
	}
	cal.NullMargin = quantile(unrelated, nullQuantile)
	beat := 0
	for _, m := range own {
		if m > cal.NullMargin {
			beat++
		}
	}
	cal.Separation = float64(beat) / float64(n)
	cal.Separates = cal.Separation >= minSeparation
	return cal, nil
}

// DefaultNullQuantile is the default of the delta_s_gate setting.
const DefaultNullQuantile = 0.95

// pseudoQuestion splits a passage into its first sentence of 5 to 30
// words, standing in for a question the passage answers, and the rest of
// the passage, which must hold at least as many words again; "" when it has
// no such sentence.
func pseudoQuestion(text string) (question, rest string) {
	for _, s := range strings.FieldsFunc(text, func(r rune) bool { return r == '.' || r == '?' || r == '!' || r == '\n' }) {
		if n := len(strings.Fields(s)); n >= 5 && n <= 30 {
			rest = strings.Replace(text, s, " ", 1)
			if len(strings.Fields(rest)) < n {
				return "", ""
			}
			return strings.TrimSpace(s), rest
		}
	}
	return "", ""
}

// medianDeltaS is the median ΔS of q to the background vectors (1 when
// there are none: nothing to compare with).
func medianDeltaS(q []float32, bg [][]float32) float64 {
	if len(bg) == 0 {
		return 1
	}
	ds := make([]float64, len(bg))
	for i, v := range bg {
		ds[i] = 1 - embed.Cosine(q, v)
	}
	return quantile(ds, 0.5)
}

// quantile returns the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Lambda states of an answer: whether the evidence it cites is the
// question's near evidence (LambdaConvergent), or it cites a passage no
// closer than an unrelated one (LambdaDivergent); LambdaUnknown for a
// refusal, an answer without citations or a model that does not separate.
const (
	LambdaConvergent = "convergent"
	LambdaDivergent  = "divergent"
	LambdaUnknown    = "-"
)

// lambdaOf is the λ state of an answer citing cited, measured as d.
func lambdaOf(d *DeltaS, cited []Citation) string {
	if d == nil || len(cited) == 0 || !d.Calibration.Separates {
		return LambdaUnknown
	}
	for _, c := range cited {
		if c.DeltaS == nil || !d.Near(*c.DeltaS) {
			return LambdaDivergent
		}
	}
	return LambdaConvergent
}
