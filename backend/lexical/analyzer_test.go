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
