package embed

import (
	"strings"
	"testing"
)

func TestCoverageCountsSpelledOutAndUnknownWords(t *testing.T) {
	vocab := map[string][]string{
		"capacity": {"capacity"},
		"pt":       {"pt"},
		"450":      {"450"},
		"회사":       {"ᄒ", "##ᅬ", "##ᄉ", "##ᅡ"}, // Hangul decomposed into jamo
		"ζωή":      {unknownPiece},
		"東京":       {"東", "京"},
		"naïve":    {"<0xC3>", "na"},
	}
	pieces := func(w string) []string { return vocab[strings.ToLower(w)] }
	cases := []struct {
		text string
		want float64
	}{
		{"PT-450 capacity?", 1},
		{"회사 capacity", 0.5},
		{"ζωή 회사", 0},
		{"東京", 1},
		{"naïve capacity", 0.5},
		{"a ? !", 1}, // nothing to judge
	}
	for _, c := range cases {
		if got := coverage(c.text, pieces); got != c.want {
			t.Errorf("coverage(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
