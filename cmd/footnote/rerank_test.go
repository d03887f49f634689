package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

func TestSearchRerankFlagAndExplain(t *testing.T) {
	_, lib := setup(t, "127.0.0.1:1")
	t.Setenv("FOOTNOTE_RERANK_MODEL", embedtest.CrossEncoderDir(t))
	if code, _, errOut := runCLI(t, "ingest", lib); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}

	code, out, errOut := runCLI(t, "search", "install linux", "--explain")
	if code != 0 {
		t.Fatalf("search exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "rerank_score") || strings.Contains(errOut, "not reranked") {
		t.Errorf("explain output lacks the rerank score:\n%s\n%s", out, errOut)
	}

	code, out, _ = runCLI(t, "search", "install linux", "--json")
	var res struct {
		Reranker string           `json:"reranker"`
		Hits     []map[string]any `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Hits) == 0 {
		t.Fatalf("search --json: exit %d, %v\n%s", code, err, out)
	}
	if res.Reranker == "" || res.Hits[0]["rerank_score"] == nil {
		t.Errorf("JSON hits not reranked: %s", out)
	}

	_, out, _ = runCLI(t, "search", "install linux", "--json", "--rerank=false")
	if strings.Contains(out, "rerank_score") || strings.Contains(out, `"reranker"`) {
		t.Errorf("--rerank=false still reranked: %s", out)
	}

	t.Setenv("FOOTNOTE_RERANK_MODEL", t.TempDir())
	code, out, errOut = runCLI(t, "search", "install linux")
	if code != 0 || !strings.Contains(errOut, "not reranked") || strings.Contains(out, "rerank_score") {
		t.Errorf("a broken reranker folder should warn and still search: exit %d\n%s\n%s", code, out, errOut)
	}
}
