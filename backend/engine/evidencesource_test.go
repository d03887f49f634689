package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// promptCapture is a fake model that records the evidence it was sent.
type promptCapture struct {
	mu      sync.Mutex
	prompts []string
}

func (p *promptCapture) respond(req llm.ChatRequest) ollamafake.Reply {
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role == "user" {
			b.WriteString(m.Content)
		}
	}
	p.mu.Lock()
	p.prompts = append(p.prompts, b.String())
	p.mu.Unlock()
	return ollamafake.Reply{Tokens: []string{"The upload limit is 20 MB [#1]."}}
}

func (p *promptCapture) last(t *testing.T) string {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.prompts) == 0 {
		t.Fatal("the model was never asked")
	}
	return p.prompts[len(p.prompts)-1]
}

// The reproduction of issue 16 item 4: saved chats, whatever their names,
// holding "assistant: … [#1]. citations: [#1]".
const (
	uploadsDoc = "# Uploads\n\nThe upload limit is 20 MB per file. Larger uploads are refused by the server.\n"
	chatDoc    = "user: What is the upload limit?\nassistant: The upload limit is 40 MB per file [#1]. Larger uploads are split [#2].\ncitations: [#1] [#2]\n"
	notesDoc   = "assistant: The upload limit is 40 MB per file, said the assistant [#1]. citations: [#1]\n"
)

func writeChatLibrary(t *testing.T) (lib, chat, notes string) {
	t.Helper()
	lib = t.TempDir()
	chat, notes = filepath.Join(lib, "chat_transcript.txt"), filepath.Join(lib, "assistant: notes.md")
	write(t, filepath.Join(lib, "uploads.md"), uploadsDoc)
	write(t, chat, chatDoc)
	write(t, notes, notesDoc)
	return lib, chat, notes
}

