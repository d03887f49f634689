package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gomlx/go-huggingface/tokenizers/api"
)

// Coverer is an Embedder that can say how much of a text its vocabulary
// knows. Hybrid search weighs the vector retriever by it: a model that
// spells a question out letter by letter (the English MiniLM decomposes
// Hangul into jamo) or maps its words to [UNK] ranks by noise, however
// spread out its scores look.
type Coverer interface {
	// Coverage is the share, in [0,1], of the text's words of two or more
	// characters that the tokenizer encodes with at least one piece longer
	// than a character and without unknown or byte-fallback tokens; 1 when
	// the text has no such words.
	Coverage(text string) float64
}

// Coverage implements Coverer with the model's tokenizer.
func (h *Hugot) Coverage(text string) float64 {
	unk := -1
	if id, err := h.tok.SpecialTokenID(api.TokUnknown); err == nil {
		unk = id
	}
	return coverage(text, func(word string) []string {
		ids := h.encodeInner(word)
		pieces := make([]string, len(ids))
		for i, id := range ids {
			if id == unk {
				pieces[i] = unknownPiece
				continue
			}
			pieces[i], _ = h.tok.IDToToken(id)
		}
		return pieces
	})
}

// unknownPiece stands for the tokenizer's unknown token.
const unknownPiece = "\x00unk"

// coverage computes Coverage from a word → pieces function.
func coverage(text string, pieces func(word string) []string) float64 {
	judged, known := 0, 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
	}) {
		n := utf8.RuneCountInString(w)
		if n < 2 {
			continue
		}
		judged++
		if wordKnown(w, n, pieces(w)) {
			known++
		}
	}
	if judged == 0 {
		return 1
	}
	return float64(known) / float64(judged)
}

// wordKnown reports whether a word of n characters is encoded by pieces
// the model has seen as units. Ideographs are read one per piece by design
// (BERT tokenizers split them), so only unknown pieces count against them.
func wordKnown(word string, n int, pieces []string) bool {
	if len(pieces) == 0 {
		return false
	}
	for _, p := range pieces {
		if p == unknownPiece || isByteFallback(p) {
			return false
		}
	}
	if ideographic(word) {
		return true
	}
	return len(pieces) < n // some piece holds more than one character
}

// isByteFallback matches SentencePiece's <0xNN> byte tokens.
func isByteFallback(p string) bool {
	return len(p) == 6 && strings.HasPrefix(p, "<0x") && p[5] == '>'
}

func ideographic(word string) bool {
	for _, r := range word {
		if !(unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)) {
			return false
		}
	}
	return true
}
