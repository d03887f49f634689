package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestEvalFollowUps runs the follow-up gold set (sample/followups.json)
// over the sample library, once as follow-ups and once with the histories
// removed (the follow-up searched for as typed), and checks that follow-ups
// are reported apart. The model is the gold-blind extractive reader of
// `make eval`, which sees only the prompt (and rewrites follow-ups the way a
// small instruction model does). The figures are logged for comparison.
func TestEvalFollowUps(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(ollamafake.ExtractiveResponder(extractiveMinCover)))
	defer fake.Close()
	t.Setenv("FOOTNOTE_HOME", t.TempDir())
	t.Setenv("FOOTNOTE_EMBED_MODEL", embedtest.TinyDir(t))
	t.Setenv("OLLAMA_HOST", fake.URL())
	t.Setenv("FOOTNOTE_LLM_MODEL", ollamafake.DefaultModel)
	lib, err := filepath.Abs(filepath.Join("..", "..", "sample", "library"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	gold := filepath.Join("..", "..", "sample", "followups.json")
	data, err := os.ReadFile(gold)
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatal(err)
	}
	if len(items) < 20 {
		t.Fatalf("%d follow-up items, want at least 20", len(items))
	}
	for _, it := range items {
		delete(it, "history")
	}
	typed := filepath.Join(t.TempDir(), "typed.json")
	raw, _ := json.Marshal(items)
	if err := os.WriteFile(typed, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(qaset string) map[string]any {
		code, out, errOut := runCLI(t, "eval", "--qaset", qaset, "--json", "--gate", "precision=0", "--gate", "over_refusal=1",
			"--gate", "under_refusal=1", "--gate", "citation_hit_rate=0", "--gate", "compliance=0", "--gate", "containment=0")
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("eval exit %d: %v\n%s%s", code, err, out, errOut)
		}
		return rep
	}
	followUps := run(gold)
	asTyped := run(typed)
	fu, ok := followUps["follow_ups"].(map[string]any)
	if !ok || fu["questions"] != float64(len(items)) {
		t.Fatalf("follow-ups not reported apart: %v", followUps["follow_ups"])
	}
	if asTyped["follow_ups"] != nil {
		t.Errorf("items without history reported as follow-ups: %v", asTyped["follow_ups"])
	}
	for _, r := range followUps["rows"].([]any) {
		if r.(map[string]any)["follow_up"] != true {
			t.Errorf("row not marked as a follow-up: %v", r)
		}
	}
	for _, name := range []string{"precision", "citation_hit_rate", "over_refusal", "under_refusal", "recall_at_k", "mrr_at_10"} {
		t.Logf("%-18s follow-ups (rewritten) %.3f · as typed %.3f", name, followUps[name], asTyped[name])
	}
}
