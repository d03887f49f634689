package engine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
)

func TestAnswerCacheHitBypassInvalidationAndAudit(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	lib := writeLibrary(t)
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	ask := func(id string, fresh bool) rag.Answer {
		t.Helper()
		req := rag.Request{ID: id, Question: "How do I install on Linux?"}
		var ans rag.Answer
		var err error
		if fresh {
			ans, err = en.AskWith(ctx, req, nil, AskOptions{Fresh: true})
		} else {
			ans, err = en.Ask(ctx, req, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	first := ask("q1", false)
	if !first.Grounded || first.Cache != nil || !first.Validation.OK {
		t.Fatalf("first answer: grounded=%v cache=%v validation=%+v", first.Grounded, first.Cache, first.Validation)
	}
	c := first.Citations[0]
	if c.IndexHash != en.IndexHash() || c.Analyzer == "" || c.ScoreRaw <= 0 || c.KPos == 0 || c.KFinal == 0 || c.DataTier != 1 || c.Stale {
		t.Fatalf("citation payload: %+v", c)
	}
	if first.Provenance.DerivationChain[0] != provenance.StepLexical || first.Provenance.DataTier != 1 {
		t.Fatalf("provenance: %+v", first.Provenance)
	}
	calls := len(fake.Requests())

	second := ask("q2", false)
	if second.Cache == nil || second.Cache.OriginalQuestion != first.Question || second.Cache.Similarity < 0.95 {
		t.Fatalf("second ask should be served from the cache: %+v", second.Cache)
	}
	if second.Provenance.DerivationChain[0] != provenance.StepCache || second.Answer != first.Answer || len(fake.Requests()) != calls {
		t.Fatalf("cached answer: chain %v, llm calls %d→%d", second.Provenance.DerivationChain, calls, len(fake.Requests()))
	}
	if stored, _, _ := en.index().AnswerByID(ctx, "ans_q2"); stored.ID == "" {
		t.Fatal("cached answer not stored")
	}

	if fresh := ask("q3", true); fresh.Cache != nil || len(fake.Requests()) != calls+1 {
		t.Fatal("ask fresh must bypass the cache")
	}
	en.SetCacheEnabled(false)
	if off := ask("q4", false); off.Cache != nil || len(fake.Requests()) != calls+2 {
		t.Fatal("a disabled cache must not serve answers")
	}
	en.SetCacheEnabled(true)

	// Any change to a cited document invalidates the entry.
	path := strings.TrimPrefix(first.Citations[0].Path, "")
	if err := os.WriteFile(path, []byte("# Installing\n\n## Linux\n\nTo install on Linux, use the tarball and run it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	if again := ask("q5", false); again.Cache != nil {
		t.Fatal("a changed document must invalidate the cached answer")
	}

	// Audit: one line per question and per segment, in the log and the table.
	log, err := os.ReadFile(filepath.Join(en.Config().Home, provenance.AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	// (Keys in the conventional order: deltaS, lambda and k follow seg;
	// kind comes after the conventional keys.)
	if !regexp.MustCompile(`qid=q1 seg=0 .* kind=question`).Match(log) || !regexp.MustCompile(`qid=q1 seg=1 .* kind=segment`).Match(log) ||
		!regexp.MustCompile(`qid=q2 seg=0 .* store=cache .* kind=question`).Match(log) || !strings.Contains(string(log), "index_hash="+en.IndexHash()) {
		t.Fatalf("audit log:\n%s", log)
	}
	rows, err := en.index().Traces(ctx, "q1")
	if err != nil || len(rows) < 2 || rows[1].Citations[0] != c.SnippetID {
		t.Fatalf("rag_traces: %+v %v", rows, err)
	}
}

func TestRefusalIsNotCached(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	q := rag.Request{ID: "r1", Question: "zzzz qqqq xxxx"}
	a, _ := en.Ask(ctx, q, nil)
	q.ID = "r2"
	b, _ := en.Ask(ctx, q, nil)
	if a.Grounded || b.Cache != nil {
		t.Fatalf("refusal served from the cache: %+v %+v", a.RefusalReason, b.Cache)
	}
}

// A previous answer with a fabricated claim exists in the store (as a stored
// answer and as a model-sourced text unit with a gen: id); a later question
// must never cite it.
func TestReentryGuardRejectsModelOutput(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, _ := newTestEngine(t, fake.URL())
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	claim := "Footnote was invented on the planet Mars by penguins in 1850."
	rec, _ := rag.Record(rag.Answer{ID: "ans_old", RequestID: "old", Question: "Who invented Footnote?", Answer: claim + " [#1]",
		Grounded: true, Citations: []rag.Citation{}, Evidence: []rag.Citation{}, CreatedAt: time.Now().Add(-time.Hour)})
	if err := en.index().SaveAnswer(ctx, rec); err != nil {
		t.Fatal(err)
	}
	created := time.Now().Add(-time.Hour).UTC()
	// The store refuses reserved (gen:) ids outright, so a unit can only get
	// in under an ordinary id with a non-corpus source.
	bad := corpus.Document{DocID: "gen:ans_old", Path: "/chat/gen", Title: "x", Format: "txt", Rev: "r", Text: claim,
		Sections: []corpus.Section{{SectionID: "s", End: len([]rune(claim))}},
		Chunks: []corpus.Chunk{{SnippetID: "gen:ans_old#1", DocID: "gen:ans_old", SectionID: "s", Text: claim,
			Offsets: corpus.Offsets{Start: 0, End: len([]rune(claim)), Unit: corpus.UnitChar}, Tokens: 12, Source: corpus.SourceModel}}}
	if err := en.index().PutDocument(ctx, bad, [][]float32{make([]float32, en.embedder.Info().Dim)}, en.EmbedModel()); err == nil {
		t.Fatal("the store accepted a gen: unit")
	}
	doc := corpus.Document{DocID: "doc_prev_answer", Path: "/chat/ans_old", Title: "previous answer", Format: "txt", Rev: "r",
		Text: claim, Collection: "chat", Sections: []corpus.Section{{SectionID: "answer", Title: "answer", End: len([]rune(claim))}},
		Chunks: []corpus.Chunk{{SnippetID: "snip_prev_answer", DocID: "doc_prev_answer", SectionID: "answer", Text: claim,
			Offsets: corpus.Offsets{Start: 0, End: len([]rune(claim)), Unit: corpus.UnitChar}, Tokens: 12,
			Source: corpus.SourceModel, CreatedAt: created}}}
	vecs, err := en.embedder.EmbedPassages(ctx, []string{claim})
	if err != nil {
		t.Fatal(err)
	}
	if err := en.index().PutDocument(ctx, doc, vecs, en.EmbedModel()); err != nil {
		t.Fatal(err)
	}
	ans, err := en.Ask(ctx, rag.Request{ID: "new", Question: "Who invented Footnote on the planet Mars with penguins?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(append([]rag.Citation{}, ans.Evidence...), ans.Nearest...) {
		if c.Source != corpus.SourceCorpus || corpus.HasReservedPrefix(c.SnippetID) || strings.Contains(c.Text, "penguins") {
			t.Fatalf("model output reached the evidence: %+v", c)
		}
	}
	// The auditor rejects it again at the chain boundary if it ever gets that far.
	forged := rag.Citation{N: 1, SnippetID: "gen:ans_old#1", DocID: "gen:ans_old", Source: corpus.SourceModel}
	if issues := provenance.AuditEvidence(rag.Payloads([]rag.Citation{forged}), time.Now()); len(issues) != 1 || issues[0].Code != provenance.CodeNonCorpusEvidence {
		t.Fatalf("auditor: %+v", issues)
	}
}

// TestCacheMissEmbedsTheQuestionOnce: the cache lookup and retrieval need
// the same question vector; the model should compute it once.
func TestCacheMissEmbedsTheQuestionOnce(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en, counting := newTestEngine(t, fake.URL())
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	if !en.CacheEnabled() {
		t.Fatal("setup: the answer cache is off by default")
	}
	counting.mu.Lock()
	before := counting.queries
	counting.mu.Unlock()
	ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: "Which port does the server use?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Cache != nil {
		t.Fatal("setup: the first question was answered from the cache")
	}
	counting.mu.Lock()
	defer counting.mu.Unlock()
	if n := counting.queries - before; n != 1 {
		t.Fatalf("question embedded %d times, want once", n)
	}
}
