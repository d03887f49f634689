package embed

import "testing"

// TestCoverageWithARealTokenizer: the generated test model's WordPiece
// vocabulary knows common English words and no Hangul (its normaliser
// decomposes syllables into jamo it has never seen); with MODEL_SRC set the
// same holds for that model (the English MiniLM spells Hangul out in jamo).
func TestCoverageWithARealTokenizer(t *testing.T) {
	for name, dir := range models(t) {
		h := loadModel(t, dir)
		en, ko := h.Coverage("How do I install the app on Linux?"), h.Coverage("회사에서 일하고 싶은 이유는 무엇인가?")
		t.Logf("%s: English %.2f, Korean %.2f", name, en, ko)
		if en < 0.5 || ko > 0.2 {
			t.Errorf("%s: coverage English %.2f (want ≥ 0.5), Korean %.2f (want ≤ 0.2)", name, en, ko)
		}
	}
}

// TestPassageTokenIDsAreWhatIsEmbedded: the ids a peer runtime is given
// are the ones EmbedPassages uses, prefix and special tokens included.
func TestPassageTokenIDsAreWhatIsEmbedded(t *testing.T) {
	h := loadModel(t, models(t)["tiny"])
	text := "Install the app, then open the library."
	ids := h.PassageTokenIDs(text)
	if len(ids) != h.CountTokens(text) || ids[0] != h.clsID || ids[len(ids)-1] != h.sepID {
		t.Fatalf("ids %v: %d ids for %d tokens", ids, len(ids), h.CountTokens(text))
	}
}
