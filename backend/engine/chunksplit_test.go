package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/verify"
)

// plantedSentence is the browser E2E's first planted sentence: 219
// characters that the generated test model's 128-token chunks cut in two
// ("… must not hide the" | "words after it.").
const plantedSentence = "The Zanzibar ferry timetable is at [the ferry site](https://ferry.example.com/timetable?session=SECRET-TOKEN&user=me) " +
	"and <img src=x onerror=window.__pwned=1> marks it, while </script > must not hide the words after it."

// TestSentenceSplitAcrossChunks reproduces the chunk split that failed every
// newcomer's E2E, with the generated model, and holds what is true whatever
// the chunking: a model quoting each passage as far as it goes is grounded,
// and a model quoting the whole sentence while citing only the passage
// that holds its first part is not, for the words the passage lacks.
func TestSentenceSplitAcrossChunks(t *testing.T) {
	ctx := context.Background()
	emb, err := embed.Load(ctx, embedtest.TinyDir(t))
	if err != nil {
		t.Fatal(err)
	}
	lib := writeFiles(t, map[string]string{
		"ferry-notes.txt": plantedSentence + "\nBoats leave twice a day from the harbour.\n",
	})
	ask := func(model ollamafake.Responder) rag.Answer {
		t.Helper()
		fake := ollamafake.New(ollamafake.WithResponder(model))
		t.Cleanup(fake.Close)
		// Strict verification: the sentence citing half of it is refused,
		// not only marked (the default, warn).
		en := newEngineWith(t, fake.URL(), func(s *config.Settings) { s.Verification = "strict" }, WithEmbedder(emb))
		if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
			t.Fatal(err)
		}
		ans, err := en.Ask(ctx, rag.Request{ID: "q", Question: "Where is the Zanzibar ferry timetable?"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}

	quoting := ask(ollamafake.DefaultResponder)
	if len(quoting.Evidence) < 2 {
		t.Fatalf("the sentence must be cut across two passages for this test to mean anything; evidence: %+v", quoting.Evidence)
	}
	for _, ev := range quoting.Evidence {
		if strings.Contains(ev.Text, plantedSentence) {
			t.Fatalf("passage %d holds the whole sentence: the generated model no longer cuts it", ev.N)
		}
	}
	if !quoting.Grounded {
		t.Fatalf("each passage quoted as far as it goes must be grounded, got %v: %q %+v",
			quoting.RefusalReason, quoting.Answer, quoting.Verification)
	}

	// The whole sentence, citing the passage with its first part only: not
	// verified — partly supported at best, the reason naming the words the
	// passage lacks (a claim is graded by its facts, not all or nothing).
	whole := ask(ollamafake.CitingResponder(strings.TrimSuffix(plantedSentence, "."), "Zanzibar"))
	flagged := 0
	for _, c := range whole.Claims {
		switch c.Verdict {
		case verify.Supported:
			t.Errorf("the whole sentence citing half of it is supported: %q", c.Claim.Text)
		case verify.Partial, verify.Unsupported:
			flagged++
			if !strings.Contains(c.Reason, "words") || strings.Contains(c.Reason, "notes") {
				t.Errorf("the reason must name what the passage lacks (\"words\"), nothing else: %q", c.Reason)
			}
		}
	}
	if flagged == 0 {
		t.Errorf("no claim flagged: %+v", whole.Claims)
	}
}
