package embed

import (
	"context"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// TestPiecesTokeniseAsTheWhole: long texts encoded piece by piece give the
// tokenizer's own ids for the whole text, and a text holding an
// added token's text, or a pipeline that is not BERT's, is encoded whole.
func TestPiecesTokeniseAsTheWhole(t *testing.T) {
	texts := map[string]string{
		"prose":       longText(400),
		"punctuation": strings.Repeat("Well, (it) said: \"no!\" -- e-4012; x/y=3.5%? ", 40),
		"accents":     strings.Repeat("Résumé of the café naïve coöperation Ångström ", 30),
		"cjk":         strings.Repeat("東京大学に行きました 학교에서 공부했다 漢字かな交じり文 ", 30),
		"whitespace":  strings.Repeat("line one\n\tline two\r\n  spaced   out \u00a0nbsp\u2003em ", 30),
		"control":     strings.Repeat("bell\x07 and zero\u200b width\ufeff marks ", 40),
		"long word":   strings.Repeat("a", 700) + " " + strings.Repeat("supercalifragilistic", 30) + " " + longText(100),
		"combining":   strings.Repeat("e\u0301 \u0301x cafe\u0301 ", 80),
		"added token": longText(200) + " [MASK] " + longText(100),
		// Long words of ASCII letters and digits are the unknown token
		// without a tokenizer call, but only when whole words: not when
		// other characters continue them (é, a combining mark, a control
		// character the normalizer drops).
		"hex run": "see " + strings.Repeat("0f3a9c", 900) + ", then " + strings.Repeat("ab", 51) + "." + strings.Repeat("9", 100) +
			" x" + strings.Repeat("7e", 80) + "é" + strings.Repeat("c4", 200) + " " + strings.Repeat("d", 300) + "\u0301 and " +
			strings.Repeat("e", 200) + "\x0b" + strings.Repeat("f", 200) + " " + strings.Repeat("Z", 101) + "(" + strings.Repeat("1", 400),
		"base64": strings.Repeat("TWFu+aXMgZGlz/dGluZ3Vpc2hlZC+wgbm90IG9ubHkg/YnkgaGlz+IHJlYXNvbi", 60),
	}
	for name, dir := range models(t) {
		h := loadModel(t, dir)
		if h.pieces == nil {
			t.Fatalf("%s: a BERT tokenizer should be encoded in pieces", name)
		}
		if h.pieces.unkID < 0 {
			t.Errorf("%s: long words are not read as the unknown token without the tokenizer", name)
		}
		for what, text := range texts {
			whole := h.tok.Encode(text)
			got := h.encode(text)
			if len(got) != len(whole) {
				t.Errorf("%s/%s: %d tokens in pieces, %d whole", name, what, len(got), len(whole))
				continue
			}
			for i := range whole {
				if got[i] != whole[i] {
					t.Errorf("%s/%s: token %d is %d in pieces, %d whole", name, what, i, got[i], whole[i])
					break
				}
			}
		}
		if h.pieces.applies(texts["added token"]) {
			t.Errorf("%s: a text holding [MASK] was encoded in pieces", name)
		}
		if !h.pieces.applies(texts["prose"]) {
			t.Errorf("%s: long prose was not encoded in pieces", name)
		}
	}
	for _, cfg := range []string{
		`{"pre_tokenizer":{"type":"Metaspace"},"model":{"type":"Unigram"}}`,
		`{"normalizer":{"type":"Replace"},"pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"WordPiece"}}`,
	} {
		if p := newPieceRule([]byte(cfg), nil); p != nil {
			t.Errorf("%s: encoded in pieces", cfg)
		}
	}
}

// BenchmarkTokenIDs tokenises a 235-token passage, on $MODEL_SRC when set,
// else on the tiny model.
func BenchmarkTokenIDs(b *testing.B) {
	h, err := Load(context.Background(), embedtest.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	text := longText(230)
	for b.Loop() {
		h.tokenIDs(text)
	}
}
