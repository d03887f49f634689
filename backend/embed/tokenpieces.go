package embed

import (
	"encoding/json"
	"strings"

	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
)

// Tokenising long texts in pieces.
//
// The tokenizer library's BERT pre-tokenizer recomputes every character's
// byte offset from the start of its text, so its cost grows with the
// square of the text's length: 8.9 ms of the 59 ms a 235-token passage
// cost at batch 8 on MiniLM-L6, whole. BenchmarkTokenIDs, a 1,157-byte
// passage: pieces of 256 bytes 1.45–1.7 ms, 64 bytes 0.6–0.7, 32 bytes
// 0.49–0.58, 16 bytes 0.48–0.53 (each call's own work takes over). In a
// BERT pipeline (normalizers that act on one character or one combining
// sequence at a time, a pre-tokenizer that splits at whitespace and
// punctuation, WordPiece) a text cut just before an ASCII whitespace or
// punctuation character gives the same tokens piece by piece as whole, so
// long texts are encoded in pieces of about pieceBytes. A word of ASCII
// letters and digits longer than WordPiece's max_input_chars_per_word
// (a hex dump, a key, a run of digits) is one unknown token whole, so it
// costs no tokenizer call at all: without that a 16 KB hex run took 1.7 s
// to count and 64 KB 25 s. Any other pipeline, and any text holding an
// added token's text (which may strip the whitespace next to it), is
// encoded whole.

const pieceBytes = 32

// pieceRule says which texts may be encoded piece by piece, and encodes
// them: nil for a tokenizer whose pipeline is not BERT's.
type pieceRule struct {
	added        []string // added tokens' texts, lower-cased
	clsID, sepID int      // the ids the post-processor wraps a text in
	// longWord is the byte length past which WordPiece reads a word as
	// unknown (max_input_chars_per_word; the library counts bytes, which
	// for ASCII are characters), and unkID that token; -1 when the
	// tokenizer did not read a long word so when probed.
	longWord, unkID int
}

// newPieceRule returns nil unless tokenizer.json describes a pipeline that
// tokenises pieces exactly as the whole. tok is the tokenizer it
// describes, set to add special tokens.
func newPieceRule(tokJSON []byte, tok *hftokenizer.Tokenizer) *pieceRule {
	var cfg struct {
		Normalizer   json.RawMessage `json:"normalizer"`
		PreTokenizer struct {
			Type string `json:"type"`
		} `json:"pre_tokenizer"`
		Model struct {
			Type         string `json:"type"`
			MaxInputChar int    `json:"max_input_chars_per_word"`
		} `json:"model"`
		AddedTokens []struct {
			Content string `json:"content"`
		} `json:"added_tokens"`
	}
	if json.Unmarshal(tokJSON, &cfg) != nil || cfg.PreTokenizer.Type != "BertPreTokenizer" || cfg.Model.Type != "WordPiece" ||
		!localNormalizer(cfg.Normalizer) {
		return nil
	}
	ends := tok.Encode("")
	if len(ends) != 2 {
		return nil
	}
	p := &pieceRule{clsID: ends[0], sepID: ends[1], longWord: cfg.Model.MaxInputChar, unkID: -1}
	if p.longWord <= 0 {
		p.longWord = 100 // the library's default, and BERT's
	}
	for _, a := range cfg.AddedTokens {
		if a.Content != "" {
			p.added = append(p.added, strings.ToLower(a.Content))
		}
	}
	// Probe the long-word rule rather than trust it: just past the limit
	// and well past it, a word must be the one unknown token.
	a := tok.Encode(strings.Repeat("a", p.longWord+1))
	b := tok.Encode(strings.Repeat("7f", 2*p.longWord))
	if len(a) == 3 && len(b) == 3 && a[1] == b[1] {
		p.unkID = a[1]
	}
	return p
}

// encode returns text's token ids as tok gives them for the whole text,
// special tokens included, tokenising long texts piece by piece.
func (p *pieceRule) encode(tok *hftokenizer.Tokenizer, text string) []int {
	if !p.applies(text) {
		return tok.Encode(text)
	}
	ids := []int{p.clsID}
	for start := 0; start < len(text); {
		end, unknown := p.nextPiece(text, start)
		if unknown {
			ids = append(ids, p.unkID)
		} else {
			ids = append(ids, p.inner(tok.Encode(text[start:end]))...)
		}
		start = end
	}
	return append(ids, p.sepID)
}

// inner drops the [CLS] … [SEP] the post-processor wraps a piece in.
func (p *pieceRule) inner(ids []int) []int {
	if len(ids) >= 2 && ids[0] == p.clsID && ids[len(ids)-1] == p.sepID {
		return ids[1 : len(ids)-1]
	}
	return ids
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

// nextPiece returns where the piece starting at start ends: just before
// the first ASCII whitespace or punctuation at least pieceBytes on, or
// before a long word, or the end of text. unknown says the piece is a long
// word: ASCII letters and digits from one word break to the next, more
// than longWord of them, which WordPiece reads as the unknown token.
func (p *pieceRule) nextPiece(text string, start int) (end int, unknown bool) {
	if n := p.longWordAt(text, start); n > 0 {
		return start + n, true
	}
	for i := start + 1; i < len(text); i++ {
		if !wordBreak(text[i-1]) {
			if wordBreak(text[i]) && i-start >= pieceBytes {
				return i, false
			}
			continue
		}
		// A word starts at i.
		if wordBreak(text[i]) && i-start >= pieceBytes || p.longWordAt(text, i) > 0 {
			return i, false
		}
	}
	return len(text), false
}

// longWordAt returns the length of the long word starting at i, or 0 when
// none does (see nextPiece). It reads the word once: callers only ask at
// a word's start.
func (p *pieceRule) longWordAt(text string, i int) int {
	if p.unkID < 0 || i > 0 && !wordBreak(text[i-1]) {
		return 0
	}
	k := i
	for k < len(text) && asciiAlnum(text[k]) {
		k++
	}
	if k-i <= p.longWord || k < len(text) && !wordBreak(text[k]) {
		return 0 // short, or the word goes on in other characters
	}
	return k - i
}

// wordBreak reports an ASCII byte the BERT pre-tokenizer splits words at:
// whitespace (the characters its normalizer keeps as such) or
// punctuation, which is a word of its own.
func wordBreak(c byte) bool {
	switch {
	case c == ' ' || c == '\n' || c == '\t' || c == '\r':
		return true
	case c >= 33 && c <= 47, c >= 58 && c <= 64, c >= 91 && c <= 96, c >= 123 && c <= 126:
		return true
	}
	return false
}

func asciiAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
