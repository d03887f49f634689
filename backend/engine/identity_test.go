package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
)

// index_hash is the identity of the index's content: it changes when a
// document is added, and a cached answer whose passages are untouched is
// re-resolved and served with the live hash; a citation whose passage
// changed no longer resolves (mismatch_index_hash).
func TestCachedAnswerIsReResolvedAgainstTheLiveIndex(t *testing.T) {
	en, _, lib := ingestedEngine(t)
	ctx := context.Background()
	settings, before := en.SettingsHash(), en.IndexHash()
	ask := func(id string) rag.Answer {
		t.Helper()
		ans, err := en.Ask(ctx, rag.Request{ID: id, Question: "How do I install on Linux?"}, nil)
		if err != nil || !ans.Grounded {
			t.Fatalf("ask %s: %v %v", id, ans.RefusalReason, err)
		}
		return ans
	}
	first := ask("i1")
	if first.IndexHash != before || first.Citations[0].IndexHash != before {
		t.Fatalf("first answer stamped %s / %s, live %s", first.IndexHash, first.Citations[0].IndexHash, before)
	}
	// Another document arrives: the content identity moves on, the
	// settings identity does not.
	if err := os.WriteFile(filepath.Join(lib, "zeppelin.md"), []byte("# Zeppelins\n\nZeppelins are rigid airships.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	live := en.IndexHash()
	if live == before || en.SettingsHash() != settings {
		t.Fatalf("after adding a document: index %s (was %s), settings %s (was %s)", live, before, en.SettingsHash(), settings)
	}
	second := ask("i2")
	if second.Cache == nil {
		t.Fatal("an unrelated new document dropped the cached answer")
	}
	if second.IndexHash != live || second.Citations[0].IndexHash != live || !second.Validation.OK {
		t.Fatalf("cached answer served with %s / %s, live %s; validation %+v", second.IndexHash, second.Citations[0].IndexHash, live, second.Validation)
	}
	// The cited document changes: the old citation no longer resolves.
	p := en.pipeline()
	old := rag.Payloads(first.Citations)[0]
	if !p.Live.Resolve(old) {
		t.Fatal("an untouched citation does not resolve")
	}
	if err := os.WriteFile(first.Citations[0].Path, []byte("# Installing\n\n## Linux\n\nUse the tarball.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	p = en.pipeline()
	if p.Live.Resolve(old) {
		t.Fatal("a citation of a changed passage still resolves")
	}
	rep := provenance.Validate(rag.Payloads(first.Citations), first.Segments, p.Live)
	if code, ok := rep.FirstError(); !ok || code.Code != "mismatch_index_hash" {
		t.Fatalf("validation of the old citation: %+v", rep)
	}
	if third := ask("i3"); third.Cache != nil {
		t.Fatal("a cached answer citing a changed passage was served")
	}
}

// An index written with another analyzer, not being rebuilt, fails at
// open, in search and in doctor — before anything is generated.
func TestAnalyzerMismatchFailsFast(t *testing.T) {
	ctx := context.Background()
	en2, fake := reopenedWithMeta(t, map[string]string{"analyzer": "fts5:unicode61;an-older-analyzer"})
	if err := en2.Ready(ctx); !errors.Is(err, ErrAnalyzerMismatch) || !strings.Contains(err.Error(), "an-older-analyzer") {
		t.Fatalf("open: %v", err)
	}
	if _, err := en2.Search(ctx, "install linux", searchLexical()); !errors.Is(err, ErrAnalyzerMismatch) {
		t.Fatalf("search: %v", err)
	}
	if _, err := en2.Ask(ctx, rag.Request{ID: "a1", Question: "How do I install on Linux?"}, nil); !errors.Is(err, ErrAnalyzerMismatch) {
		t.Fatalf("ask: %v", err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	found := false
	for _, c := range en2.Doctor(ctx) {
		if strings.HasPrefix(c.Name, "index") {
			found = true
			if c.OK || !strings.Contains(c.Detail, "analyzer_mismatch") || c.Fix == "" {
				t.Errorf("doctor: %+v", c)
			}
		}
	}
	if !found {
		t.Error("doctor has no index check")
	}
}

// While the index is rebuilt after an analyzer change, the old index
// serves; a question it answers would be found with the old analyzer's
// tokens, so the answer is refused before anything is generated, with
// analyzer_mismatch and its fix. Once the rebuild is in, it is answered.
func TestAnalyzerMismatchWhileRebuilding(t *testing.T) {
	ctx := context.Background()
	en2, fake := reopenedWithMeta(t, map[string]string{"analyzer": "fts5:unicode61;an-older-analyzer", metaSettingsHash: "written-by-an-older-version"})
	en2.ingestMu.Lock() // the rebuild waits for the ingest lock: it stays under way
	if err := en2.Ready(ctx); err != nil {
		en2.ingestMu.Unlock()
		t.Fatal(err)
	}
	ans, err := en2.AskWith(ctx, rag.Request{ID: "a1", Question: "How do I install on Linux?"}, nil, AskOptions{Fresh: true})
	en2.ingestMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	is, failed := ans.Validation.FirstError()
	if ans.Grounded || ans.RefusalReason == nil || *ans.RefusalReason != rag.RefusalValidation || !failed ||
		is.Code != provenance.CodeAnalyzerMismatch || !strings.Contains(is.Message, "an-older-analyzer") || is.Fix == "" {
		t.Fatalf("during the rebuild: grounded %v reason %v issues %+v", ans.Grounded, ans.RefusalReason, ans.Validation.Issues)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times before the refusal", n)
	}
	en2.lib.mu.Lock()
	done := en2.lib.rebuild.done
	en2.lib.mu.Unlock()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the rebuild did not finish")
	}
	after, err := en2.AskWith(ctx, rag.Request{ID: "a2", Question: "How do I install on Linux?"}, nil, AskOptions{Fresh: true})
	if err != nil || len(after.Validation.Issues) > 0 && after.Validation.Issues[0].Code == provenance.CodeAnalyzerMismatch {
		t.Fatalf("after the rebuild: %v %+v", err, after.Validation)
	}
}

// reopenedWithMeta indexes the test library, sets meta on the index (as an
// older version would have left it) and returns a new engine on it, not yet
// opened, with a fake model server; both are closed with the test.
func reopenedWithMeta(t *testing.T, meta map[string]string) (*Engine, *ollamafake.Server) {
	t.Helper()
	ctx := context.Background()
	home := t.TempDir()
	en, _ := newLibraryEngine(t, home)
	if _, err := en.Ingest(ctx, []string{writeLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	for k, v := range meta {
		if err := en.index().SetMeta(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	en.Close()
	fake := ollamafake.New()
	t.Cleanup(fake.Close)
	cfg := config.Config{Home: home, Settings: config.Defaults()}
	cfg.Settings.ChunkTokens, cfg.Settings.OverlapTokens = 32, 4
	cfg.Settings.OllamaHost = fake.URL()
	reopened, err := New(cfg, WithEmbedder(closeless{&workCounter{Embedder: testEmbedder(t)}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reopened.Close() })
	return reopened, fake
}
