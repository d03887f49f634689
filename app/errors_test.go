package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// Errors reaching the UI keep their cause all the way: the bound methods
// (and the engine under them) return the sentence the user reads, and
// errors.Is still finds what happened underneath it. FormatError is where
// it becomes text, and the text is unchanged.
func TestBoundErrorsKeepTheirCause(t *testing.T) {
	fake := ollamafake.New()
	a, _, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	fake.Close()

	_, err := a.Models()
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("Models with Ollama down: %v (is ErrUnreachable: %v)", err, errors.Is(err, llm.ErrUnreachable))
	}
	err = a.PullModel("llama3.2:3b")
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("PullModel with Ollama down: %v (is ErrUnreachable: %v)", err, errors.Is(err, llm.ErrUnreachable))
	}
	if text, _ := FormatError(err).(string); !strings.HasPrefix(text, "Ollama is not reachable") {
		t.Errorf("FormatError changed the sentence: %q", text)
	}

	_, err = a.OpenDocument("no-such-document")
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "no longer in the index") {
		t.Errorf("OpenDocument of a missing id: %v (is ErrNotFound: %v)", err, errors.Is(err, store.ErrNotFound))
	}
	err = a.OpenOriginal("no-such-document")
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("OpenOriginal of a missing id: %v", err)
	}

	// With the model server down the question is answered with the
	// matching passages; the stored note keeps the server's sentence.
	ans, err := a.engine.Ask(context.Background(), rag.Request{ID: "down", Question: "How do I install on Linux?"}, nil)
	if err != nil || ans.RefusalReason == nil || *ans.RefusalReason != engine.RefusalNoModel || !strings.Contains(ans.Error, "Ollama is not reachable") {
		t.Errorf("Ask with Ollama down: %v, reason %v, stored note %q", err, ans.RefusalReason, ans.Error)
	}
}
