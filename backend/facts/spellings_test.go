package facts

import (
	"slices"
	"testing"
)

func TestSpellingsWriteOneValueEveryWay(t *testing.T) {
	cases := map[string][]string{
		"fourteen":  {"14"},
		"14":        {"fourteen"},
		"third":     {"3rd"},
		"3rd":       {"third"},
		"22nd":      nil, // no spelled-out ordinal past "twentieth" but the tens
		"thirtieth": {"30th"},
		"sept":      {"sep", "september"},
		"jul":       {"july"},
		"july":      {"jul"},
		"dozen":     {"12"},
		"12":        {"twelve"},
		"zero":      {"0"},
		// Ambiguous words stay as written.
		"one": nil, "1": nil, "second": nil, "2nd": nil, "may": nil, "half": nil,
		"printer": nil, "1982": nil,
	}
	for w, want := range cases {
		if got := Spellings(w); !slices.Equal(got, want) {
			t.Errorf("Spellings(%q) = %q, want %q", w, got, want)
		}
	}
}
