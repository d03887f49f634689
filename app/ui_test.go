package app

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
)

func askAndWait(t *testing.T, a *App, rec *recorder, q string) rag.Answer {
	t.Helper()
	id, err := a.Ask(q)
	if err != nil {
		t.Fatal(err)
	}
	return rec.waitFor(t, EventAnswerDone, id).payload.(doneEvent).Answer
}

func TestOpenDocumentSlicesCitationsByCodePoints(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(time.Millisecond))
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	// Non-ASCII text before the passage: byte offsets would land elsewhere.
	body := "# Übersicht — ünïcödé\n\n## Linux\n\nTo install on Linux, download the AppImage and run it. It needs WebKitGTK.\n"
	if err := os.WriteFile(lib+"/guide.md", []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	ans := askAndWait(t, a, rec, "How do I install on Linux?")
	if len(ans.Citations) == 0 {
		t.Fatalf("no citations: %+v", ans)
	}
	c := ans.Citations[0]
	view, err := a.OpenDocument(c.DocID)
	if err != nil {
		t.Fatal(err)
	}
	runes := []rune(view.Text)
	if view.Chars != len(runes) || c.Offsets.End > len(runes) {
		t.Fatalf("chars %d, runes %d, offsets %+v", view.Chars, len(runes), c.Offsets)
	}
	if got := string(runes[c.Offsets.Start:c.Offsets.End]); got != c.Text {
		t.Fatalf("text[start:end] = %q, citation text %q", got, c.Text)
	}
	if view.Path == "" || view.DocID != c.DocID {
		t.Errorf("view info: %+v", view.DocumentInfo)
	}

	if _, err := a.OpenDocument("no-such-doc"); err == nil || !strings.Contains(err.Error(), "no longer in the index") {
		t.Errorf("unknown document: %v", err)
	}
}

func TestOpenOriginalOnlyOpensIndexedFiles(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, _, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	docs, err := a.Documents()
	if err != nil || len(docs) != 1 {
		t.Fatalf("documents: %v %v", docs, err)
	}
	var opened []string
	prev := openURL
	openURL = func(_ context.Context, u string) { opened = append(opened, u) }
	t.Cleanup(func() { openURL = prev })

	if err := a.OpenOriginal(docs[0].DocID); err == nil {
		t.Error("without the desktop runtime OpenOriginal must refuse, not call Wails")
	}
	a.ctx = context.Background() // stands in for the Wails context; openURL is faked
	if err := a.OpenOriginal("/etc/passwd"); err == nil {
		t.Error("a path instead of an indexed document id was accepted")
	}
	if err := a.OpenOriginal(docs[0].DocID); err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || !strings.HasPrefix(opened[0], "file:///") || !strings.HasSuffix(opened[0], "/guide.md") {
		t.Fatalf("opened %v", opened)
	}
}

func TestSaveSettingsPersistsAndAppliesGate(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(time.Millisecond))
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	s := a.Settings()
	if s.LLMModel != ollamafake.DefaultModel || s.EvidenceK != config.Defaults().EvidenceK {
		t.Fatalf("settings: %+v", s)
	}

	bad := s
	bad.WordMatchGate = 2
	if _, err := a.SaveSettings(bad); err == nil || !strings.Contains(err.Error(), "word_match_gate") {
		t.Errorf("gate 2 accepted: %v", err)
	}
	bad = s
	bad.LLMModel = " "
	if _, err := a.SaveSettings(bad); err == nil {
		t.Error("empty model accepted")
	}

	s.WordMatchGate, s.EvidenceK = 1, 3
	s.EmbedModelDir = t.TempDir()
	res, err := a.SaveSettings(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.RestartRequired, "embed_model_dir") || slices.Contains(res.RestartRequired, "ollama_host") {
		t.Errorf("restart required: %v", res.RestartRequired)
	}
	raw, err := os.ReadFile(a.engine.Config().SettingsPath())
	if err != nil {
		t.Fatal(err)
	}
	var onDisk config.Settings
	if err := json.Unmarshal(raw, &onDisk); err != nil || onDisk.WordMatchGate != 1 || onDisk.EvidenceK != 3 {
		t.Fatalf("settings.json: %s (%v)", raw, err)
	}

	// The gate and k apply to the next question without a restart.
	ans := askAndWait(t, a, rec, "What is the capital of Peru?")
	if ans.Retrieval.Gate != 1 || len(ans.Evidence) > 3 {
		t.Fatalf("saved gate/k not applied: gate %v, %d passages", ans.Retrieval.Gate, len(ans.Evidence))
	}
}

