package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/verify"
)

const installPassage = `Footnote is a desktop application for Linux, macOS and Windows. It needs about 200 MB of disk space plus the
space for your index, which is roughly a third of the size of the text you add.`

const contextPassage = `Footnote requests a context window of 8192 tokens and keeps 512 tokens free for the answer. When the model's
own window is smaller, Footnote uses the smaller window and packs fewer passages.`

func verifyOne(t *testing.T, v *verify.Verifier, claim, passage string) verify.Result {
	t.Helper()
	r, err := v.Verify(context.Background(), claim, verify.Passage{N: 1, Text: passage})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerifyFindsTheSupportingSentence(t *testing.T) {
	v := &verify.Verifier{}
	r := verifyOne(t, v, "Footnote needs about 200 MB of disk space.", installPassage)
	if r.Verdict != verify.Supported {
		t.Fatalf("verdict %s (%s), signals %+v", r.Verdict, r.Reason, r.Signals)
	}
	if !strings.HasPrefix(r.Span.Text, "It needs about 200 MB of disk space") || r.Span.Sentences != 1 {
		t.Errorf("span %q (%d sentences), want the second sentence", r.Span.Text, r.Span.Sentences)
	}
	if r.Score < verify.SupportedAt || r.Score > 1 {
		t.Errorf("score %v out of the supported range", r.Score)
	}
}

func TestVerifyWrongNumberIsUnsupportedWithAReason(t *testing.T) {
	v := &verify.Verifier{}
	r := verifyOne(t, v, "Footnote needs about 40 MB of disk space.", installPassage)
	if r.Verdict != verify.Unsupported {
		t.Fatalf("verdict %s, want unsupported; signals %+v", r.Verdict, r.Signals)
	}
	if want := "the passage says 200 MB, the claim says 40 MB"; r.Reason != want {
		t.Errorf("reason %q, want %q", r.Reason, want)
	}
	if !strings.Contains(r.Span.Text, "200 MB") {
		t.Errorf("span %q should be where the passage gives the size", r.Span.Text)
	}
}

// The case: "the limit is 40 MB [#2]" where [#2] is about a
// different setting.
func TestVerifyAnswerCitingTheWrongPassage(t *testing.T) {
	answer := "Footnote needs about 200 MB of disk space [#1]. It packs fewer passages when the model's window is smaller [#2]. Footnote needs 200 MB of disk space [#2]."
	passages := []verify.Passage{{N: 1, Text: installPassage, Start: 100}, {N: 2, Text: contextPassage, Start: 900}}
	claims := verify.Claims(answer, "How much disk space does Footnote need?", installPassage, contextPassage)
	res, err := (&verify.Verifier{}).VerifyAnswer(context.Background(), claims, passages)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{res[0].Verdict, res[1].Verdict, res[2].Verdict}
	want := []string{verify.Supported, verify.Supported, verify.Unsupported}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("claim %d %q: %s (%s), want %s", i, res[i].Claim.Text, got[i], res[i].Reason, want[i])
		}
	}
	if !strings.Contains(res[2].Reason, "200 MB") {
		t.Errorf("reason %q should name the missing 200 MB", res[2].Reason)
	}
	sum := verify.Summarize(res)
	if sum.Verified() || sum.Unsupported != 1 || sum.Supported != 2 {
		t.Errorf("summary %+v", sum)
	}
}

