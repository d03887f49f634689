package embed

import (
	"encoding/json"
	"strings"
)

// Tokenising long texts in pieces.
//
// The tokenizer library's BERT pre-tokenizer recomputes every character's
// byte offset from the start of its text, so its cost grows with the
// square of the text's length: 8.9 ms of the 59 ms a 235-token passage
// cost at batch 8 on MiniLM-L6, whole. BenchmarkTokenIDs, a 1,157-byte
// passage: pieces of 256 bytes 1.45–1.7 ms, 64 bytes 0.6–0.7, 32 bytes
// 0.49–0.58, 16 bytes 0.48–0.53 (each call's own work takes over). In a
// BERT pipeline (normalizers that act
// on one character or one combining sequence at a time, a pre-tokenizer
// that splits at whitespace, WordPiece) a text cut just before a
// whitespace character gives the same tokens piece by piece as whole, so
// long texts are encoded in pieces of about pieceBytes. Any other
// pipeline, and any text holding an added token's text (which may strip
// the whitespace next to it), is encoded whole.

const pieceBytes = 32

// pieceRule says which texts may be encoded piece by piece (Hugot.encode):
// nil for a tokenizer whose pipeline is not BERT's.
type pieceRule struct {
	added []string // added tokens' texts, lower-cased
}

// newPieceRule returns nil unless tokenizer.json describes a pipeline that
// tokenises pieces exactly as the whole.
func newPieceRule(tokJSON []byte) *pieceRule {
	var cfg struct {
		Normalizer   json.RawMessage `json:"normalizer"`
		PreTokenizer struct {
			Type string `json:"type"`
		} `json:"pre_tokenizer"`
		Model struct {
			Type string `json:"type"`
		} `json:"model"`
		AddedTokens []struct {
			Content string `json:"content"`
		} `json:"added_tokens"`
	}
	if json.Unmarshal(tokJSON, &cfg) != nil || cfg.PreTokenizer.Type != "BertPreTokenizer" || cfg.Model.Type != "WordPiece" ||
		!localNormalizer(cfg.Normalizer) {
		return nil
	}
	p := &pieceRule{}
	for _, a := range cfg.AddedTokens {
		if a.Content != "" {
			p.added = append(p.added, strings.ToLower(a.Content))
		}
	}
	return p
}

// localNormalizer reports whether a normalizer (or sequence of them) only
// ever looks at one character or combining sequence at a time.
func localNormalizer(raw json.RawMessage) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var n struct {
		Type        string            `json:"type"`
		Normalizers []json.RawMessage `json:"normalizers"`
	}
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	switch n.Type {
	case "BertNormalizer", "NFD", "NFC", "NFKD", "NFKC", "Lowercase", "StripAccents":
		return true
	case "Sequence":
		for _, m := range n.Normalizers {
			if !localNormalizer(m) {
				return false
			}
		}
		return true
	}
	return false
}

// applies reports whether text is long enough to gain from pieces and
// holds no added token's text. (Pieces give ids only: the library's
// character spans for normalised text are not the same piece by piece,
// and Truncate, which needs them, runs on the few chunks past the model's
// limit.)
func (p *pieceRule) applies(text string) bool {
	if p == nil || len(text) <= pieceBytes {
		return false
	}
	lower := strings.ToLower(text)
	for _, a := range p.added {
		if strings.Contains(lower, a) {
			return false
		}
	}
	return true
}

// pieceEnd returns where the piece starting at start ends: just before the
// first ASCII whitespace at least pieceBytes on, or the end of text.
func pieceEnd(text string, start int) int {
	for i := start + pieceBytes; i < len(text); i++ {
		switch text[i] {
		case ' ', '\n', '\t', '\r':
			return i
		}
	}
	return len(text)
}
