package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestAskJSONExposesStoredFields: ask --json prints the answer as stored,
// with every field the answer pipeline records.
func TestAskJSONExposesStoredFields(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	code, out, errOut := runCLI(t, "ask", "--json", "How do I install on Linux?")
	if code != 0 {
		t.Fatalf("ask exit %d: %s", code, errOut)
	}
	var ans map[string]any
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	for _, key := range []string{"id", "question", "answer", "grounded", "refusal_reason", "citations", "evidence", "model", "embed_model",
		"prompt_template_version", "retrieval", "generation", "usage", "stopped", "duration_ms", "created_at", "finished_at"} {
		if _, ok := ans[key]; !ok {
			t.Errorf("ask --json lacks %q", key)
		}
	}
	sub := func(name string, keys ...string) {
		m, _ := ans[name].(map[string]any)
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("ask --json %s lacks %q", name, k)
			}
		}
	}
	sub("retrieval", "mode", "k", "gate", "top_score", "returned", "used", "budget", "packed_tokens")
	sub("generation", "provider", "temperature", "seed", "num_ctx", "model_context", "prompt_tokens")
	sub("usage", "prompt_tokens", "answer_tokens", "total_ns", "load_ns", "prompt_eval_ns", "eval_ns", "done_reason", "first_token_ms")
	if ans["prompt_template_version"] != "rag-v1" || ans["generation"].(map[string]any)["num_ctx"] != 8192.0 {
		t.Errorf("unexpected values: %v", ans)
	}
	if got := fake.Requests()[0].Options["num_ctx"]; got != 8192.0 {
		t.Errorf("num_ctx sent to Ollama = %v", got)
	}
}

func TestPullShowsProgress(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	setup(t, fake.URL())
	code, out, errOut := runCLI(t, "pull", "qwen2.5:0.5b")
	if code != 0 || !strings.Contains(out, "model qwen2.5:0.5b is ready") || !strings.Contains(errOut, "pulling manifest") || !strings.Contains(errOut, "(100%)") {
		t.Fatalf("pull: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "pull"); code != 2 || !strings.Contains(errOut, "give one model name") {
		t.Errorf("pull without a model: exit %d %q", code, errOut)
	}
}