func TestVerifyHardConstraints(t *testing.T) {
	v := &verify.Verifier{}
	cases := []struct {
		claim, passage, verdict, reason string
	}{
		{"Set FOOTNOTE_DATA to keep the index elsewhere.",
			"Set FOOTNOTE_HOME to keep the index, settings and downloaded models somewhere other than the default data folder.",
			verify.Unsupported, "the passage says FOOTNOTE_HOME, the claim says FOOTNOTE_DATA"},
		{"Footnote sends your documents to the model hub.",
			"Footnote does not send your documents, questions or answers anywhere. It has no telemetry.",
			verify.Unsupported, `the passage says "not send documents", the claim does not`},
		{"Footnote does not compare content hashes when rescanning.",
			"Footnote compares content hashes, so files that did not change cost nothing to rescan.",
			verify.Unsupported, `the claim says "not compare content", the passage says the opposite`},
		{"On macOS, run the installer.",
			"On Windows, run the installer. Footnote uses the WebView2 runtime that ships with Windows 11.",
			verify.Unsupported, "the passage says Windows, the claim says macOS"},
		{"The release shipped on March 3, 2024.",
			"Version 2.0 shipped on May 3, 2024 after a short beta.",
			verify.Unsupported, "the passage says May 3, 2024, the claim says March 3, 2024"},
		{"Breakfast is included in seat tickets.",
			"Breakfast is included in sleeper tickets but not in seat tickets.",
			verify.Unsupported, `the passage says "not seat tickets", the claim does not`},
		{"Footnote never sends your documents anywhere.",
			"Footnote does not send your documents, questions or answers anywhere. It has no telemetry.",
			verify.Supported, ""},
	}
	for _, c := range cases {
		r := verifyOne(t, v, c.claim, c.passage)
		if r.Verdict != c.verdict || r.Reason != c.reason {
			t.Errorf("%q:\n got %s %q\nwant %s %q\nsignals %+v", c.claim, r.Verdict, r.Reason, c.verdict, c.reason, r.Signals)
		}
	}
}

// Semantic similarity must never rescue a failed hard constraint, however
// similar the embedder finds the texts.
func TestVerifySemanticsCannotRescueAConstraint(t *testing.T) {
	v := &verify.Verifier{Embedder: embed.NewFake(64)}
	r := verifyOne(t, v, "It needs about 40 MB of disk space plus the space for your index.", installPassage)
	if r.Verdict != verify.Unsupported || r.Signals.Semantic == nil {
		t.Fatalf("verdict %s, semantic %v", r.Verdict, r.Signals.Semantic)
	}
	if *r.Signals.Semantic < 0.5 {
		t.Errorf("the near-copy should look similar (semantic %v), or this test proves nothing", *r.Signals.Semantic)
	}
	s := r.Signals
	one := 1.0
	s.Semantic, s.Entailment = &one, &one
	if _, verdict := verify.Combine(s); verdict != verify.Unsupported {
		t.Errorf("Combine with perfect semantic and entailment scores but a failed check = %s", verdict)
	}
}

