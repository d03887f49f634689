package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// A repeated question is served from the cache; ask --json and the text
// output say so, with the original question, its time, the similarity,
// what matched and how to ask fresh; --fresh asks the model again.
func TestAskDisclosesACacheHit(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	const q = "How do I install on Linux?"
	askJSON := func(args ...string) map[string]any {
		t.Helper()
		code, out, errOut := runCLI(t, append([]string{"ask", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("ask %v: exit %d: %s", args, code, errOut)
		}
		var ans map[string]any
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatalf("ask --json: %v\n%s", err, out)
		}
		return ans
	}
	if first := askJSON(q); first["cache"] != nil || first["ask_fresh"] != nil {
		t.Fatalf("the first answer is not cached: %v", first["cache"])
	}
	calls := len(fake.Requests())

	second := askJSON(q)
	c, _ := second["cache"].(map[string]any)
	if c == nil || c["original_question"] != q || c["answered_at"] == "" || c["similarity"].(float64) < 0.95 {
		t.Fatalf("cache disclosure: %v", second["cache"])
	}
	m, _ := c["matched"].(map[string]any)
	for _, rule := range []string{"similarity", "same_ask", "passages", "same_index", "revisions"} {
		if m[rule] != true {
			t.Errorf("matched.%s = %v", rule, m[rule])
		}
	}
	if m["passages_cited"].(float64) < 1 || second["ask_fresh"] != "footnote ask --fresh 'How do I install on Linux?'" {
		t.Errorf("matched %v, ask_fresh %v", m, second["ask_fresh"])
	}
	if len(fake.Requests()) != calls {
		t.Fatal("a cached answer called the model")
	}

	code, out, _ := runCLI(t, "ask", q)
	for _, want := range []string{"Served from the answer cache", `original question: "How do I install on Linux?", answered `,
		"matched: similarity", "matched: asks the same thing after normalisation", "matched: this question's own search found the ", "cited passage(s), unchanged",
		"to ask fresh: footnote ask --fresh 'How do I install on Linux?'"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("text output lacks %q (exit %d):\n%s", want, code, out)
		}
	}

	if fresh := askJSON("--fresh", q); fresh["cache"] != nil || fresh["ask_fresh"] != nil || len(fake.Requests()) != calls+1 {
		t.Fatalf("--fresh was served from the cache: %v", fresh["cache"])
	}
}
