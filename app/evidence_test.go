package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// The Library lists a saved chat as kept out of evidence with the reason,
// and the app's override turns it into a document and back.
func TestCollectionFilesShowKeptOutChatAndOverride(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, _, _ := newTestApp(t, fake)
	lib := t.TempDir()
	chat := filepath.Join(lib, "assistant: notes.md")
	if err := os.WriteFile(chat, []byte("assistant: The upload limit is 40 MB [#1]. citations: [#1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "doc.md"), []byte("# Doc\n\nThe upload limit is 20 MB.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddFolder("notes", lib); err != nil {
		t.Fatal(err)
	}
	status := func() map[string]FileStatus {
		t.Helper()
		files, err := a.CollectionFiles("notes")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]FileStatus{}
		for _, f := range files {
			out[filepath.Base(f.Path)] = f
		}
		return out
	}
	files := status()
	c := files["assistant: notes.md"].ContentCheck
	if c == nil || c.Overridden || !strings.Contains(c.Reason, "chat") || files["assistant: notes.md"].Status != FileIndexed {
		t.Fatalf("chat file status: %+v (check %+v)", files["assistant: notes.md"], c)
	}
	if files["doc.md"].ContentCheck != nil {
		t.Errorf("an ordinary document is marked: %+v", files["doc.md"].ContentCheck)
	}
	if _, err := a.TreatAsDocument(chat, true); err != nil {
		t.Fatal(err)
	}
	if c := status()["assistant: notes.md"].ContentCheck; c == nil || !c.Overridden {
		t.Fatalf("after the override: %+v", c)
	}
	if _, err := a.TreatAsDocument(chat, false); err != nil {
		t.Fatal(err)
	}
	if c := status()["assistant: notes.md"].ContentCheck; c == nil || c.Overridden {
		t.Fatalf("after undoing the override: %+v", c)
	}
}
