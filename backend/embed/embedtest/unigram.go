package embedtest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Unigram model: laid out like a multilingual sentence-transformers export
// (XLM-R style SentencePiece/Unigram tokenizer.json, <s> … </s> wrapping,
// query/passage prompts in config_sentence_transformers.json), so the
// multilingual loading path runs in tests.

// UnigramQueryPrefix and UnigramPassagePrefix are the prompts the Unigram
// model declares, as E5 models use them.
const (
	UnigramQueryPrefix   = "query: "
	UnigramPassagePrefix = "passage: "
)

var unigramSpecial = []string{"<s>", "<pad>", "</s>", "<unk>"}

// unigramWords are whole-word pieces (written with the ▁ word marker) in
// several scripts; other text falls back to single characters.
const unigramWords = `query passage : the of and to a in is how do i install app on linux invoice payment due
within thirty days budget meeting moved friday security policy password quarter children play music school
garden river old mill résumé café notes réunion facture paiement jours 한국어 문서 검색 설치 방법 회의 예산 보안 정책
비밀번호 학교 음악 日本語 文書 検索`

func unigramVocab() []string {
	seen := map[string]bool{}
	var vocab []string
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			vocab = append(vocab, t)
		}
	}
	for _, t := range unigramSpecial {
		add(t)
	}
	add("▁")
	for c := byte('!'); c <= '~'; c++ {
		add(string(c))
	}
	for _, w := range strings.Fields(unigramWords) {
		add("▁" + w)
		for _, r := range w {
			add(string(r))
		}
	}
	for _, w := range strings.Fields(commonWords) {
		add("▁" + w)
	}
	return vocab
}

// unigramPieces marshals as SentencePiece's [["piece", score], ...] list;
// longer pieces score higher, as real vocabularies roughly do.
type unigramPieces []string

func (v unigramPieces) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, t := range v {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := indentJSON(t)
		if err != nil {
			return nil, err
		}
		score := 0.0
		if i >= len(unigramSpecial) {
			score = -10 + float64(len([]rune(t)))
		}
		fmt.Fprintf(&buf, "[%s,%s]", bytes.TrimSpace(key), strconv.FormatFloat(score, 'f', 1, 64))
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

func unigramTokenizerJSON(vocab []string) ([]byte, error) {
	var added []addedToken
	for id, t := range unigramSpecial {
		added = append(added, addedToken{ID: id, Content: t, Special: true})
	}
	special := func(tok string) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": tok, "type_id": 0}}
	}
	doc := map[string]any{
		"version": "1.0",
		"truncation": map[string]any{
			"direction": "Right", "max_length": maxPositions, "strategy": "LongestFirst", "stride": 0,
		},
		"padding":      nil,
		"added_tokens": added,
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Precompiled", "precompiled_charsmap": nil},
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " {2,}"}, "content": " "},
			map[string]any{"type": "Lowercase"},
		}},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "WhitespaceSplit"},
			map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		}},
		"post_processor": map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{special("<s>"), map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, special("</s>")},
			"pair": []any{special("<s>"), map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, special("</s>"),
				special("</s>"), map[string]any{"Sequence": map[string]any{"id": "B", "type_id": 0}}, special("</s>")},
			"special_tokens": map[string]any{
				"<s>":  map[string]any{"id": "<s>", "ids": []int{0}, "tokens": []string{"<s>"}},
				"</s>": map[string]any{"id": "</s>", "ids": []int{2}, "tokens": []string{"</s>"}},
			},
		},
		"decoder": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		"model": map[string]any{
			"type": "Unigram", "unk_id": 3, "byte_fallback": false, "vocab": unigramPieces(vocab),
		},
	}
	return indentJSON(doc)
}

// WriteTinyUnigramModel writes a tiny multilingual-layout model into dir:
// the same one-layer encoder as WriteTinyModel over a Unigram vocabulary,
// with E5-style query and passage prompts.
func WriteTinyUnigramModel(dir string) error {
	vocab := unigramVocab()
	onnx, err := buildModel(len(vocab), []int{0, 1, 2})
	if err != nil {
		return fmt.Errorf("build tiny unigram model: %w", err)
	}
	tok, err := unigramTokenizerJSON(vocab)
	if err != nil {
		return err
	}
	config, err := indentJSON(map[string]any{
		"_name_or_path": "footnote-tiny-multilingual", "architectures": []string{"XLMRobertaModel"},
		"hidden_size": hiddenSize, "max_position_embeddings": maxPositions, "model_type": "xlm-roberta",
		"num_attention_heads": numHeads, "num_hidden_layers": 1, "pad_token_id": 1, "vocab_size": len(vocab),
	})
	if err != nil {
		return err
	}
	prompts, err := indentJSON(map[string]any{
		"prompts":             map[string]string{"query": UnigramQueryPrefix, "passage": UnigramPassagePrefix},
		"default_prompt_name": nil,
	})
	if err != nil {
		return err
	}
	return writeFolder(dir, []file{
		{"config.json", config},
		{"config_sentence_transformers.json", prompts},
		{"tokenizer.json", tok},
		{"model.onnx", onnx},
	})
}
