package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

// TestAnswerLengthSettingEndToEnd: max_answer_tokens reaches the server of
// either provider as its limit, and an endless answer from a server that
// ignores it is stopped there and stored as incomplete with the note.
func TestAnswerLengthSettingEndToEnd(t *testing.T) {
	const limit = 30
	for _, provider := range []string{config.ProviderOllama, config.ProviderOpenAI} {
		t.Run(provider, func(t *testing.T) {
			fake := ollamafake.New(ollamafake.WithEndlessReply())
			t.Cleanup(fake.Close)
			en := faultEngine(t, fake.URL(), func(s *config.Settings) {
				s.MaxAnswerTokens = limit
				s.Provider, s.OpenAIBaseURL = provider, fake.URL()
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sink := &tokens{}
			ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: question}, sink)
			if err != nil {
				t.Fatalf("ask: %v", err)
			}
			rec, found, err := en.index().AnswerByID(context.Background(), ans.ID)
			if err != nil || !found {
				t.Fatalf("answer not stored: %v", err)
			}
			stored, err := rag.FromRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			if !stored.Incomplete || !strings.Contains(stored.Error, "answer-length limit of 30 tokens") || len(sink.got) != limit {
				t.Errorf("stored incomplete=%v note %q after %d tokens", stored.Incomplete, stored.Error, len(sink.got))
			}
			reqs := fake.Requests()
			if len(reqs) == 0 || fmt.Sprint(reqs[len(reqs)-1].Options["num_predict"]) != fmt.Sprint(limit) {
				t.Errorf("limit not sent: %+v", reqs)
			}
			wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer wcancel()
			if err := fake.WaitCancelled(wctx, 1); err != nil {
				t.Errorf("server not cancelled: %v", err)
			}
		})
	}
}
