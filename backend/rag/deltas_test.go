package rag

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/search"
)

// fakeVectors is RelevanceVectors over a library of passages with a model
// chosen by the test: wordsModel separates texts by the words they share,
// noiseModel gives every text an unrelated random vector.
type fakeVectors struct {
	passages map[string]string // snippet id → text
	model    func(text string) []float32
}

func (f fakeVectors) QuestionVector(_ context.Context, q string) ([]float32, error) {
	return f.model(q), nil
}

func (f fakeVectors) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f.model(t)
	}
	return out, nil
}

func (f fakeVectors) PassageVectors(_ context.Context, ids []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	for _, id := range ids {
		if t, ok := f.passages[id]; ok {
			out[id] = f.model(t)
		}
	}
	return out, nil
}

func (f fakeVectors) Background(context.Context) (string, []BackgroundPassage, error) {
	var out []BackgroundPassage
	for i := range len(f.passages) {
		t := f.passages[fmt.Sprintf("p%02d", i)]
		out = append(out, BackgroundPassage{Text: t, Vector: f.model(t)})
	}
	return fmt.Sprint(len(out)), out, nil
}

// wordsModel hashes a text's longer words into 256 dimensions: texts about
// the same thing are near, others far — a model that separates.
func wordsModel(text string) []float32 {
	v := make([]float32, 256)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, ".,?!")
		if len(w) < 4 {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%256]++
	}
	return normalise(v)
}

// noiseModel gives each text its own random direction: a model that
// separates nothing.
func noiseModel(text string) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	v := make([]float32, 64)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return normalise(v)
}

func normalise(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// topicLibrary is 24 passages, each about one made-up topic that recurs in
// each of its sentences, as paragraphs of real documents do.
func topicLibrary() map[string]string {
	lib := map[string]string{}
	topics := []string{"boiler", "garden", "invoice", "printer", "bicycle", "passport", "kitchen", "library",
		"harbour", "violin", "glacier", "bakery", "rocket", "tractor", "lantern", "compass",
		"orchard", "theatre", "satellite", "meadow", "lighthouse", "volcano", "carpenter", "telescope"}
	for i, t := range topics {
		lib[fmt.Sprintf("p%02d", i)] = fmt.Sprintf("The %[1]s needs regular attention every single spring season. "+
			"Everyone who owns a %[1]s keeps careful notes about that %[1]s. "+
			"A neglected %[1]s causes trouble later, says every %[1]s expert.", t)
	}
	return lib
}

func TestDeltaSNearOnlyWhenTheModelSeparates(t *testing.T) {
	ctx := context.Background()
	lib := topicLibrary()
	ids := []string{"p00", "p01", "p02"}
	for _, tc := range []struct {
		name      string
		model     func(string) []float32
		separates bool
	}{{"separating model", wordsModel, true}, {"noise model", noiseModel, false}} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Relevance{Vectors: fakeVectors{passages: lib, model: tc.model}}
			near, err := r.Measure(ctx, "How often does the boiler need attention?", ids, DefaultNullQuantile)
			if err != nil {
				t.Fatal(err)
			}
			cal := near.Calibration
			if cal.Samples < minCalibrationSamples || cal.Separates != tc.separates {
				t.Fatalf("calibration %+v, want separates=%v", cal, tc.separates)
			}
			far, err := r.Measure(ctx, "Which airline flies the shortest route across the desert?", ids, DefaultNullQuantile)
			if err != nil {
				t.Fatal(err)
			}
			if near.PerPassage["p00"] >= near.PerPassage["p01"] && tc.separates {
				t.Errorf("ΔS to the boiler passage %.3f is not below an unrelated one %.3f", near.PerPassage["p00"], near.PerPassage["p01"])
			}
			if near.Near(near.Best) != tc.separates {
				t.Errorf("the boiler passage near=%v, want %v", near.Near(near.Best), tc.separates)
			}
			if far.Near(far.Best) {
				t.Errorf("a passage is near the unrelated question (best ΔS %.3f, background %.3f, null margin %.3f)",
					far.Best, far.Background, cal.NullMargin)
			}
			state := DeltaSGateState(cal, DefaultNullQuantile)
			if tc.separates != strings.HasPrefix(state, "on:") {
				t.Errorf("gate state %q", state)
			}
			if DeltaSGateState(cal, 0) != "off (delta_s_gate=0)" {
				t.Errorf("gate state with the setting 0: %q", DeltaSGateState(cal, 0))
			}
		})
	}
}

