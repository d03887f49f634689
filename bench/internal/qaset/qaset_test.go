package qaset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadNamesFileAndProblem(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "extract.json")
	if err := os.WriteFile(path, []byte(`{"paragraphs":[{"id":"a","text":"x"}],"questions":[{"id":"q1","question":"x?","paragraph":"b"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("err = %v, want one naming the file and the unknown paragraph", err)
	}
}

// The committed SQuAD 2.0 extracts keep their unanswerable questions, and
// Answerable leaves them out for the retrieval measures.
func TestSQuAD2ExtractsHaveBothKinds(t *testing.T) {
	for _, set := range []string{"squad2", "squad2-holdout", "squad2-holdout-rest", "squad2-fresh"} {
		x, err := Load(filepath.Join("..", "..", "data", set, "extract.json"))
		if err != nil {
			t.Fatal(err)
		}
		a := x.Answerable()
		un := len(x.Questions) - len(a.Questions)
		if len(a.Questions) < 200 || un < 200 {
			t.Errorf("%s: %d answerable and %d unanswerable questions, want at least 200 of each", set, len(a.Questions), un)
		}
		for _, q := range a.Questions {
			if q.Unanswerable {
				t.Fatalf("%s: Answerable kept %s", set, q.ID)
			}
		}
	}
}
