package rag

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/provenance"
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

func idf(df, n int) float64 { return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5)) }

// TestWordsWeighsKeyWordsByRarity: the word match is the idf-weighted share
// of the question's key words the best passage holds, word forms folded
// ("named" holds "name"); rare words are those in at most a tenth of the
// passages.
func TestWordsWeighsKeyWordsByRarity(t *testing.T) {
	a := &Answerability{Stats: fakeTermStats{chunks: 100, df: map[string]int{"name": 40, "sqlite": 3, "file": 8, "footnote": 90}}}
	other := hit("other", 1, 10)
	other.Text = "Footnote keeps settings in a file."
	index := hit("index", 0.9, 10)
	index.Text = "The index is a single SQLite file named footnote.db."
	ev, err := a.Words(context.Background(), "What is the name of the SQLite file?", []search.Hit{other, index})
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Judged || !reflect.DeepEqual(ev.KeyWords, []string{"name", "sqlite", "file"}) || !reflect.DeepEqual(ev.Rare, []string{"sqlite", "file"}) {
		t.Fatalf("key words %v, rare %v (judged %v)", ev.KeyWords, ev.Rare, ev.Judged)
	}
	if ev.Best != 1 || ev.Match != 1 || ev.RareShare != 1 || len(ev.Matched) != 3 {
		t.Errorf("best %d match %v rare share %v matched %v: want the second passage holding all three", ev.Best, ev.Match, ev.RareShare, ev.Matched)
	}
	// Without the SQLite passage, the best holds "file" only; "sqlite",
	// which the library uses elsewhere, counts a quarter.
	ev, _ = a.Words(context.Background(), "What is the name of the SQLite file?", []search.Hit{other})
	want := idf(8, 100) / (idf(40, 100) + idf(3, 100) + idf(8, 100))
	if math.Abs(ev.Match-want) > 1e-12 || ev.RareShare != (1+usedElsewhereWeight)/2 || !reflect.DeepEqual(ev.Matched, []string{"file"}) {
		t.Errorf("match %v (want %v), rare share %v, matched %v", ev.Match, want, ev.RareShare, ev.Matched)
	}
	if why := ev.whyMatch(); why != "the best passage matches only 1 of the 3 key words of the question (missing: “name”, “sqlite”)" {
		t.Errorf("why: %s", why)
	}
	// In five passages every word is rare: the word match is judged, the
	// rare words are not.
	small := &Answerability{Stats: fakeTermStats{chunks: 5}}
	if ev, _ := small.Words(context.Background(), "licence cost", []search.Hit{other}); !ev.Judged || ev.Match != 0 || len(ev.Rare) != 0 || ev.RareShare != 1 {
		t.Errorf("a five-chunk index: %+v", ev)
	}
}

// Korean words are matched by their stem without the particle, as the
// keyword index queries them, and interrogatives are not key words;
// Chinese and Japanese by character bigrams.
func TestWordsOfKoreanAndChineseQuestions(t *testing.T) {
	a := &Answerability{Stats: fakeTermStats{chunks: 100}}
	p := hit("ko", 1, 10)
	p.Text = "임종석은 1989년 전대협 의장으로 활동했다. 東京大学に行きました。"
	ev, err := a.Words(context.Background(), "임종석이 의장이 된 해는 언제인가?", []search.Hit{p})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ev.KeyWords, []string{"임종석", "의장", "해는"}) || !reflect.DeepEqual(ev.Matched, []string{"임종석", "의장"}) {
		t.Errorf("key words %v, matched %v", ev.KeyWords, ev.Matched)
	}
	ev, _ = a.Words(context.Background(), "東京大学", []search.Hit{p})
	if !reflect.DeepEqual(ev.KeyWords, []string{"東京", "京大", "大学"}) || ev.Match != 1 {
		t.Errorf("key words %v, match %v", ev.KeyWords, ev.Match)
	}
}

