package rag

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/search"
)

type unreachableLLM struct{}

func (unreachableLLM) Chat(context.Context, *llm.ChatRequest, llm.ChatFunc) error {
	return fmt.Errorf("%w at http://127.0.0.1:11434: dial tcp: connection refused", llm.ErrUnreachable)
}

func TestBestSentenceJoinsWrappedLinesAndSkipsHeadings(t *testing.T) {
	text := "## Linux\n\nFootnote runs on Linux. To install it, download the AppImage and make it\nexecutable with chmod. Then run it.\n\n| a | b |"
	if got := bestSentence("How do I download and install it?", text); got != "To install it, download the AppImage and make it executable with chmod." {
		t.Errorf("best sentence = %q", got)
	}
}

// With no answer model reachable, the question is answered with the
// passages' best sentences, each cited, stored as no_answer_model and
// never grounded; the note says what to start. Any other model failure
// stays an error.
func TestNoAnswerModelAnswersWithPassages(t *testing.T) {
	st := &memStore{}
	a, b := hit("a", 0.9, 20), hit("b", 0.8, 20)
	a.Text = "Install notes.\n\nTo install on Linux, download the AppImage. Windows users run the installer."
	b.Text = "The installer for Windows is signed."
	a.Offsets.End, b.Offsets.End = len(a.Text), len(b.Text)
	p := newPipeline([]search.Hit{a, b}, unreachableLLM{}, st)
	p.Describe = func(err error) string { return "Ollama is not reachable. Start it with `ollama serve`." }
	ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "How do I install on Linux?"}, nil)
	if err != nil {
		t.Fatalf("no model must not be an error: %v", err)
	}
	if ans.RefusalReason == nil || *ans.RefusalReason != RefusalNoModel || ans.Grounded {
		t.Fatalf("reason %v grounded %v", ans.RefusalReason, ans.Grounded)
	}
	if want := "To install on Linux, download the AppImage. [#1]\n\nThe installer for Windows is signed. [#2]"; ans.Answer != want {
		t.Errorf("answer = %q, want %q", ans.Answer, want)
	}
	if len(ans.Citations) != 2 || !strings.HasPrefix(ans.Error, NoModelNotice) || !strings.Contains(ans.Error, "ollama serve") {
		t.Errorf("citations %d, note %q", len(ans.Citations), ans.Error)
	}
	if len(st.answers) != 1 || st.answers[0].RefusalReason != RefusalNoModel {
		t.Fatalf("not stored as a passages answer: %+v", st.answers)
	}
	if !IsRefusal(ans.Answer, ans.RefusalReason) {
		t.Error("the evaluator would count the passages as an answer")
	}

	// A model that fails for another reason is still an error.
	p = newPipeline([]search.Hit{a}, failingLLM{}, &memStore{})
	if _, err := p.Ask(context.Background(), Request{ID: "r2", Question: "How do I install on Linux?"}, nil); err == nil {
		t.Fatal("a failing model was answered with passages")
	}
}
