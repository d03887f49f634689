package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The embedder and the reranker (backend/rerank) both load a Hugging Face
// ONNX export — ModelFile + TokenizerFile, optionally config.json — so the
// folder checks, the token limit and the model identity live here once.

// CheckModelFolder gives one actionable sentence for the common setup
// mistakes with a model folder. what names the model in the message
// ("embedding model"); fix says what to do.
func CheckModelFolder(dir, what, fix string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s folder %s does not exist; %s", what, dir, fix)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s path %s is not a folder; %s", what, dir, fix)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s folder %s cannot be read (%v); %s", what, dir, err, fix)
	}
	for _, e := range entries {
		// hugot opens model files through a sandbox that rejects links.
		if e.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s folder %s contains a symbolic link (%s), which the model loader refuses; copy the real file into the folder", what, dir, e.Name())
		}
	}
	for _, name := range []string{ModelFile, TokenizerFile} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("%s folder %s has no %s; %s", what, dir, name, fix)
		}
	}
	return nil
}

// ModelTokenLimit is the most tokens the model in dir takes: the smallest
// of the tokenizer's truncation length, config.json's position count and
// hardMaxTokens.
func ModelTokenLimit(dir string, tokenizerJSON []byte) int {
	return maxTokens(tokenizerJSON, readModelConfig(dir).MaxPositionEmbeddings)
}

// ModelID names the model in dir by its folder and the first 8 hex digits
// of ModelFile's sha256, so a swapped model file changes the name.
func ModelID(dir string) (string, error) {
	path := filepath.Join(dir, ModelFile)
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hash := sha256.New()
	if _, err := io.Copy(hash, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return filepath.Base(filepath.Clean(dir)) + "@" + hex.EncodeToString(hash.Sum(nil))[:8], nil
}
