package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// TestModelDownloadRefusesUserFolder: `footnote model download` (of the
// embedding or, with --verify, the entailment model) into a folder holding
// the user's files, or into a model folder set up by hand, is refused before
// anything is fetched and leaves the folder as it was.
func TestModelDownloadRefusesUserFolder(t *testing.T) {
	setup(t, "127.0.0.1:1")
	docs := t.TempDir()
	files := map[string]string{"thesis.docx": "draft 7", "data/results.csv": "a,b\n1,2\n"}
	for name, body := range files {
		path := filepath.Join(docs, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		dir  string
	}{
		{"--dir", []string{"model", "download", "--dir", docs}, docs},
		{"the configured folder", []string{"model", "download"}, embedtest.Dir(t)},
		{"--verify --dir", []string{"model", "download", "--verify", "--dir", docs}, docs},
		{"the configured entailment model folder", []string{"model", "download", "--verify"}, docs},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(config.EnvVerifyModel, docs)
			before := listing(t, c.dir)
			code, _, errOut := runCLI(t, c.args...)
			if code == 0 {
				t.Fatal("model download into a folder with other files succeeded")
			}
			for _, want := range []string{c.dir, "empty or new folder", "--dir"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q does not mention %q", errOut, want)
				}
			}
			if after := listing(t, c.dir); after != before {
				t.Errorf("folder changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// listing describes every file under dir with its size and content.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(path + " " + info.Mode().String() + " " + info.ModTime().String())
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b.WriteString(" " + string(data))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
