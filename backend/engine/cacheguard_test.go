package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

// sameQueryVector embeds every question as the same text. A real sentence
// embedder put "Which cartridge does model A-100 use?" and "What does error
// 52 mean on model A-100?" at 0.97 (issue 17); here every pair of questions
// passes the similarity threshold, so only the cache's other rules can tell
// them apart. Passages are embedded as usual.
type sameQueryVector struct{ embed.Embedder }

func (s sameQueryVector) EmbedQuery(ctx context.Context, _ string) ([]float32, error) {
	return s.Embedder.EmbedQuery(ctx, "model A-100")
}

// The title carries a line of its own: a bare heading would join the
// cartridge section (chunker v2), and the test is about the answer cache.
const printerManual = "# A-100 printer manual\n\nService notes for model A-100.\n\n## Cartridges\n\n" +
	"The A-100 uses the C-20 black cartridge and the C-21 colour cartridge.\n\n## Error codes\n\n" +
	"Error 52 means the paper tray is empty; refill it and press Resume.\n\n" +
	"Error 71 means the fuser is too hot; switch the printer off for ten minutes.\n"

// askQuestion asks through the engine and fails the test on an error.
func askQuestion(t *testing.T, en *Engine, id, question string) rag.Answer {
	t.Helper()
	ans, err := en.Ask(context.Background(), rag.Request{ID: id, Question: question}, nil)
	if err != nil {
		t.Fatalf("ask %q: %v", question, err)
	}
	return ans
}

// The example, end to end: the answer model is the fake Ollama's
// default responder, which sees only the prompt (it quotes and cites the
// evidence it was given) and knows nothing of the questions.
func TestNearDuplicateQuestionIsAnsweredFresh(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en := newEngineWith(t, fake.URL(), nil, WithEmbedder(sameQueryVector{loadTestEmbedder(t)}))
	if _, err := en.Ingest(context.Background(), []string{writeFiles(t, map[string]string{"a100.md": printerManual})}, nil); err != nil {
		t.Fatal(err)
	}
	first := askQuestion(t, en, "q1", "Which cartridge does model A-100 use?")
	if !first.Grounded || first.Cache != nil {
		t.Fatalf("setup: first answer grounded=%v cache=%+v reason=%v verification=%+v answer=%q", first.Grounded, first.Cache, first.RefusalReason, first.Verification, first.Answer)
	}
	calls := len(fake.Requests())

	second := askQuestion(t, en, "q2", "What does error 52 mean on model A-100?")
	if second.Cache != nil {
		t.Fatalf("another question was served from the cache: %+v\nanswer: %s", second.Cache, second.Answer)
	}
	if len(fake.Requests()) != calls+1 || second.Answer == first.Answer {
		t.Fatalf("the second question was not answered fresh (model calls %d→%d): %s", calls, len(fake.Requests()), second.Answer)
	}
	if !strings.Contains(second.Answer, "Error 52 means the paper tray is empty") {
		t.Errorf("the fresh answer does not answer it: %s", second.Answer)
	}

	// A real paraphrase of the first question is still served from the
	// cache, disclosing what matched.
	calls = len(fake.Requests())
	third := askQuestion(t, en, "q3", "Could you tell me which cartridge model A-100 uses?")
	c := third.Cache
	if c == nil || c.OriginalQuestion != first.Question || len(fake.Requests()) != calls {
		t.Fatalf("the paraphrase was not served from the cache: %+v", c)
	}
	m := c.Matched
	if m == nil || !m.Similarity || !m.SameAsk || !m.Passages || !m.SameIndex || !m.Revisions ||
		m.PassagesCited != len(first.Citations) || strings.Join(m.Shared, ",") != "identifier A-100" {
		t.Fatalf("matched: %+v", m)
	}
	if stored, found, err := en.index().AnswerByID(context.Background(), third.ID); err != nil || !found {
		t.Fatalf("cached answer not stored: %v", err)
	} else if a, err := rag.FromRecord(stored); err != nil || a.Cache == nil || a.Cache.Matched == nil || !a.Cache.Matched.SameAsk {
		t.Fatalf("the stored answer lost what matched: %+v %v", a.Cache, err)
	}
}

// The same question, with every cited document unchanged, is answered fresh
// when its own retrieval no longer packs the passage the cached answer
// cited (here a new document now ranks first and one passage is packed).
func TestCachedAnswerNeedsItsPassagesRetrievedAgain(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en := newEngineWith(t, fake.URL(), func(s *config.Settings) {
		s.EvidenceK, s.RetrievalMode = 1, "lexical"
	}, WithEmbedder(sameQueryVector{loadTestEmbedder(t)}))
	lib := writeFiles(t, map[string]string{"a100.md": printerManual})
	if _, err := en.Ingest(context.Background(), []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	first := askQuestion(t, en, "q1", "Which cartridge does model A-100 use?")
	if !first.Grounded || len(first.Citations) != 1 {
		t.Fatalf("setup: %+v", first.Citations)
	}
	notice := "# Cartridge notice\n\nModel A-100 cartridge change: which cartridge the A-100 uses is now the C-30 cartridge, for every model A-100.\n"
	if err := os.WriteFile(filepath.Join(lib, "notice.md"), []byte(notice), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := en.Ingest(context.Background(), []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	calls := len(fake.Requests())
	again := askQuestion(t, en, "q2", "Which cartridge does model A-100 use?")
	if again.Cache != nil || len(fake.Requests()) != calls+1 {
		t.Fatalf("served from the cache although retrieval now packs another passage: %+v", again.Cache)
	}
	if len(again.Citations) != 1 || !strings.Contains(again.Citations[0].Text, "C-30") {
		t.Fatalf("setup: the new document was not packed first: %+v", again.Citations)
	}
}
