package rag

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
)

// cueStats: a library of 100 passages in which every word below is rare.
var cueStats = fakeTermStats{chunks: 100, df: map[string]int{"committees": 3, "reflect": 4, "balance": 3, "parties": 5,
	"parliament": 8, "conquered": 2, "canary": 1, "islands": 3, "century": 9, "14th": 2, "15th": 2}}

func passage(id, text string) search.Hit {
	h := hit(id, 1, 20)
	h.Title, h.Text = "Article", text
	return h
}

// A question that asks what is not so needs a passage that says something
// is not: against passages that only state what is, it is refused with the
// negation named; a passage holding the question's words that negates ("do
// not", "instead of", "disagreed") lets it through, one about something
// else does not.
func TestNegatedQuestionNeedsAPassageThatNegates(t *testing.T) {
	a := &Answerability{Stats: cueStats}
	q := "Which committees do not reflect the balance of parties across Parliament?"
	states := passage("states", "Committees reflect the balance of parties across Parliament, and their conveners are chosen by it.")
	ev, err := a.Words(context.Background(), q, []search.Hit{states})
	if err != nil {
		t.Fatal(err)
	}
	r := ev.Cues.refusal()
	if ev.Cues.Negation != "not" || r == nil || r.Signal != SignalNegation ||
		r.Why != "the question asks what is not so (“not”), but no passage that holds its words says that anything is not" {
		t.Fatalf("cues %+v, refusal %+v", ev.Cues, r)
	}
	for _, text := range []string{
		"Most committees reflect the balance of parties across Parliament; the Conveners Group does not.",
		"The Conveners Group is chosen by lot instead of reflecting the balance of parties across Parliament's committees.",
	} {
		if ev, _ := a.Words(context.Background(), q, []search.Hit{states, passage("negates", text)}); ev.Cues.refusal() != nil {
			t.Errorf("refused beside %q: %+v", text, ev.Cues)
		}
	}
	// A negation in a passage holding little of the question says nothing of it.
	aside := passage("aside", "Parliament does not sit in August.")
	if ev, _ := a.Words(context.Background(), q, []search.Hit{states, aside}); ev.Cues.Negation != "not" {
		t.Errorf("a passage about something else negating let it through: %+v", ev.Cues)
	}
	// Contractions negate as "not" does, in the question and in a passage.
	if ev, _ := a.Words(context.Background(), "Which committees don't reflect the balance of parties?", []search.Hit{states}); ev.Cues.Negation != "don’t" {
		t.Errorf("don't: %+v", ev.Cues)
	}
	if ev, _ := a.Words(context.Background(), q, []search.Hit{passage("n", "Committees reflect the balance of parties across Parliament, which the Presiding Officer's panel doesn't.")}); ev.Cues.refusal() != nil {
		t.Errorf("doesn't in the passage: %+v", ev.Cues)
	}
}

// A question about a year or rank no passage states, while the best
// passage states another of its kind, is about something else: "the 14th
// century" against a passage of the 15th. A passage stating no value of
// that kind, or any passage stating the asked one, lets it through.
func TestQuestionValueNoPassageStates(t *testing.T) {
	a := &Answerability{Stats: cueStats}
	q := "Who conquered the Canary Islands in the 14th century?"
	other := passage("other", "Jean de Béthencourt conquered the Canary Islands in the 15th century for Castile, from 1402.")
	ev, err := a.Words(context.Background(), q, []search.Hit{other})
	if err != nil {
		t.Fatal(err)
	}
	r := ev.Cues.refusal()
	if !reflect.DeepEqual(ev.Cues.ValuesAsked, []string{"14th"}) || !reflect.DeepEqual(ev.Cues.ValuesStated, []string{"15th"}) || r == nil ||
		r.Signal != SignalValues || r.Why != "the question asks about “14th”, which no passage found states; the best passage speaks of “15th” instead" {
		t.Fatalf("cues %+v, refusal %+v", ev.Cues, r)
	}
	for _, hits := range [][]search.Hit{
		{passage("none", "Jean de Béthencourt conquered the Canary Islands for Castile.")},
		{other, passage("asked", "Genoese sailors reached the Canary Islands in the 14th century.")},
		// Stated in words: a rank spelled out is the same rank.
		{passage("spelled", "Genoese sailors reached the Canary Islands in the fourteenth century; Castile took them in the 15th.")},
	} {
		if ev, _ := a.Words(context.Background(), q, hits); ev.Cues.refusal() != nil {
			t.Errorf("refused against %q: %+v", hits[len(hits)-1].Text, ev.Cues)
		}
	}
	// Counts are not pinned: passages state them by the dozen.
	var stated []string
	for _, v := range statedValues("Of the 7 islands, he took 4 in 1402, the 2nd year of the war.") {
		stated = append(stated, v.Text)
	}
	if !reflect.DeepEqual(stated, []string{"1402", "2nd"}) {
		t.Errorf("stated values %v, want the year and the rank", stated)
	}
	// A year is a year whatever else the passage dates.
	if ev, _ := a.Words(context.Background(), "Who conquered the Canary Islands in 1402?", []search.Hit{other}); ev.Cues.refusal() != nil {
		t.Errorf("1402 stated: %+v", ev.Cues)
	}
}

