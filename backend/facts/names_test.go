package facts

import "testing"

func TestNameIndex(t *testing.T) {
	x := NewNameIndex("The story ran on TechCrunch and in Ars Technica; Adams's cover of Beyoncé, in Libya, for Canadian and English fans.", "Guide › Set-up")
	for _, name := range []string{"TechCrunch", "Tech Crunch", "Tech-Crunch", "ARS TECHNICA", "Adams", "Beyonce", "Setup", "Libyan", "Canada", "England"} {
		if !x.Has(name) {
			t.Errorf("%q not found", name)
		}
	}
	for _, name := range []string{"Tech", "Crunchbase", "Ars Electronica", "Adamson", "Canton", "Engels"} {
		if x.Has(name) {
			t.Errorf("%q found", name)
		}
	}
}

func TestNameKey(t *testing.T) {
	for in, want := range map[string]string{"Adams's": "adam", "Beyoncé": "beyonce", "O'Brien": "obrien", "AC/DC": "acdc",
		"Presidents'": "president", "President's": "president", "Olympics": "olympic", "Texas": "texa", "Ross": "ross", "IDs": "id"} {
		if got := NameKey(in); got != want {
			t.Errorf("NameKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFoldMarksDropsLatinAccentsOnly(t *testing.T) {
	cases := map[string]string{"Rély": "Rely", "Céloron": "Celoron", "naïve café": "naive cafe", "plain": "plain",
		"학교에서": "학교에서", "がっこう": "がっこう", "Ærø": "Ærø"}
	for in, want := range cases {
		if got := FoldMarks(in); got != want {
			t.Errorf("FoldMarks(%q) = %q, want %q", in, got, want)
		}
	}
}
