package embedtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

func TestWriteTinyModelDeterministicAndIdempotent(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, dir := range []string{a, b} {
		if err := WriteTinyModel(dir); err != nil {
			t.Fatal(err)
		}
	}
	fa, fb := readAll(t, a), readAll(t, b)
	want := []string{"config.json", "model.onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt"}
	for _, name := range want {
		if len(fa[name]) == 0 {
			t.Errorf("%s missing or empty", name)
		}
		if !bytes.Equal(fa[name], fb[name]) {
			t.Errorf("%s differs between two generations", name)
		}
	}
	if len(fa) != len(want) {
		t.Errorf("folder holds %d files, want %d (no temp files left)", len(fa), len(want))
	}

	// Unchanged files are not rewritten; a damaged one is restored.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, name := range want {
		if err := os.Chtimes(filepath.Join(a, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(a, "vocab.txt"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteTinyModel(a); err != nil {
		t.Fatal(err)
	}
	for _, name := range want {
		st, err := os.Stat(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		if rewritten := !st.ModTime().Equal(old); rewritten != (name == "vocab.txt") {
			t.Errorf("%s rewritten = %v", name, rewritten)
		}
	}
	if got := readAll(t, a)["vocab.txt"]; !bytes.Equal(got, fb["vocab.txt"]) {
		t.Error("damaged vocab.txt was not restored")
	}
}

func TestVocabulary(t *testing.T) {
	vocab := vocabulary()
	if len(vocab) < 1000 || len(vocab) > 5000 {
		t.Errorf("vocabulary has %d tokens, want a few thousand", len(vocab))
	}
	for i, tok := range specialTokens {
		if vocab[i] != tok {
			t.Errorf("id %d = %q, want %q", i, vocab[i], tok)
		}
	}
	seen := map[string]bool{}
	for _, tok := range vocab {
		if seen[tok] {
			t.Errorf("duplicate token %q", tok)
		}
		seen[tok] = true
	}
	for _, tok := range []string{"a", "##z", "7", "##7", ".", "document", "install", "##ing", "\u1112", "##\u1161"} {
		if !seen[tok] {
			t.Errorf("vocabulary lacks %q", tok)
		}
	}
	if strings.ContainsAny(strings.Join(vocab[len(specialTokens):], ""), "ABCXYZ") {
		t.Error("vocabulary holds capitals the normaliser never produces")
	}
}

func TestDir(t *testing.T) {
	t.Setenv(ModelSrcEnv, "")
	dir := Dir(t)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Fatal(err)
	}
	if again := Dir(t); again != dir {
		t.Errorf("second Dir = %s, want %s", again, dir)
	}
	src := t.TempDir()
	if err := WriteTinyModel(src); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ModelSrcEnv, src)
	if got := Dir(t); got != src {
		t.Errorf("Dir with %s set = %s, want %s", ModelSrcEnv, got, src)
	}
}