func TestLambdaOfCitedEvidence(t *testing.T) {
	ctx := context.Background()
	r := &Relevance{Vectors: fakeVectors{passages: topicLibrary(), model: wordsModel}}
	d, err := r.Measure(ctx, "How often does the boiler need attention?", []string{"p00", "p05"}, DefaultNullQuantile)
	if err != nil {
		t.Fatal(err)
	}
	cite := func(id string) Citation {
		ds := d.PerPassage[id]
		return Citation{SnippetID: id, DeltaS: &ds}
	}
	if got := lambdaOf(&d, []Citation{cite("p00")}); got != LambdaConvergent {
		t.Errorf("citing the boiler passage: λ %s", got)
	}
	if got := lambdaOf(&d, []Citation{cite("p00"), cite("p05")}); got != LambdaDivergent {
		t.Errorf("citing the passport passage too: λ %s", got)
	}
	if got := lambdaOf(&d, nil); got != LambdaUnknown {
		t.Errorf("no citations: λ %s", got)
	}
	inert := d
	inert.Calibration.Separates = false
	if got := lambdaOf(&inert, []Citation{cite("p00")}); got != LambdaUnknown {
		t.Errorf("a model that does not separate: λ %s", got)
	}
}

func TestCalibrationIsKeptPerLibraryState(t *testing.T) {
	calibrations := 0
	lib := topicLibrary()
	fv := &countingVectors{fakeVectors{passages: lib, model: wordsModel}, &calibrations}
	r := &Relevance{Vectors: fv}
	measure := func() {
		if _, err := r.Measure(context.Background(), "boiler attention", []string{"p00"}, DefaultNullQuantile); err != nil {
			t.Fatal(err)
		}
	}
	measure()
	measure()
	if calibrations != 1 {
		t.Fatalf("%d calibrations for two questions on one library", calibrations)
	}
	lib["p24"] = "A new passage about the weather vane and how the weather vane turns."
	measure()
	if calibrations != 2 {
		t.Errorf("%d calibrations after the library changed, want 2", calibrations)
	}
}

// countingVectors counts calibrations (the one EmbedPassages call each).
type countingVectors struct {
	fakeVectors
	n *int
}

func (c *countingVectors) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	*c.n++
	return c.fakeVectors.EmbedPassages(ctx, texts)
}

// synonymModel is wordsModel that reads "heater" as "boiler" and
// "servicing" as "attention": a model that knows what the words mean.
func synonymModel(text string) []float32 {
	r := strings.NewReplacer("heater", "boiler", "servicing", "attention")
	return wordsModel(r.Replace(strings.ToLower(text)))
}

// TestDeltaSIsEvidenceForTheScoreGate: a question asked in other words than
// the library's holds little of any passage, so the score gate alone
// refuses it; a model that separates and puts the boiler passage near it
// lets it through, saying so. A model that separates nothing, or the
// setting 0, leaves the refusal; and ΔS never refuses on its own.
func TestDeltaSIsEvidenceForTheScoreGate(t *testing.T) {
	lib := topicLibrary()
	stats := fakeTermStats{chunks: 100, df: map[string]int{"often": 30, "heater": 0, "need": 40, "servicing": 0, "boiler": 2, "attention": 20}}
	hits := func() []search.Hit {
		var out []search.Hit
		for _, id := range []string{"p00", "p01", "p02"} {
			h := hit(id, 0.9, 20)
			h.Text = lib[id]
			out = append(out, h)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		model    func(string) []float32
		gate     float64
		q        string
		answered bool
	}{
		{"separating model, other words", synonymModel, DefaultNullQuantile, "How often does the heater need servicing?", true},
		{"separating model, delta_s_gate 0", synonymModel, 0, "How often does the heater need servicing?", false},
		{"noise model, other words", noiseModel, DefaultNullQuantile, "How often does the heater need servicing?", false},
		{"noise model, the library's words", noiseModel, DefaultNullQuantile, "How often does the boiler need attention?", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &scriptedLLM{tokens: []string{"The boiler needs regular attention every single spring season [#1]."}}
			p := newPipeline(hits(), model, &memStore{})
			p.WordMatchGate = 0.5
			p.Answerability = &Answerability{Stats: stats}
			p.Relevance, p.DeltaSGate = &Relevance{Vectors: fakeVectors{passages: lib, model: tc.model}}, tc.gate
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: tc.q}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if answered := ans.RefusalReason == nil; answered != tc.answered {
				t.Fatalf("answered=%v (reason %v, refused by %+v, word match %v, ΔS %q), want %v", answered, ans.RefusalReason,
					ans.Retrieval.RefusedBy, *ans.Retrieval.WordMatch, ans.Retrieval.DeltaSGate, tc.answered)
			}
			if *ans.Retrieval.WordMatch < 0.5 && tc.answered && !strings.HasPrefix(ans.Retrieval.DeltaSGate, "evidence: ") {
				t.Errorf("passed on ΔS without saying so: %q", ans.Retrieval.DeltaSGate)
			}
			if !tc.answered && (ans.Retrieval.RefusedBy == nil || ans.Retrieval.RefusedBy.Signal != SignalWordMatch) {
				t.Errorf("refused by %+v, want the word match", ans.Retrieval.RefusedBy)
			}
		})
	}
}