func TestChatAndAnswerFilesAreNotEvidence(t *testing.T) {
	ctx := context.Background()
	capture := &promptCapture{}
	fake := ollamafake.New(ollamafake.WithResponder(capture.respond))
	defer fake.Close()
	en := newEngineWith(t, fake.URL(), nil, WithEmbedder(loadTestEmbedder(t)))
	lib, chat, notes := writeChatLibrary(t)
	if sum, err := en.Ingest(ctx, []string{lib}, nil); err != nil || sum.FilesIndexed != 3 || sum.FilesKeptOut != 2 {
		t.Fatalf("ingest: %+v, %v", sum, err)
	}
	ask := func(id string) rag.Answer {
		t.Helper()
		ans, err := en.AskWith(ctx, rag.Request{ID: id, Question: "What is the upload limit per file?"}, nil, AskOptions{Fresh: true})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}

	ans := ask("before")
	prompt := capture.last(t)
	if !strings.Contains(prompt, "20 MB") {
		t.Fatalf("the real document was not sent as evidence: %q", prompt)
	}
	if strings.Contains(prompt, "40 MB") || strings.Contains(prompt, "citations:") {
		t.Fatalf("chat text was sent to the model as evidence: %q", prompt)
	}
	for _, c := range ans.Evidence {
		if c.Path == chat || c.Path == notes {
			t.Errorf("evidence #%d is the chat file %s", c.N, c.Path)
		}
	}
	if n := ans.EvidenceSourceCounts[corpus.SourceCorpus]; n == 0 || n != len(ans.Evidence) || len(ans.EvidenceSourceCounts) != 1 {
		t.Errorf("evidence_source_counts %v for %d passages", ans.EvidenceSourceCounts, len(ans.Evidence))
	}
	stored, found, err := en.index().AnswerByID(ctx, ans.ID)
	if err != nil || !found {
		t.Fatalf("stored answer: %v %v", found, err)
	}
	if back, err := rag.FromRecord(stored); err != nil || back.EvidenceSourceCounts[corpus.SourceCorpus] != len(ans.Evidence) {
		t.Errorf("stored evidence_source_counts %v (%v)", back.EvidenceSourceCounts, err)
	}
	logged, err := os.ReadFile(en.AuditLogPath())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`qid=before seg=0 .* kind=question .* evidence_sources=corpus:\d+ validation=ok text=`).Match(logged) {
		t.Errorf("audit log does not count evidence sources:\n%s", logged)
	}

	kept := keptOut(t, en)
	for _, p := range []string{chat, notes} {
		k, ok := kept[p]
		if !ok || k.Reason == "" || k.Overridden || k.Source != corpus.SourceModel {
			t.Errorf("%s: kept out = %+v (listed %v)", filepath.Base(p), k, ok)
		}
	}
	if _, ok := kept[filepath.Join(lib, "uploads.md")]; ok || len(kept) != 2 {
		t.Errorf("kept out of evidence: %+v", kept)
	}

	// The override makes the chat evidence, survives a rescan of the
	// changed file, and is reversible.
	if _, err := en.TreatAsDocument(ctx, chat, true); err != nil {
		t.Fatal(err)
	}
	ask("override")
	if prompt := capture.last(t); !strings.Contains(prompt, "40 MB per file [#1]") {
		t.Fatalf("the chat treated as a document is not evidence: %q", prompt)
	}
	if k := keptOut(t, en)[chat]; !k.Overridden {
		t.Errorf("override not listed: %+v", k)
	}
	write(t, chat, chatDoc+"user: And for images?\n")
	if sum, err := en.Ingest(ctx, []string{lib}, nil); err != nil || sum.FilesIndexed != 1 {
		t.Fatalf("re-ingest: %+v, %v", sum, err)
	}
	ask("rescanned")
	if prompt := capture.last(t); !strings.Contains(prompt, "And for images?") {
		t.Fatalf("the override did not survive re-indexing the changed file: %q", prompt)
	}
	if _, err := en.TreatAsDocument(ctx, chat, false); err != nil {
		t.Fatal(err)
	}
	ask("undone")
	if prompt := capture.last(t); strings.Contains(prompt, "40 MB") {
		t.Fatalf("the chat is still evidence after the override was removed: %q", prompt)
	}

	if _, err := en.TreatAsDocument(ctx, filepath.Join(lib, "missing.txt"), true); !errors.Is(err, ErrNotIndexed) {
		t.Errorf("override of a file not indexed: %v", err)
	}
}

func keptOut(t *testing.T, en *Engine) map[string]store.DocumentSource {
	t.Helper()
	list, err := en.KeptOutOfEvidence(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.DocumentSource{}
	for _, d := range list {
		out[d.Path] = d
	}
	return out
}

// A document that reproduces a stored answer (an answer pasted into a
// note) is model text; the document the answer quoted is not.
func TestDocumentReproducingStoredAnswerIsNotEvidence(t *testing.T) {
	ctx := context.Background()
	// The answer's first sentence (30 words) is copied from privacy.md, the
	// second is the model's own.
	quoted := "Footnote keeps every index and every stored answer on this machine and never sends a single passage anywhere unless the user has confirmed a remote model server in the settings first."
	reply := quoted + " In other words the answer cache is disclosed every time it serves an answer, so nothing about where an answer came from is hidden from the person asking the question."
	fake := ollamafake.New(ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: []string{reply + " [#1]"}}
	}))
	defer fake.Close()
	en := newEngineWith(t, fake.URL(), nil, WithEmbedder(loadTestEmbedder(t)))
	lib := t.TempDir()
	// The source document shares a sentence with the answer: quoting it
	// must not make the source look like a copy of the answer.
	source := filepath.Join(lib, "privacy.md")
	write(t, source, "# Privacy\n\n"+quoted+"\n")
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := en.AskWith(ctx, rag.Request{ID: "q1", Question: "Does Footnote send passages anywhere?"}, nil, AskOptions{Fresh: true}); err != nil {
		t.Fatal(err)
	}
	pasted := filepath.Join(lib, "pasted.md")
	write(t, pasted, "# Meeting notes\n\nSomeone asked about privacy and got this:\n\n"+reply+"\n")
	write(t, source, "# Privacy\n\n"+quoted+"\n\nEdited.\n")
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	kept := keptOut(t, en)
	if k, ok := kept[pasted]; !ok || !strings.Contains(k.Reason, "reproduces a stored answer") {
		t.Errorf("pasted answer: %+v (listed %v)", k, ok)
	}
	if k, ok := kept[source]; ok {
		t.Errorf("the document the answer quoted is kept out: %+v", k)
	}
}