func TestCombine(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	words := func(score, weight float64) verify.Fact {
		return verify.Fact{Kind: "words", Text: "the clause", Score: score, Weight: weight}
	}
	value := func(kind string, score float64) verify.Fact {
		return verify.Fact{Kind: kind, Text: "the value", Score: score, Weight: 1}
	}
	cases := []struct {
		name    string
		s       verify.Signals
		score   float64
		verdict string
	}{
		{"lexical only, full", verify.Signals{Lexical: 1}, 1, verify.Supported},
		{"lexical only, at the supported threshold", verify.Signals{Lexical: verify.SupportedAt}, verify.SupportedAt, verify.Supported},
		{"lexical only, partial", verify.Signals{Lexical: 0.5}, 0.5, verify.Partial},
		{"lexical only, at the partial threshold", verify.Signals{Lexical: verify.PartialAt}, verify.PartialAt, verify.Partial},
		{"lexical only, unsupported", verify.Signals{Lexical: 0.3}, 0.3, verify.Unsupported},
		{"semantic lifts a paraphrase one level", verify.Signals{Lexical: 0.6, Semantic: f(1)}, 0.72, verify.Supported},
		{"semantic below lexical changes nothing", verify.Signals{Lexical: 0.6, Semantic: f(0.1)}, 0.6, verify.Partial},
		{"semantic is ignored under the lexical floor", verify.Signals{Lexical: 0.3, Semantic: f(1)}, 0.3, verify.Unsupported},
		{"entailment averages in", verify.Signals{Lexical: 0.8, Entailment: f(0)}, 0.4, verify.Partial},
		{"entailment can sink a claim", verify.Signals{Lexical: 0.6, Entailment: f(0)}, 0.3, verify.Unsupported},
		// No cliff: a value the passage lacks costs the score a step and
		// keeps the claim from support, the rest of the claim still counts.
		{"a missing value costs a step", verify.Signals{Lexical: 0.9, Facts: []verify.Fact{words(1, 3), value(verify.CheckNumber, 0)},
			Checks: []verify.Check{{Kind: verify.CheckNumber, Claim: "40 MB"}}}, 0.75, verify.Partial},
		{"two missing values", verify.Signals{Lexical: 0.6, Facts: []verify.Fact{words(1, 2), value(verify.CheckEntity, 0), value(verify.CheckDate, 0)}}, 0.3, verify.Unsupported},
		{"part of a name stated keeps the claim partial", verify.Signals{Lexical: 0.9, Facts: []verify.Fact{words(1, 3), value(verify.CheckEntity, 0.5)}}, 0.9, verify.Partial},
		{"an unstated negation keeps the claim partial without a penalty", verify.Signals{Lexical: 0.8, Facts: []verify.Fact{words(1, 3), value(verify.CheckNegation, 0)}}, 0.8, verify.Partial},
		{"a heavy clause not stated keeps the claim partial", verify.Signals{Lexical: 0.75, Facts: []verify.Fact{words(1, 3), words(0.2, 2)}}, 0.75, verify.Partial},
		{"a light clause not stated does not", verify.Signals{Lexical: 0.8, Facts: []verify.Fact{words(1, 3), words(0, 0.5)}}, 0.8, verify.Supported},
		{"a contradiction sinks the claim", verify.Signals{Lexical: 1, Checks: []verify.Check{{Kind: verify.CheckNumber, Claim: "40 MB", Passage: "200 MB"}}}, 0.25, verify.Unsupported},
		{"semantics cannot rescue a contradiction", verify.Signals{Lexical: 1, Semantic: f(1), Entailment: f(1),
			Checks: []verify.Check{{Kind: verify.CheckNumber, Claim: "40 MB", Passage: "200 MB"}}}, 0.25, verify.Unsupported},
		{"passed checks change nothing", verify.Signals{Lexical: 1, Checks: []verify.Check{{Kind: verify.CheckNumber, Claim: "200 MB", OK: true}}}, 1, verify.Supported},
	}
	for _, c := range cases {
		score, verdict := verify.Combine(c.s)
		if verdict != c.verdict || score < c.score-1e-9 || score > c.score+1e-9 {
			t.Errorf("%s: Combine = %v %s, want %v %s", c.name, score, verdict, c.score, c.verdict)
		}
	}
}

