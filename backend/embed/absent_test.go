package embed

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestEstimateNeverCountsFewerThanTheTokenizer: on English, Korean, code
// and identifiers, the estimate used without a model is at least what a
// real WordPiece vocabulary (bert-base's, as MiniLM uses: MODEL_SRC, as CI
// sets it) counts, so chunks cut with it fit the model that arrives. The
// generated model's 1,368-token vocabulary spells most words out letter by
// letter, as no real model does; with it the estimate must still count
// every word.
func TestEstimateNeverCountsFewerThanTheTokenizer(t *testing.T) {
	texts := []string{
		"How do I install Footnote on Linux? Download the AppImage and run it.",
		"회사에서 일하고 싶은 이유는 무엇인가? 베인&컴퍼니가 선정됐다.",
		"func (h *Hugot) EmbedQuery(ctx context.Context, text string) ([]float32, error)",
		"Error E-4012 on part PT-450X: replace the fuse (see §3.2, p. 17).",
		"Ünïcödé naïve café — “quotes” and emoji 😀 too.",
		strings.Repeat("antidisestablishmentarianism ", 20),
	}
	for name, dir := range models(t) {
		h := loadModel(t, dir)
		realVocab := h.tok.VocabSize() >= 10000
		for _, text := range texts {
			est, real := EstimateTokens(text), h.CountTokens(text)
			switch {
			case realVocab && est < real:
				t.Errorf("%s: estimate %d < tokenizer %d for %q", name, est, real, text)
			case est < len(strings.Fields(text))+2:
				t.Errorf("%s: estimate %d counts fewer than the words of %q", name, est, text)
			}
			t.Logf("%s (vocabulary %d): estimate %d, tokenizer %d", name, h.tok.VocabSize(), est, real)
		}
	}
}

func TestAbsentCountsWithTheFolderTokenizerAndRefusesToEmbed(t *testing.T) {
	dir := models(t)["tiny"]
	cause := errors.New("model.onnx is damaged")
	a := NewAbsent(dir, cause)
	h := loadModel(t, dir)
	text := "Install the app, then open the library."
	if a.CountTokens(text) != h.CountTokens(text) {
		t.Errorf("with the folder's tokenizer: %d tokens, the model counts %d", a.CountTokens(text), h.CountTokens(text))
	}
	if _, err := a.EmbedQuery(context.Background(), text); !errors.Is(err, ErrNoModel) || !errors.Is(err, cause) {
		t.Errorf("EmbedQuery error %v, want ErrNoModel wrapping the cause", err)
	}
	if _, err := a.EmbedPassages(context.Background(), []string{text}); !errors.Is(err, ErrNoModel) {
		t.Errorf("EmbedPassages error %v", err)
	}
	none := NewAbsent(filepath.Join(t.TempDir(), "missing"), cause)
	if none.CountTokens(text) != EstimateTokens(text) || none.Info().Dim != DefaultDim || none.Coverage(text) != 0 {
		t.Errorf("without a folder: count %d, info %+v", none.CountTokens(text), none.Info())
	}
}