// The cues refuse through the answerability gate, before the model is
// called, with the signal on the answer and the audit line; with the
// answerability gate off (min_rare_term_share 0) they refuse nothing.
func TestCuesRefuseThroughTheAnswerabilityGate(t *testing.T) {
	for _, share := range []float64{0.5, 0} {
		hits := []search.Hit{passage("a", "Committees reflect the balance of parties across Parliament.")}
		model := &scriptedLLM{tokens: []string{"Committees reflect the balance of parties [#1]."}}
		p := newPipeline(hits, model, &memStore{})
		p.Answerability = &Answerability{Stats: cueStats, MinRareShare: share}
		var audit []string
		p.Audit = func(rows []provenance.TraceRow) {
			for _, r := range rows {
				audit = append(audit, r.Line())
			}
		}
		ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "Which committees do not reflect the balance of parties?"}, &recordingSink{})
		if err != nil {
			t.Fatal(err)
		}
		if share == 0 {
			if ans.RefusalReason != nil || model.calls != 1 {
				t.Errorf("gate off: refused %v, model calls %d", ans.RefusalReason, model.calls)
			}
			continue
		}
		by := ans.Retrieval.RefusedBy
		if ans.RefusalReason == nil || *ans.RefusalReason != RefusalUnanswerable || by == nil || by.Signal != SignalNegation || model.calls != 0 || len(ans.Nearest) != 1 {
			t.Fatalf("reason %v, refused by %+v, model calls %d", ans.RefusalReason, by, model.calls)
		}
		if s := by.Sentence(); !strings.HasPrefix(s, "The question asks what is not so") || strings.Contains(s, "needed") {
			t.Errorf("sentence: %s", s)
		}
		if len(audit) == 0 || !strings.Contains(audit[0], " refused_by=negation:") {
			t.Errorf("audit line without refused_by=negation: %v", audit)
		}
	}
}

// "Which <kind>" asks for a kind a passage may name without its word: a
// person or organisation by name ("Which actress …" answered by "Léa
// Seydoux"), a year or month by a date; "Which two …" and "Which is older
// …" ask for no kind, and a name before the kind qualifies it.
func TestWhichFocusOnKindsNamedWithoutTheirWord(t *testing.T) {
	rare := []string{"actress", "two", "courts", "older", "louisiana", "venue", "year", "release"}
	for q, want := range map[string]string{
		"Which actress played Madeleine Swann?":                   "actress",
		"Which two courts apply European Union law?":              "",
		"Which is older the British Empire or the Ethiopian one?": "",
		"Which Louisiana venue was considered?":                   "venue",
		"Which year was the case decided?":                        "year",
		"Which release of Footnote first supported EPUB books?":   "release",
	} {
		if got := askedFor(q, rare); got != want {
			t.Errorf("askedFor(%q) = %q, want %q", q, got, want)
		}
	}
	a := &Answerability{Stats: fakeTermStats{chunks: 100, df: map[string]int{"actress": 2, "played": 3, "madeleine": 2, "swann": 2}}}
	cast := passage("cast", "Madeleine Swann is played by Léa Seydoux.")
	if ev, _ := a.Words(context.Background(), "Which actress played Madeleine Swann?", []search.Hit{cast}); ev.FocusMissed || ev.RareShare != 0.75+usedElsewhereWeight/4 {
		t.Errorf("a passage naming the actress: focus missed %v, share %v", ev.FocusMissed, ev.RareShare)
	}
	unnamed := passage("unnamed", "Madeleine Swann was played in the film by a newcomer.")
	if ev, _ := a.Words(context.Background(), "Which actress played Madeleine Swann?", []search.Hit{unnamed}); !ev.FocusMissed {
		t.Errorf("a passage naming no one counted as naming the actress: %+v", ev)
	}
}

// Word forms fold alike in the answerability stems: "empties" holds "empty".
func TestWordStemFoldsIesAndY(t *testing.T) {
	for _, pair := range [][2]string{{"empties", "empty"}, {"emptied", "empty"}, {"studies", "study"}, {"named", "name"}} {
		if wordStem(pair[0]) != wordStem(pair[1]) {
			t.Errorf("wordStem(%q) = %q, wordStem(%q) = %q", pair[0], wordStem(pair[0]), pair[1], wordStem(pair[1]))
		}
	}
}