// An index rebuild (here after a chunking change) classifies again and
// keeps the user's override.
func TestEvidenceOverrideSurvivesRebuild(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	lib, chat, notes := writeChatLibrary(t)
	en, _ := newLibraryEngine(t, home)
	if _, err := en.AddToCollection(ctx, "lib", []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := en.TreatAsDocument(ctx, chat, true); err != nil {
		t.Fatal(err)
	}
	en.Close()

	cfg := config.Config{Home: home, Settings: config.Defaults()}
	cfg.Settings.ChunkTokens, cfg.Settings.OverlapTokens = 48, 4
	en2, err := New(cfg, WithEmbedder(closeless{&workCounter{Embedder: testEmbedder(t)}}))
	if err != nil {
		t.Fatal(err)
	}
	defer en2.Close()
	if err := en2.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	active, done := en2.RebuildState()
	if !active {
		t.Fatal("no rebuild started")
	}
	<-done
	kept := keptOut(t, en2)
	if !kept[chat].Overridden || kept[notes].Overridden || kept[notes].Reason == "" {
		t.Fatalf("after rebuild: %+v", kept)
	}
	res, err := en2.Search(ctx, "assistant upload limit 40 MB", searchLexical())
	if err != nil {
		t.Fatal(err)
	}
	sawChat := false
	for _, h := range res.Hits {
		sawChat = sawChat || h.Path == chat
		if h.Path == notes {
			t.Errorf("the chat without override is searchable evidence after rebuild")
		}
	}
	if !sawChat {
		t.Errorf("the overridden chat is not evidence after rebuild (%d hits)", len(res.Hits))
	}
}

// An answer cached while a chat was treated as a document is not served
// once the override is removed: the cache re-runs retrieval, which no
// longer finds the chat.
func TestCachedAnswerCitingChatIsNotServedAfterUndo(t *testing.T) {
	ctx := context.Background()
	fake := ollamafake.New(ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: []string{"Each uploaded file may be at most 40 MB [#1]."}}
	}))
	defer fake.Close()
	en := newEngineWith(t, fake.URL(), nil, WithEmbedder(loadTestEmbedder(t)))
	lib := t.TempDir()
	chat := filepath.Join(lib, "chat_transcript.txt")
	write(t, chat, chatDoc)
	write(t, filepath.Join(lib, "garden.md"), "# Garden\n\nTomatoes grow well in warm sunny gardens.\n")
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := en.TreatAsDocument(ctx, chat, true); err != nil {
		t.Fatal(err)
	}
	q := rag.Request{ID: "first", Question: "What is the upload limit per file?"}
	first, err := en.Ask(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Grounded || len(first.Citations) == 0 || first.Citations[0].Path != chat {
		t.Fatalf("the overridden chat was not cited in a grounded (cacheable) answer: %+v %v", first.Citations, first.RefusalReason)
	}
	if _, err := en.TreatAsDocument(ctx, chat, false); err != nil {
		t.Fatal(err)
	}
	q.ID = "second"
	second, err := en.Ask(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(second.Citations, second.Evidence...) {
		if c.Path == chat {
			t.Fatalf("the chat is evidence again after undo (cache %+v)", second.Cache)
		}
	}
}