// TestGatesRecordWhatRefused: the score gate refuses a question the best
// passage holds little of (reason score_gate), the answerability gate one
// whose common words match but not its rare ones (unanswerable); neither
// calls the model, and each records its signal, value, threshold and why
// on the answer and its audit line, and lists the nearest passages.
func TestGatesRecordWhatRefused(t *testing.T) {
	stats := fakeTermStats{chunks: 100, df: map[string]int{"footnote": 90, "install": 30, "linux": 20, "licence": 2, "cost": 4}}
	for _, tc := range []struct {
		q, reason, signal string
		value             float64
		why               string
	}{
		{"How do I install Footnote on Linux?", "", "", 0, ""},
		{"How much does a Footnote licence cost?", RefusalScoreGate, SignalWordMatch,
			idf(90, 100) / (idf(90, 100) + idf(2, 100) + idf(4, 100)),
			"the best passage matches only 1 of the 3 key words of the question (missing: “licence”, “cost”)"},
		// install (30) and linux (20) are common; android, which the library
		// never uses, is what the question is about.
		{"How do I install Footnote on Linux for Android?", RefusalUnanswerable, SignalRareWords, 0,
			"no passage holds any of the question's distinctive words (“android”); the library never uses “android”"},
	} {
		hits := []search.Hit{hit("a", 0.9, 20), hit("b", 0.8, 20)}
		hits[0].Text = "To install Footnote on Linux, run the AppImage."
		model := &scriptedLLM{tokens: []string{"To install Footnote on Linux, run the AppImage [#1]."}}
		p := newPipeline(hits, model, &memStore{})
		p.Answerability = &Answerability{Stats: stats, MinRareShare: 0.5}
		var audit []string
		p.Audit = func(rows []provenance.TraceRow) {
			for _, r := range rows {
				audit = append(audit, r.Line())
			}
		}
		ans, err := p.Ask(context.Background(), Request{ID: "r", Question: tc.q}, &recordingSink{})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Retrieval.WordMatch == nil || len(ans.Retrieval.KeyWords) == 0 || ans.Retrieval.RareTermShare == nil {
			t.Errorf("%q: the word signals are not recorded: %+v", tc.q, ans.Retrieval)
		}
		if tc.reason == "" {
			if ans.RefusalReason != nil || ans.Retrieval.RefusedBy != nil || model.calls != 1 {
				t.Errorf("%q: refused (%v, %+v), model calls %d", tc.q, ans.RefusalReason, ans.Retrieval.RefusedBy, model.calls)
			}
			continue
		}
		by := ans.Retrieval.RefusedBy
		if ans.RefusalReason == nil || *ans.RefusalReason != tc.reason || by == nil || by.Signal != tc.signal ||
			math.Abs(by.Value-tc.value) > 1e-12 || by.Why != tc.why || model.calls != 0 || ans.Answer != RefusalSentence || len(ans.Nearest) != 2 {
			t.Errorf("%q: reason %v, refused by %+v, model calls %d, nearest %d; want %s by %s %.4f: %s",
				tc.q, ans.RefusalReason, by, model.calls, len(ans.Nearest), tc.reason, tc.signal, tc.value, tc.why)
			continue
		}
		if by.Threshold != map[string]float64{SignalWordMatch: 0.3, SignalRareWords: 0.5}[tc.signal] {
			t.Errorf("%q: threshold %v", tc.q, by.Threshold)
		}
		if len(audit) == 0 || !strings.Contains(audit[0], " refused_by="+by.Short()+" ") {
			t.Errorf("%q: audit line without refused_by=%s: %v", tc.q, by.Short(), audit)
		}
	}
}

// A passage that shares most of a question's rare words but never names
// what a "which" question asks for cannot answer it: the format list says
// EPUB books are read, not which release first read them; the refusal says
// so rather than counting words.
func TestWordsNeedWhatWhichAsksFor(t *testing.T) {
	a := &Answerability{Stats: fakeTermStats{chunks: 100, df: map[string]int{"footnote": 90, "first": 30, "release": 2, "epub": 1, "books": 2, "supported": 3}}}
	formats := hit("formats", 1, 10)
	formats.Text = "Supported file types: Footnote reads Markdown, PDF and EPUB books."
	q := "Which release of Footnote first supported EPUB books?"
	ev, err := a.Words(context.Background(), q, []search.Hit{formats})
	if err != nil {
		t.Fatal(err)
	}
	// The passage counts as holding none: only the quarters of the rare
	// words the library uses elsewhere (all four here).
	if ev.RareShare != usedElsewhereWeight || !ev.FocusMissed || ev.whyRare() != "no passage that holds the question's distinctive words names “release”, what the question asks for" {
		t.Errorf("share %v focus %q missed %v: %s", ev.RareShare, ev.Focus, ev.FocusMissed, ev.whyRare())
	}
	notes := hit("notes", 2, 10)
	notes.Text = "EPUB books were first supported by Footnote in release 0.4."
	if ev, _ := a.Words(context.Background(), q, []search.Hit{formats, notes}); ev.RareShare != 1 || ev.FocusMissed {
		t.Errorf("share %v with a passage naming the release, want 1", ev.RareShare)
	}
	// "what" is as often followed by a verb, so it sets no focus.
	if got := askedFor("What happens to the release notes?", []string{"happens", "release"}); got != "" {
		t.Errorf("askedFor(what …) = %q, want none", got)
	}
}

