package embedtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// CopyFolder copies the files of the model folder src into a new folder
// under tb.TempDir(), named like src, for a test to change.
func CopyFolder(tb testing.TB, src string) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		tb.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dst
}

// SetLabels replaces config.json's id2label in the model folder dir.
func SetLabels(tb testing.TB, dir string, id2label map[string]string) {
	tb.Helper()
	path := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		tb.Fatal(err)
	}
	cfg["id2label"] = id2label
	if data, err = json.Marshal(cfg); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}
