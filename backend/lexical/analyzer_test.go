package lexical

import (
	"strings"
	"testing"
)

func TestKoreanStemKeepsShortWords(t *testing.T) {
	cases := map[string]string{"학교에서": "학교", "학교": "학교", "아이": "아이", "나라": "나라", "사과를": "사과", "도서관에서부터": "도서관",
		// Verb endings too, a merged final consonant with them.
		"설치합니다": "설치", "설치하려면": "설치", "문서에서는": "문서", "보냅니다": "보내", "보낸다": "보내"}
	for in, want := range cases {
		if got := KoreanStem(in); got != want {
			t.Errorf("KoreanStem(%q) = %q, want %q", in, got, want)
		}
	}
	if got := strings.Join(Analyze("학교에서 printer").Words, " OR "); got != `"학교"* OR "printer"` {
		t.Errorf("lexical.Analyze words = %s", got)
	}
}

func TestFTSQueryIsQuotedWords(t *testing.T) {
	cases := map[string]string{
		`printer AND "driver"`: `"printer" OR "driver"`,
		`NEAR(a b)`:            `"NEAR" OR "b"`,
		`AND OR NOT`:           `"AND" OR "OR" OR "NOT"`,
		`café-crème café`:      `"café" OR "crème"`,
		`-*()`:                 ``,
	}
	for in, want := range cases {
		if got := ftsQuery(in); got != want {
			t.Errorf("ftsQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStopWordsLeaveTheQuery: function words are not searched for (they only
// pull up chunks that share them), unless nothing else is left.
func TestStopWordsLeaveTheQuery(t *testing.T) {
	cases := map[string]string{
		"How do I install the printer on Linux?": `"install" OR "printer" OR "Linux"`,
		"What is the error code E-4012":          `"error" OR "code" OR "E" OR "4012"`,
		"to be or not to be":                     `"to" OR "be" OR "or" OR "not"`,
		"학교에서 the printer":                       `"학교"* OR "printer"`,
	}
	for in, want := range cases {
		if got := ftsQuery(in); got != want {
			t.Errorf("ftsQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWithSpellingsGroupsEveryWayToWriteAWord(t *testing.T) {
	spell := func(lower string) []string {
		return map[string][]string{"fourteen": {"14"}, "sept": {"sep", "september"}}[lower]
	}
	q := Analyze("Fourteen students joined in Sept 학교에서").WithSpellings(spell)
	want := []string{`("Fourteen" OR "14")`, `"students"`, `"joined"`, `("Sept" OR "sep" OR "september")`, `"학교"*`}
	if strings.Join(q.Words, "|") != strings.Join(want, "|") {
		t.Fatalf("words %q, want %q", q.Words, want)
	}
	for i, w := range want {
		if got := Phrases(w); (i == 0 && len(got) != 2) || (i == 3 && len(got) != 3) || (i != 0 && i != 3 && (len(got) != 1 || got[0] != w)) {
			t.Errorf("Phrases(%s) = %q", w, got)
		}
	}
}

func TestPlanWeighsEachSpellingAsAPhrase(t *testing.T) {
	terms := []Term{{Expr: `("14" OR "fourteen")`, DF: 5, PhraseDFs: []int{3, 2}}, {Expr: `"students"`, DF: 9}}
	b := Plan("chunks_fts", terms, 10, false, DefaultTuning)
	if len(b) != 1 || len(b[0].ExprDFs) != 3 || b[0].ExprDFs[0] != 3 || b[0].ExprDFs[1] != 2 || b[0].ExprDFs[2] != 9 {
		t.Fatalf("plan %+v: want one document frequency per phrase (3, 2, 9)", b)
	}
}
