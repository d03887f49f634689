package lexical

import (
	"strings"
	"testing"
)

func TestKoreanStemKeepsShortWords(t *testing.T) {
	cases := map[string]string{"학교에서": "학교", "학교": "학교", "아이": "아이", "나라": "나라", "사과를": "사과", "도서관에서부터": "도서관"}
	for in, want := range cases {
		if got := koreanStem(in); got != want {
			t.Errorf("koreanStem(%q) = %q, want %q", in, got, want)
		}
	}
	if got := strings.Join(Analyze("학교에서 printer").Words, " OR "); got != `"학교"* OR "printer"` {
		t.Errorf("lexical.Analyze words = %s", got)
	}
}

func TestFTSQueryIsQuotedWords(t *testing.T) {
	cases := map[string]string{
		`printer AND "driver"`: `"printer" OR "AND" OR "driver"`,
		`NEAR(a b)`:            `"NEAR" OR "a" OR "b"`,
		`café-crème café`:      `"café" OR "crème"`,
		`-*()`:                 ``,
	}
	for in, want := range cases {
		if got := ftsQuery(in); got != want {
			t.Errorf("ftsQuery(%q) = %q, want %q", in, got, want)
		}
	}
}
