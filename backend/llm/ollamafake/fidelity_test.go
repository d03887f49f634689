package ollamafake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// transcript is one recorded exchange from testdata.
type transcript struct {
	file    string
	method  string
	path    string
	reqBody string // "" when the request had none
	status  int
	header  http.Header
	body    []byte
}

func loadTranscript(t *testing.T, file string) transcript {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	req, resp, ok := strings.Cut(string(raw), "### response (headers + body):\n")
	if !ok {
		t.Fatalf("%s: no response marker", file)
	}
	tr := transcript{file: file, header: http.Header{}}
	for line := range strings.SplitSeq(req, "\n") {
		if body, ok := strings.CutPrefix(line, "### request body: "); ok {
			tr.reqBody = body
		} else if first, ok := strings.CutPrefix(line, "### "); ok && tr.method == "" {
			fields := strings.Fields(first)
			tr.method, tr.path = fields[0], fields[1]
		}
	}
	head, body, ok := strings.Cut(resp, "\r\n\r\n")
	if !ok {
		t.Fatalf("%s: no header/body separator", file)
	}
	lines := strings.Split(head, "\r\n")
	status := strings.Fields(lines[0])
	if tr.status, err = strconv.Atoi(status[1]); err != nil {
		t.Fatalf("%s: status line %q", file, lines[0])
	}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ": ")
		tr.header.Add(k, v)
	}
	tr.body = []byte(strings.TrimSuffix(body, "\n")) // the recorder appended one newline
	return tr
}

// keyPaths lists every object key path in v ("message.content",
// "models[].details.family"). model_info is model-specific metadata, so
// only its presence is compared.
func keyPaths(v any, prefix string, out map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			p := prefix + k
			out[p] = true
			if k != "model_info" {
				keyPaths(child, p+".", out)
			}
		}
	case []any:
		if len(t) > 0 {
			keyPaths(t[0], strings.TrimSuffix(prefix, ".")+"[].", out)
		}
	}
}

func shape(t *testing.T, b []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %q", err, b)
	}
	set := map[string]bool{}
	keyPaths(v, "", set)
	var keys []string
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ndjsonLines splits an NDJSON body, insisting every line ends in "\n".
func ndjsonLines(t *testing.T, body []byte) [][]byte {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n")) {
		t.Fatalf("NDJSON body does not end with a newline: %q", body)
	}
	return bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
}

func tinyServer(t *testing.T, version string) *ollamafake.Server {
	t.Helper()
	srv := ollamafake.New(
		ollamafake.WithVersion(version),
		ollamafake.WithModels(ollamafake.Model{
			Name: "tiny", Family: "llama", ParameterSize: "513K", QuantizationLevel: "F16",
			Size: 1751176, ContextLength: 4096, NumCtx: 2048,
		}),
	)
	t.Cleanup(srv.Close)
	return srv
}

