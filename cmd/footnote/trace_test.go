package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestTraceExport: one JSON line per question with the question, chunks,
// answer, the cited ids, and the cited passages carrying the full
// provenance payload.
func TestTraceExport(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	for _, q := range []string{"How do I install on Linux?", "zzzz qqqq"} {
		if code, _, errOut := runCLI(t, "ask", q); code != 0 {
			t.Fatalf("ask: %s", errOut)
		}
	}
	out := filepath.Join(t.TempDir(), "trace.jsonl")
	if code, stdout, errOut := runCLI(t, "trace", "export", "--out", out); code != 0 || !strings.Contains(stdout, "wrote 2 questions") {
		t.Fatalf("trace export: exit %d %s %s", code, stdout, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %d", len(lines))
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first["question"] != "How do I install on Linux?" || first["grounded"] != true {
		t.Fatalf("first line: %v", first)
	}
	chunks, _ := first["chunks"].([]any)
	ids, _ := first["citations"].([]any)
	cites, _ := first["cited"].([]any)
	if len(chunks) == 0 || len(cites) == 0 || len(ids) != len(cites) {
		t.Fatalf("chunks %d citations %d cited %d", len(chunks), len(ids), len(cites))
	}
	c := cites[0].(map[string]any)
	if ids[0] != c["snippet_id"] || chunks[0].(map[string]any)["id"] == "" {
		t.Errorf("citations lists the cited snippet ids: %v vs %v; chunk %v", ids[0], c["snippet_id"], chunks[0])
	}
	for k, want := range map[string]any{"q": first["question"], "ok": true, "schema": "answer.v1"} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v", k, first[k], want)
		}
	}
	if ds, ok := first["deltaS"].(float64); !ok || ds <= 0 || first["lambda"] == "" || chunks[0].(map[string]any)["deltaS"] == nil {
		t.Errorf("deltaS %v lambda %v on the line, chunk deltaS %v", first["deltaS"], first["lambda"], chunks[0].(map[string]any)["deltaS"])
	}
	if id, _ := first["trace_id"].(string); !strings.HasPrefix(id, "tr_") || first["ts"] == "" {
		t.Errorf("trace_id %v ts %v", first["trace_id"], first["ts"])
	}
	for _, k := range []string{"doc_id", "section_id", "snippet_id", "source_url", "offsets", "tokens", "index_hash",
		"embed_model", "analyzer", "rev", "window", "score_raw", "score_norm", "k_pos", "k_final"} {
		if v, ok := c[k]; !ok || v == "" || v == 0.0 {
			t.Errorf("citation field %s = %v", k, v)
		}
	}
	if chain := first["provenance"].(map[string]any)["derivation_chain"].([]any); len(chain) < 3 {
		t.Errorf("derivation chain %v", chain)
	}
	// A refusal is written as the refusal token any conventional scorer
	// knows, Footnote's own sentence under footnote_answer.
	var second map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	if second["ok"] != false || second["answer"] != "not in context" || second["footnote_answer"] != "I don't know based on the provided documents." {
		t.Errorf("refusal line: answer %q footnote_answer %q ok %v", second["answer"], second["footnote_answer"], second["ok"])
	}
	// --ids names the level of citations and chunks.
	if code, _, errOut := runCLI(t, "trace", "export", "--ids", "section", "--out", out); code != 0 {
		t.Fatalf("trace export --ids section: %s", errOut)
	}
	var bySection map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(string(mustRead(t, out)), "\n", 2)[0]), &bySection); err != nil {
		t.Fatal(err)
	}
	if ids := bySection["citations"].([]any); len(ids) == 0 || ids[0] != c["section_id"] || bySection["ids"] != "section" ||
		bySection["chunks"].([]any)[0].(map[string]any)["id"] != bySection["chunks"].([]any)[0].(map[string]any)["section_id"] {
		t.Errorf("--ids section: citations %v (want %v), chunks %v", ids, c["section_id"], bySection["chunks"])
	}
	if code, _, errOut := runCLI(t, "trace", "export", "--ids", "passage", "--out", out); code != 2 || !strings.Contains(errOut, "snippet, section or doc") {
		t.Errorf("--ids passage: exit %d %s", code, errOut)
	}
	// ask --json and history --json carry the same wire identity.
	code, askOut, errOut := runCLI(t, "ask", "--json", "--fresh", "How do I install on Linux?")
	var asked map[string]any
	if code != 0 || json.Unmarshal([]byte(askOut), &asked) != nil {
		t.Fatalf("ask --json: exit %d %s %s", code, errOut, askOut)
	}
	askedID, _ := asked["trace_id"].(string)
	if asked["schema"] != "answer.v1" || !strings.HasPrefix(askedID, "tr_") || askedID == first["trace_id"] {
		t.Errorf("ask --json: schema %v trace_id %v", asked["schema"], asked["trace_id"])
	}
	code, histOut, errOut := runCLI(t, "history", "--json", "-n", "1")
	var hist []map[string]any
	if code != 0 || json.Unmarshal([]byte(histOut), &hist) != nil || len(hist) != 1 {
		t.Fatalf("history --json: exit %d %s %s", code, errOut, histOut)
	}
	if hist[0]["schema"] != "answer.v1" || hist[0]["trace_id"] != askedID || hist[0]["answer"] != asked["answer"] {
		t.Errorf("history --json: schema %v trace_id %v, want %s", hist[0]["schema"], hist[0]["trace_id"], askedID)
	}
	if code, _, _ := runCLI(t, "trace"); code != 2 {
		t.Errorf("trace without export: exit %d", code)
	}
}