func TestModelsAndPull(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithModels(ollamafake.Model{Name: "a:1b"}, ollamafake.Model{Name: "b:3b"}))
	defer fake.Close()
	a, rec, _ := newTestApp(t, fake)
	models, err := a.Models()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range models {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"a:1b", "b:3b"}) {
		t.Fatalf("models %v", names)
	}
	if err := a.PullModel("c:7b"); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	var last PullProgress
	n := 0
	for _, e := range rec.events {
		if e.name == EventModelPull {
			last = e.payload.(PullProgress)
			n++
		}
	}
	rec.mu.Unlock()
	if n < 2 || !last.Done || last.Status != "success" || last.Model != "c:7b" {
		t.Fatalf("pull events: %d, last %+v", n, last)
	}
	if err := a.PullModel(""); err == nil {
		t.Error("empty model name accepted")
	}
}

func TestHistorySearchesStoredAnswers(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(time.Millisecond))
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	askAndWait(t, a, rec, "How do I install on Linux?")
	askAndWait(t, a, rec, "Does it need WebKitGTK?")

	all, err := a.History("", 10)
	if err != nil || len(all) != 2 {
		t.Fatalf("history: %v %d", err, len(all))
	}
	if all[0].Question != "Does it need WebKitGTK?" {
		t.Errorf("newest first, got %q", all[0].Question)
	}
	if len(all[1].Citations) == 0 || all[1].Model == "" {
		t.Errorf("stored answer lost its citations or model: %+v", all[1])
	}
	found, err := a.History("webKITgtk", 10)
	if err != nil || len(found) != 1 || found[0].Question != "Does it need WebKitGTK?" {
		t.Fatalf("search: %v %+v", err, found)
	}
	if one, _ := a.History("", 1); len(one) != 1 {
		t.Errorf("limit 1 returned %d", len(one))
	}
}

func TestSaveSettingsPersistsModeCacheAndTheme(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(time.Millisecond))
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	s := a.Settings()
	if s.RetrievalMode != "hybrid" || !s.AnswerCache || s.CrossSection != "allow" || s.Theme != "system" || s.Provider != "ollama" {
		t.Fatalf("defaults: %+v", s)
	}
	bad := s
	bad.RetrievalMode = "psychic"
	if _, err := a.SaveSettings(bad); err == nil || !strings.Contains(err.Error(), "retrieval_mode") {
		t.Errorf("unknown mode accepted: %v", err)
	}

	s.RetrievalMode, s.AnswerCache, s.CrossSection, s.Theme = "lexical", false, "forbid", "dark"
	s.Provider, s.OpenAIBaseURL = "openai", "http://127.0.0.1:1/v1"
	res, err := a.SaveSettings(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.RestartRequired, "provider") || res.Settings.Provider != "openai" {
		t.Errorf("a provider change must wait for a restart: %+v", res)
	}
	if a.engine.CacheEnabled() {
		t.Error("the answer cache is still on after saving it off")
	}
	raw, err := os.ReadFile(a.engine.Config().SettingsPath())
	if err != nil {
		t.Fatal(err)
	}
	var onDisk config.Settings
	if err := json.Unmarshal(raw, &onDisk); err != nil {
		t.Fatal(err)
	}
	if onDisk.RetrievalMode != "lexical" || onDisk.AnswerCache || onDisk.CrossSection != "forbid" || onDisk.Theme != "dark" ||
		onDisk.Provider != "openai" || onDisk.OpenAIBaseURL != "http://127.0.0.1:1/v1" {
		t.Fatalf("settings.json: %s", raw)
	}

	// The mode applies to the next question; the provider still is Ollama.
	ans := askAndWait(t, a, rec, "How do I install on Linux?")
	if ans.Retrieval.Mode != "lexical" {
		t.Fatalf("saved mode not applied: %+v", ans.Retrieval)
	}
	if ans.Cache != nil && ans.Cache.Hit {
		t.Fatal("answer served from the cache although it is off")
	}

	// A new app over the same data folder starts with the saved switches.
	cfg := a.engine.Config()
	cfg.Settings = onDisk
	en, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := New(en, newRecorder(), nil)
	if en.CacheEnabled() || b.Settings().CrossSection != "forbid" {
		t.Errorf("saved switches not applied at start: cache %v, %+v", en.CacheEnabled(), b.Settings())
	}
}
