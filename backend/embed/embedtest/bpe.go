package embedtest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Byte-level BPE vocabulary laid out like a RoBERTa export: GPT-2's byte
// alphabet (a space is "Ġ"), <s> <pad> </s> <unk> first and <mask> last,
// and merges ranked so that every listed word, with and without its
// leading space and capitalised, encodes to one token. Other text falls
// back to shorter pieces, down to single bytes, as with a real vocabulary.

var bpeSpecial = []string{"<s>", "<pad>", "</s>", "<unk>"}

const bpeMask = "<mask>"

// bpePadID is RoBERTa's padding id, from which position ids are counted.
const bpePadID = 1

// byteAlphabet is GPT-2's bytes_to_unicode table: printable bytes stand
// for themselves, the others for code points from 256 up.
func byteAlphabet() [256]rune {
	var out [256]rune
	next := rune(256)
	for b := range 256 {
		printable := b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE
		if printable {
			out[b] = rune(b)
		} else {
			out[b] = next
			next++
		}
	}
	return out
}

// bpeVocab is a byte-level BPE vocabulary: tokens in id order and merges
// in rank order ("left right").
type bpeVocab struct {
	tokens []string
	merges []string
}

// buildBPE builds the vocabulary over commonWords. Each word's merges are
// added after all earlier ones, continuing from the pieces the earlier
// merges leave it in, so adding a word never changes how an earlier one
// encodes.
func buildBPE() bpeVocab {
	v := bpeVocab{}
	seen := map[string]bool{}
	add := func(tok string) {
		if !seen[tok] {
			seen[tok] = true
			v.tokens = append(v.tokens, tok)
		}
	}
	for _, t := range bpeSpecial {
		add(t)
	}
	alphabet := byteAlphabet()
	for _, r := range alphabet {
		add(string(r))
	}
	rank := map[string]int{}
	space := string(alphabet[' '])
	for _, w := range strings.Fields(commonWords) {
		title := string(unicode.ToUpper(rune(w[0]))) + w[1:]
		for _, form := range []string{space + w, w, space + title, title} {
			pieces := bpeEncode(form, rank)
			for len(pieces) > 1 {
				merge := pieces[0] + " " + pieces[1]
				rank[merge] = len(v.merges)
				v.merges = append(v.merges, merge)
				joined := pieces[0] + pieces[1]
				add(joined)
				pieces = append([]string{joined}, pieces[2:]...)
			}
		}
	}
	add(bpeMask)
	return v
}

// bpeEncode splits word (already in the byte alphabet) into pieces with
// the merges ranked so far, lowest rank first, as the tokenizer does.
func bpeEncode(word string, rank map[string]int) []string {
	pieces := make([]string, 0, utf8.RuneCountInString(word))
	for _, r := range word {
		pieces = append(pieces, string(r))
	}
	for len(pieces) > 1 {
		best, at := -1, -1
		for i := 0; i+1 < len(pieces); i++ {
			if r, ok := rank[pieces[i]+" "+pieces[i+1]]; ok && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		pieces[at] += pieces[at+1]
		pieces = append(pieces[:at+1], pieces[at+2:]...)
	}
	return pieces
}

// bpeTokenizerJSON lays the vocabulary out as RoBERTa's tokenizer.json:
// no normaliser, ByteLevel pre-tokenizer without an added prefix space,
// and RobertaProcessing (<s> A </s></s> B </s>).
func bpeTokenizerJSON(v bpeVocab) ([]byte, error) {
	var added []addedToken
	for id, t := range bpeSpecial {
		added = append(added, addedToken{ID: id, Content: t, Special: true})
	}
	added = append(added, addedToken{ID: len(v.tokens) - 1, Content: bpeMask, LStrip: true, Special: true})
	byteLevel := map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}
	return indentJSON(map[string]any{
		"version":       "1.0",
		"truncation":    nil,
		"padding":       nil,
		"added_tokens":  added,
		"normalizer":    nil,
		"pre_tokenizer": byteLevel,
		"post_processor": map[string]any{
			"type": "RobertaProcessing", "sep": []any{"</s>", 2}, "cls": []any{"<s>", 0},
			"trim_offsets": true, "add_prefix_space": false,
		},
		"decoder": byteLevel,
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false,
			"vocab": orderedVocab(v.tokens), "merges": v.merges,
		},
	})
}
