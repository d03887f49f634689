package verify

import (
	"fmt"
	"strings"
	"testing"
)

func sentenceWords(seed, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%d ", (seed*7919+i*31)%5000)
	}
	return b.String()
}

func TestAnswerPrintsFindLongRunsOnly(t *testing.T) {
	quoted := sentenceWords(1, 30)
	own := sentenceWords(2, 30)
	p := NewAnswerPrints([]StoredAnswer{
		{ID: "a1", Text: quoted + " [#1]. " + own + " [#2].", Passages: []string{"Intro. " + quoted + " More."}},
		{ID: "short", Text: "I don't know based on the provided documents."},
	})
	if p.Len() != 1 {
		t.Fatalf("answers held: %d, want 1 (the refusal is too short)", p.Len())
	}
	if id, words, ok := p.Reproduces("Pasted: " + strings.ToUpper(own) + " end"); !ok || id != "a1" || words != 30 {
		t.Errorf("pasted answer: %q %d %v", id, words, ok)
	}
	if _, _, ok := p.Reproduces("Doc. " + quoted); ok {
		t.Error("the passage the answer quoted counts as a copy of the answer")
	}
	if _, _, ok := p.Reproduces(sentenceWords(2, MinReuseWords-1)); ok {
		t.Error("a run shorter than MinReuseWords counts")
	}
	if _, _, ok := p.Reproduces(sentenceWords(2, MinReuseWords)); !ok {
		t.Error("a run of MinReuseWords words is missed")
	}
	var nilPrints *AnswerPrints
	if _, _, ok := nilPrints.Reproduces(own); ok {
		t.Error("no answers: found a copy")
	}
}

// reuseAnswersBench is the engine's bound (reuseAnswers): 500 answers of
// about 150 words, each with 8 passages of about 120 words.
func benchAnswers() []StoredAnswer {
	out := make([]StoredAnswer, 500)
	for i := range out {
		ps := make([]string, 8)
		for k := range ps {
			ps[k] = sentenceWords(i*100+k, 120)
		}
		out[i] = StoredAnswer{ID: fmt.Sprint("ans", i), Text: sentenceWords(i*100+50, 150), Passages: ps}
	}
	return out
}

func BenchmarkAnswerPrintsBuild500(b *testing.B) {
	answers := benchAnswers()
	b.ReportAllocs()
	for b.Loop() {
		NewAnswerPrints(answers)
	}
}

// A 100 KB document (about 16,000 words) checked against 500 answers.
func BenchmarkAnswerPrintsReproduces100KB(b *testing.B) {
	p := NewAnswerPrints(benchAnswers())
	doc := strings.Repeat(sentenceWords(999999, 400)+". ", 40)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		p.Reproduces(doc)
	}
}

func BenchmarkDetect100KB(b *testing.B) {
	d := NewDetector("Use only facts stated in the evidence passages and never anything else at all.")
	doc := strings.Repeat("# Section\n\nThe upload limit is 20 MB per file. Larger uploads are refused by the server.\n\n", 1200)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		d.Detect(doc)
	}
}