func replay(t *testing.T, srv *ollamafake.Server, method, path, body string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestFakeMatchesRecordings replays every recorded request against the fake
// and compares status, content type, framing, field names and error bodies.
func TestFakeMatchesRecordings(t *testing.T) {
	for _, dir := range []string{"ollama-0.24.0", "ollama-0.33.0-rc2"} {
		version := strings.TrimPrefix(dir, "ollama-")
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
		if err != nil || len(files) < 15 {
			t.Fatalf("%s: want the recorded transcripts, got %d files (%v)", dir, len(files), err)
		}
		for i, file := range files {
			rec := loadTranscript(t, file)
			if abbreviated(rec) {
				continue
			}
			t.Run(dir+"/"+filepath.Base(file), func(t *testing.T) {
				srv := tinyServer(t, version)
				if rec.path == "/api/ps" {
					// What is loaded depends on what came before: replay the
					// recording up to here, on one server, as it was made.
					for _, earlier := range files[:i] {
						if e := loadTranscript(t, earlier); !abbreviated(e) {
							replay(t, srv, e.method, e.path, e.reqBody)
						}
					}
				}
				resp, body := replay(t, srv, rec.method, rec.path, rec.reqBody)

				if resp.StatusCode != rec.status {
					t.Fatalf("status = %d, recorded %d (body %s)", resp.StatusCode, rec.status, body)
				}
				ct := rec.header.Get("Content-Type")
				if got := resp.Header.Get("Content-Type"); got != ct {
					t.Errorf("Content-Type = %q, recorded %q", got, ct)
				}
				if allow := rec.header.Get("Allow"); allow != "" && resp.Header.Get("Allow") != allow {
					t.Errorf("Allow = %q, recorded %q", resp.Header.Get("Allow"), allow)
				}
				switch {
				case strings.HasPrefix(ct, "text/plain"), rec.status >= 400:
					if !bytes.Equal(body, rec.body) {
						t.Errorf("body = %q, recorded %q", body, rec.body)
					}
				case ct == "application/x-ndjson":
					compareNDJSON(t, body, rec.body)
				default:
					if got, want := shape(t, body), shape(t, rec.body); !slices.Equal(got, want) {
						t.Errorf("fields = %v\nrecorded  %v", got, want)
					}
				}
			})
		}
	}
}

// abbreviated: the recorder shortened the request body, so it cannot be
// sent again.
func abbreviated(rec transcript) bool { return strings.Contains(rec.reqBody, "...(") }

func compareNDJSON(t *testing.T, got, want []byte) {
	t.Helper()
	gotLines, wantLines := ndjsonLines(t, got), ndjsonLines(t, want)
	if len(gotLines) < 2 {
		t.Fatalf("want tokens then a done object, got %d lines", len(gotLines))
	}
	tokenShape := shape(t, wantLines[0])
	for i, line := range gotLines {
		var obj struct{ Done bool }
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		last := i == len(gotLines)-1
		if obj.Done != last {
			t.Errorf("line %d: done = %v, want %v", i, obj.Done, last)
		}
		want := tokenShape
		if last {
			want = shape(t, wantLines[len(wantLines)-1])
		}
		if got := shape(t, line); !slices.Equal(got, want) {
			t.Errorf("line %d fields = %v\nrecorded      %v", i, got, want)
		}
	}
	var final map[string]any
	if err := json.Unmarshal(gotLines[len(gotLines)-1], &final); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"total_duration", "load_duration", "prompt_eval_duration", "eval_duration", "prompt_eval_count", "eval_count"} {
		if n, _ := final[k].(float64); n <= 0 {
			t.Errorf("done object %s = %v, want > 0", k, final[k])
		}
	}
}

// TestPromptBeyondNumCtxIsTruncated mirrors the recording where a prompt
// longer than num_ctx still got 200 OK with prompt_eval_count == num_ctx.
func TestPromptBeyondNumCtxIsTruncated(t *testing.T) {
	rec := loadTranscript(t, filepath.Join("testdata", "ollama-0.24.0", "25_prompt_exceeds_num_ctx.txt"))
	var recorded struct {
		PromptEvalCount int    `json:"prompt_eval_count"`
		DoneReason      string `json:"done_reason"`
	}
	if err := json.Unmarshal(rec.body, &recorded); err != nil {
		t.Fatal(err)
	}
	var words []string
	for i := range 3000 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	reqBody, _ := json.Marshal(map[string]any{
		"model": "tiny", "stream": false, "options": map[string]any{"num_predict": 8},
		"messages": []map[string]string{{"role": "user", "content": strings.Join(words, " ")}},
	})
	resp, body := replay(t, tinyServer(t, "0.24.0"), http.MethodPost, "/api/chat", string(reqBody))
	if resp.StatusCode != rec.status {
		t.Fatalf("status = %d, recorded %d", resp.StatusCode, rec.status)
	}
	var got struct {
		PromptEvalCount int `json:"prompt_eval_count"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.PromptEvalCount != recorded.PromptEvalCount {
		t.Errorf("prompt_eval_count = %d, recorded %d (the model's num_ctx)", got.PromptEvalCount, recorded.PromptEvalCount)
	}
}

// TestRootAndUnknownPath covers gin's plain-text answers.
func TestRootAndUnknownPath(t *testing.T) {
	srv := tinyServer(t, "0.24.0")
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{http.MethodGet, "/", 200, "Ollama is running"},
		{http.MethodHead, "/", 200, ""},
		{http.MethodGet, "/api/nope", 404, "404 page not found"},
		{http.MethodPost, "/api/tags", 405, "405 method not allowed"},
	}
	for _, tc := range tests {
		resp, body := replay(t, srv, tc.method, tc.path, "")
		if resp.StatusCode != tc.status || string(body) != tc.body {
			t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, resp.StatusCode, body, tc.status, tc.body)
		}
	}
}
