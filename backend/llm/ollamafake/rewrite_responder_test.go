package ollamafake

import "testing"

// TestRewriteReply: the fake resolves a pronoun from the last earlier
// question, keeping the strict one-line format.
func TestRewriteReply(t *testing.T) {
	for prompt, want := range map[string]string{
		"Earlier questions:\n1. When was the main office opened?\n\nFollow-up: And who designed it?": "Standalone question: Who designed the main office?",
		"Earlier questions:\n1. How big is the upload limit?\n\nFollow-up: Can I change its value?":  "Standalone question: Can I change the upload limit's value?",
	} {
		if got := RewriteReply(prompt); got != want {
			t.Errorf("RewriteReply(%q) = %q, want %q", prompt, got, want)
		}
	}
}
