package rag

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/verify"
)

// TestServerLengthCutIsIncompleteAndItsLastSentenceNoClaim: a server that
// ends the answer with done_reason / finish_reason "length" before the
// length it was asked for leaves it incomplete: stored so, with its own
// reason and a note saying the server's limit cut it, and the sentence it
// broke off is not checked as a claim.
func TestServerLengthCutIsIncompleteAndItsLastSentenceNoClaim(t *testing.T) {
	const text = "The guide covers passage a [#1]. Then you open the"
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			fake := ollamafake.New(ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
				return ollamafake.Reply{Tokens: ollamafake.Words(text), DoneReason: "length"}
			}))
			t.Cleanup(fake.Close)
			p, st := providerPipeline(t, provider, fake.URL())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ans, err := p.Ask(ctx, Request{ID: "q1", Question: "What does the guide cover?"}, nil)
			if err != nil {
				t.Fatalf("ask: %v", err)
			}
			stored, err := FromRecord(st.answers[0])
			if err != nil {
				t.Fatal(err)
			}
			for name, a := range map[string]Answer{"returned": ans, "stored": stored} {
				if !a.Incomplete || a.RefusalReason == nil || *a.RefusalReason != RefusalLengthLimit ||
					!strings.Contains(a.Error, "cut the answer off at its own length limit") || a.Usage.DoneReason != "length" {
					t.Errorf("%s: incomplete=%v reason %v note %q done_reason %q", name, a.Incomplete, a.RefusalReason, a.Error, a.Usage.DoneReason)
				}
				if len(a.Claims) != 2 || a.Claims[0].Claim.NonClaim != "" || a.Claims[1].Claim.NonClaim != verify.NotUnfinished {
					t.Errorf("%s claims: %+v", name, a.Claims)
				}
			}
		})
	}
}

// TestWindowCutNoteNamesTheWindow: when the window left less than
// max_answer_tokens, the answer is cut where the window ends, and its note
// says that limit (not the setting's) in one sentence.
func TestWindowCutNoteNamesTheWindow(t *testing.T) {
	words := func(s string) int { return len(strings.Fields(s)) }
	model := &scriptedLLM{tokens: ollamafake.Words(strings.Repeat("more words here ", 200))}
	st := &memStore{}
	p := newPipeline([]search.Hit{hit("a", 0.9, 20)}, model, st)
	p.Window = func(context.Context, string) llm.ContextWindow {
		return llm.ContextWindow{Tokens: 400, Source: "decided"}
	}
	p.CountTokens, p.MaxAnswerTokens, p.AnswerReserve = words, 1024, 100
	ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := ans.Generation.NumPredict
	want := "The answer was cut off after " + itoa(n) + " tokens, all that the model's 400-token context window left after the question and passages, " +
		"so it is incomplete; ask a narrower question, or give the model a larger window (num_ctx)."
	if n <= 0 || n >= 1024 || !ans.Incomplete || *ans.RefusalReason != RefusalLengthLimit || ans.Error != want {
		t.Errorf("num_predict %d, incomplete %v, reason %v, note %q", n, ans.Incomplete, *ans.RefusalReason, ans.Error)
	}
}
