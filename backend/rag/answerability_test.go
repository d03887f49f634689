package rag

import (
	"context"
	"testing"

	"github.com/footnote-app/footnote/backend/search"
)

// fakeTermStats serves document frequencies from a table over chunks chunks.
type fakeTermStats struct {
	df     map[string]int
	chunks int
}

func (f fakeTermStats) TermDocFreq(_ context.Context, w string, _ bool) (int, error) {
	return f.df[w], nil
}
func (f fakeTermStats) Counts(context.Context) (int, int, error) { return 1, f.chunks, nil }

// TestAnswerabilityRefusesQuestionWhosRareWordsNoPassageHolds: the score
// gate passes both questions (the best hit scores 0.9); only the one whose
// rare words ("licence", "cost") no packed passage holds is refused before
// the model is called, with the refusal sentence and reason unanswerable.
func TestAnswerabilityRefusesQuestionWhosRareWordsNoPassageHolds(t *testing.T) {
	stats := fakeTermStats{chunks: 100, df: map[string]int{"footnote": 90, "install": 3, "linux": 2, "licence": 0, "cost": 0}}
	for _, tc := range []struct {
		q       string
		refused bool
	}{
		{"How do I install Footnote on Linux?", false},
		{"How much does a Footnote licence cost?", true},
	} {
		hits := []search.Hit{hit("a", 0.9, 20), hit("b", 0.8, 20)}
		hits[0].Text = "To install Footnote on Linux, run the AppImage [#1]."
		model := &scriptedLLM{tokens: []string{"To install Footnote on Linux, run the AppImage [#1]."}}
		p := newPipeline(hits, model, &memStore{})
		p.Answerability = &Answerability{Stats: stats, MinRareShare: 0.5}
		ans, err := p.Ask(context.Background(), Request{ID: "r", Question: tc.q}, &recordingSink{})
		if err != nil {
			t.Fatal(err)
		}
		refused := ans.RefusalReason != nil && *ans.RefusalReason == RefusalUnanswerable
		if s := ans.Retrieval.RareTermShare; s == nil || (*s < 0.5) != tc.refused || len(ans.Retrieval.RareTerms) == 0 {
			t.Errorf("%q: recorded rare-term share %v of %v", tc.q, s, ans.Retrieval.RareTerms)
		}
		if refused != tc.refused || (refused && (model.calls != 0 || ans.Answer != RefusalSentence)) {
			t.Errorf("%q: reason %v, model calls %d, answer %q; want refused=%v", tc.q, ans.RefusalReason, model.calls, ans.Answer, tc.refused)
		}
	}
}

func TestRareTermShare(t *testing.T) {
	a := &Answerability{Stats: fakeTermStats{chunks: 100, df: map[string]int{"footnote": 90, "named": 2, "sqlite": 3}}}
	h := hit("a", 1, 10)
	h.Text = "The index is a single SQLite file named footnote.db."
	share, rare, err := a.RareTermShare(context.Background(), "What is the name of the SQLite file?", []search.Hit{h})
	if err != nil {
		t.Fatal(err)
	}
	// rare: name, sqlite, file (df 0); "named" holds "name" by stem.
	if share != 1 || len(rare) != 3 {
		t.Errorf("share %v rare %v", share, rare)
	}
	small := &Answerability{Stats: fakeTermStats{chunks: 5}}
	if share, _, _ := small.RareTermShare(context.Background(), "licence cost", nil); share != 1 {
		t.Errorf("a five-chunk index must not refuse on term statistics: share %v", share)
	}
}

// A passage that shares most of a question's rare words but never names
// what a "which" question asks for cannot answer it: the format list says
// EPUB books are read, not which release first read them.
func TestRareTermShareNeedsWhatWhichAsksFor(t *testing.T) {
	a := &Answerability{Stats: fakeTermStats{chunks: 100, df: map[string]int{"footnote": 90, "release": 2, "epub": 1, "books": 2, "supported": 3}}}
	formats := hit("formats", 1, 10)
	formats.Text = "Supported file types: Footnote reads Markdown, PDF and EPUB books."
	q := "Which release of Footnote first supported EPUB books?"
	share, rare, err := a.RareTermShare(context.Background(), q, []search.Hit{formats})
	if err != nil {
		t.Fatal(err)
	}
	if share != 0 {
		t.Errorf("share %v for a passage without %q (rare %v), want 0", share, "release", rare)
	}
	notes := hit("notes", 2, 10)
	notes.Text = "EPUB books were first supported by Footnote in release 0.4."
	if share, _, _ := a.RareTermShare(context.Background(), q, []search.Hit{formats, notes}); share != 1 {
		t.Errorf("share %v with a passage naming the release, want 1", share)
	}
	// "what" is as often followed by a verb, so it sets no focus.
	if got := askedFor("What happens to the release notes?", []string{"happens", "release"}); got != "" {
		t.Errorf("askedFor(what …) = %q, want none", got)
	}
}
