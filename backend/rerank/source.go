package rerank

import "github.com/footnote-app/footnote/backend/embed"

// NLIModel names the public entailment model `footnote model download
// --verify` fetches, and the folder it goes to by default.
const NLIModel = "nli-MiniLM2-L6-H768"

// nliRevision pins the model's files to one commit of its repository, so
// every download gets the same bytes (the one that reverted an accidental
// change to config.json and the tokenizer).
const nliRevision = "b95119ce93d3e065de6214e38cd4a97b0f2f2c6d"

// NLISource is cross-encoder/nli-MiniLM2-L6-H768 on Hugging Face
// (Apache-2.0): a MiniLMv2 cross-encoder distilled from RoBERTa-large (6
// layers, hidden 768, 82 M parameters) trained on SNLI and MultiNLI, whose
// three labels are contradiction, entailment and neutral. Its fp32 ONNX
// export is about 330 MB. No digests are pinned: Hugging Face sends each
// LFS file's sha256 as its ETag, which embed.Download checks.
func NLISource() embed.Source {
	const base = "https://huggingface.co/cross-encoder/" + NLIModel + "/resolve/" + nliRevision + "/"
	files := []embed.File{{Name: ModelFile, URL: base + "onnx/model.onnx"}}
	for _, name := range []string{TokenizerFile, "config.json", "special_tokens_map.json", "tokenizer_config.json"} {
		files = append(files, embed.File{Name: name, URL: base + name})
	}
	return embed.Source{Name: "cross-encoder/" + NLIModel, Files: files}
}