// A rare word the best passage lacks counts a quarter held when the library
// uses it elsewhere — the question may only word it otherwise — and missing
// in full when the library never uses it: "What does Obersee mean?" is
// answered by the passage glossing the name, "Who played Eve Moneypenny?"
// by the one naming her, though neither says "mean" or "played"; a
// question about a licence the library never mentions is refused, and says
// which words the library never uses.
func TestWordsCountRareWordsTheLibraryUsesElsewhereAQuarter(t *testing.T) {
	a := &Answerability{Stats: fakeTermStats{chunks: 200, df: map[string]int{"obersee": 2, "mean": 6,
		"eve": 2, "moneypenny": 2, "played": 5, "footnote": 150, "cost": 5}}, MinRareShare: config.DefaultMinRareTermShare}
	lake := hit("lake", 1, 10)
	lake.Text = `Lake Constance consists of three bodies of water: the Obersee ("upper lake"), the Untersee and the Seerhein.`
	cast := hit("cast", 1, 10)
	cast.Text = "Naomie Harris portrayed Eve Moneypenny, and Ben Whishaw returned as Q."
	licence := hit("install", 1, 10)
	licence.Text = "Footnote is free to install; the only cost is the disk space for the models."
	for _, c := range []struct {
		q       string
		p       search.Hit
		share   float64
		refused bool
		why     string
	}{
		{"What does Obersee mean?", lake, (1 + 0.25) / 2, false, ""},
		{"Who played Eve Moneypenny?", cast, (2 + 0.25) / 3, false, ""},
		{"How much does a Footnote licence cost?", licence, 1.0 / 2, true,
			"the best passage holds only 1 of the question's 2 distinctive words (missing: “licence”); the library never uses “licence”"},
	} {
		ev, err := a.Words(context.Background(), c.q, []search.Hit{c.p})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ev.RareShare-c.share) > 1e-12 {
			t.Errorf("%q: rare share %v, want %v (rare %v, held %v, unused %v)", c.q, ev.RareShare, c.share, ev.Rare, ev.RareMatched, ev.Unused)
		}
		if refused := ev.RareShare < a.MinRareShare; refused != c.refused {
			t.Errorf("%q: refused %v at the default %v, want %v", c.q, refused, a.MinRareShare, c.refused)
		}
		if c.why != "" && ev.whyRare() != c.why {
			t.Errorf("%q: why %q, want %q", c.q, ev.whyRare(), c.why)
		}
	}
}

// The gate reads words as search matches them: accents dropped ("Rély" is
// "Rely") and a number, ordinal or month in either of its one-word
// spellings ("fourteen" and "14").
func TestKeyWordsMatchAsSearchDoes(t *testing.T) {
	words := passageWords("The fourteen members met at Rély in Sept.")
	for _, q := range []string{"Who met at Rely?", "Which 14 members met?", "Who met in September?"} {
		for _, term := range keyTerms(q) {
			if !term.in(words) {
				t.Errorf("%q: key word %q not found in the passage", q, term.word)
			}
		}
	}
	if (keyTerm{word: "fifteen", lookup: "fifteen"}).in(words) {
		t.Error("fifteen found in a passage saying fourteen")
	}
}

// A question typed with combining accents (NFD) splits into the same
// words as its composed form, so the "which" focus stays aligned with the
// capitalised words that qualify it.
func TestWhichFocusWithCombiningAccents(t *testing.T) {
	composed, decomposed := "Which Séville Opera venue hosted the fair?", "Which Se\u0301ville Opera venue hosted the fair?"
	rare := []string{"venue", "hosted", "fair"}
	if a, b := askedFor(composed, rare), askedFor(decomposed, rare); a != "venue" || b != a {
		t.Errorf("focus %q (composed) and %q (decomposed), want venue for both", a, b)
	}
}

// A passage's name the question already holds is no other name, however
// its accents are written.
func TestNamesOtherThanFoldsAccents(t *testing.T) {
	q := indexWords("Which Béarn venue hosted the fair?")
	if namesOtherThan("The fair was held at the Béarn hall.", q) {
		t.Error("Béarn, named by the question, counted as another name")
	}
	if !namesOtherThan("The fair was held at the Pau hall.", q) {
		t.Error("Pau not counted as another name")
	}
}
