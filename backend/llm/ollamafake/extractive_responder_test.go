package ollamafake

import (
	"strings"
	"testing"
)

// TestExtractiveResponderQuotesBestSentenceOrRefuses: the reader quotes
// the sentence that holds the question's distinctive words, citing its
// block, and refuses when the evidence lacks them — from the prompt alone.
func TestExtractiveResponderQuotesBestSentenceOrRefuses(t *testing.T) {
	r := ExtractiveResponder(0.6)
	for q, want := range map[string]string{
		"What does the Windows installer add?":  "It adds WebView2. [#1]",
		"How do I download the Linux AppImage?": "Download the AppImage. [#2]",
		"How much does a licence cost?":         DontKnow,
		"Does it run on Android phones?":        DontKnow,
	} {
		if got := strings.Join(r(scriptedPrompt(q)).Tokens, ""); got != want {
			t.Errorf("%q: got %q, want %q", q, got, want)
		}
	}
	if got := strings.Join(r(scriptedPrompt("")).Tokens, ""); got != DontKnow {
		t.Errorf("no question: got %q", got)
	}
}

func TestStemJoinsWordForms(t *testing.T) {
	for _, pair := range [][2]string{{"name", "named"}, {"install", "installing"}, {"give", "gives"}, {"check", "checks"}} {
		if stem(pair[0]) != stem(pair[1]) {
			t.Errorf("stem(%q)=%q, stem(%q)=%q", pair[0], stem(pair[0]), pair[1], stem(pair[1]))
		}
	}
}