// Span offsets index the document's stored text in code points, like chunk
// offsets, for every sample document and a Korean one.
func TestVerifySpanOffsetsIndexTheDocumentText(t *testing.T) {
	dir := t.TempDir()
	korean := "# 설치\n\nFootnote는 Linux, macOS, Windows용 데스크톱 앱입니다. 약 200MB의 디스크 공간이 필요합니다.\n\n## 색인\n\n색인은 추가한 텍스트 크기의 약 3분의 1입니다. 문서는 컴퓨터 밖으로 나가지 않습니다.\n"
	writeFile(t, filepath.Join(dir, "설치.md"), korean)
	paths := []string{filepath.Join(dir, "설치.md")}
	for _, name := range []string{"install.md", "settings.md", "privacy.txt", "faq.docx", "quick-reference.pdf"} {
		paths = append(paths, filepath.Join("..", "..", "sample", "library", name))
	}
	v := &verify.Verifier{}
	checked := 0
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ingest.Load(ingest.File{Path: abs}, embed.NewFake(8), ingest.Options{ChunkTokens: 80}, time.Now())
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
		docRunes := []rune(doc.Text)
		for _, ch := range doc.Chunks {
			if string(docRunes[ch.Offsets.Start:ch.Offsets.End]) != ch.Text {
				t.Fatalf("%s: chunk offsets do not index the text; the test's premise is wrong", path)
			}
			// Claim: the chunk's last sentence, verbatim.
			cs := verify.Claims(ch.Text, "")
			claim := cs[len(cs)-1]
			if !claim.Checkable() || claim.Kind == verify.KindHeading {
				continue
			}
			r, err := v.Verify(context.Background(), claim.Plain, verify.Passage{N: 1, Text: ch.Text, Start: ch.Offsets.Start})
			if err != nil {
				t.Fatal(err)
			}
			sp := r.Span
			if sp.Offsets.Unit != corpus.UnitChar || sp.Offsets.Start < ch.Offsets.Start || sp.Offsets.End > ch.Offsets.End {
				t.Fatalf("%s: span offsets %+v outside chunk %+v", path, sp.Offsets, ch.Offsets)
			}
			if got := string(docRunes[sp.Offsets.Start:sp.Offsets.End]); got != sp.Text {
				t.Errorf("%s: doc[%d:%d] = %q, span text %q", path, sp.Offsets.Start, sp.Offsets.End, got, sp.Text)
			}
			if ch.Text[sp.PassageStart:sp.PassageEnd] != sp.Text {
				t.Errorf("%s: passage byte range does not give the span", path)
			}
			if r.Verdict != verify.Supported {
				t.Errorf("%s: a sentence copied from the passage is %s (%s): %q", path, r.Verdict, r.Reason, claim.Plain)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d chunks checked", checked)
	}
}

func TestVerifyMarkerNamingNoPassage(t *testing.T) {
	claims := verify.Claims("Footnote needs 200 MB [#4].", "")
	res, err := (&verify.Verifier{}).VerifyAnswer(context.Background(), claims, []verify.Passage{{N: 1, Text: installPassage}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Verdict != verify.Unsupported || !strings.Contains(res[0].Reason, "passage 4 was not given") {
		t.Errorf("got %s %q", res[0].Verdict, res[0].Reason)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A claim's facts are checked against the whole cited passage, its title
// and dateline included, but a value elsewhere in the passage counts only
// where it is bound to the same thing (issue: "look where the fact is").
func TestVerifyLooksWhereTheFactIs(t *testing.T) {
	v := &verify.Verifier{}
	album := "The band's debut album was released in 1975 on a small label. It sold poorly at first. " +
		"A remastered edition followed in 1982, with two bonus tracks."
	if r := verifyOne(t, v, "The debut album was originally released in 1982.", album); r.Verdict != verify.Unsupported ||
		!strings.Contains(r.Reason, "1975") {
		t.Errorf("1982 for 1975: %s (%.2f, %s), want unsupported naming 1975", r.Verdict, r.Score, r.Reason)
	}
	if r := verifyOne(t, v, "The debut album was released in 1975.", album); r.Verdict != verify.Supported {
		t.Errorf("1975: %s (%s)", r.Verdict, r.Reason)
	}
	// The year is in the dateline, the day in the text.
	news := verify.Passage{N: 1, Text: "The council met on Friday, June 28 and voted to close the bridge for repairs.",
		Context: "Council votes to close bridge\nPublished 2019-06-29"}
	r, err := v.Verify(context.Background(), "On 28 June 2019 the council voted to close the bridge.", news)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != verify.Supported {
		t.Errorf("dateline year: %s (%.2f, %s), want supported", r.Verdict, r.Score, r.Reason)
	}
	if r, _ := v.Verify(context.Background(), "On 28 June 2018 the council voted to close the bridge.", news); r.Verdict != verify.Unsupported {
		t.Errorf("another year: %s (%s), want unsupported", r.Verdict, r.Reason)
	}
	// A name in the title counts: the passage says "it".
	doc := verify.Passage{N: 1, Text: "It needs about 200 MB of disk space.", Context: "Footnote › Installation"}
	if r, _ := v.Verify(context.Background(), "Footnote needs about 200 MB of disk space.", doc); r.Verdict != verify.Supported {
		t.Errorf("name in the title: %s (%s)", r.Verdict, r.Reason)
	}
}

// The same fact written another way is the same fact.
func TestVerifySameFactOtherFormat(t *testing.T) {
	cases := []struct{ claim, passage string }{
		{"The boy was 14 years old.", "The 14-year-old boy was rescued on Tuesday."},
		{"The court ruled 5-4 in favour of the state.", "In a 5-to-4 vote, the court ruled in favour of the state."},
		{"The camp takes children aged 12 to 18.", "The camp takes children aged 12-18 for two weeks."},
		{"Two thirds of members voted yes.", "2/3 of members voted yes."},
		{"The story first ran on Tech Crunch.", "The story first ran on TechCrunch in May."},
		{"He recorded 2.5 sacks in the game.", "He recorded 2½ sacks in the game."},
		{"The fee is 3 million dollars.", "The fee is 3,000,000 dollars."},
		{"The court session lasted 90 minutes.", "The court session lasted 1.5 hours."},
		{"Water the plants twice a week.", "Water the plants two times a week."},
	}
	for _, c := range cases {
		if r := verifyOne(t, &verify.Verifier{}, c.claim, c.passage); r.Verdict != verify.Supported {
			t.Errorf("%q against %q: %s (%.2f, %s)", c.claim, c.passage, r.Verdict, r.Score, r.Reason)
		}
	}
}

// A name swapped for another name of the same passage is not support,
// whatever else the passage shares with the claim.
func TestVerifySwappedNameFromThePassage(t *testing.T) {
	passage := "In 1051 Edward appointed Robert of Jumièges archbishop of Canterbury. The Normans at court " +
		"resented the English earls. Robert was expelled the next year."
	r := verifyOne(t, &verify.Verifier{}, "He appointed Norman of Jumièges archbishop of Canterbury.", passage)
	if r.Verdict != verify.Unsupported || !strings.Contains(r.Reason, "Robert") {
		t.Errorf("Norman for Robert: %s (%.2f, %s), want unsupported naming Robert", r.Verdict, r.Score, r.Reason)
	}
	if r := verifyOne(t, &verify.Verifier{}, "Edward appointed Robert of Jumièges archbishop of Canterbury.", passage); r.Verdict != verify.Supported {
		t.Errorf("Robert: %s (%s)", r.Verdict, r.Reason)
	}
}

// Role checks do not fire on lists the parse cannot bind unambiguously.
func TestVerifyListsDoNotTripRoleChecks(t *testing.T) {
	r := verifyOne(t, &verify.Verifier{}, "He has three siblings: Wade, Shane and Bailey.",
		"He and his three siblings — Wade, 26; Shane, 22; and Bailey, 18 — grew up on the farm.")
	if r.Verdict == verify.Unsupported {
		t.Errorf("siblings list: %s (%s), want supported or partial", r.Verdict, r.Reason)
	}
}

// A long claim with one fact the passage lacks is partly supported, and
// the reason names that fact; the claim is not all or nothing.
func TestVerifyPartialNamesTheMissingFact(t *testing.T) {
	passage := "The museum reopened in March 2021 after a two-year renovation. Its new wing houses the bronze age " +
		"collection, and entry is free on Sundays."
	r := verifyOne(t, &verify.Verifier{}, "The museum reopened in March 2021 after a two-year renovation, and its new wing was designed by Zaha Hadid.", passage)
	if r.Verdict != verify.Partial || !strings.Contains(r.Reason, "Zaha Hadid") {
		t.Errorf("%s (%.2f, %s), want partial naming Zaha Hadid", r.Verdict, r.Score, r.Reason)
	}
	if len(r.Signals.Facts) < 3 {
		t.Errorf("facts %+v, want the claim's clauses and values scored one by one", r.Signals.Facts)
	}
}
