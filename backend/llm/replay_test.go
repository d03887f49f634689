package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
)

// recordedServer answers every request with one recorded Ollama response
// (status, Content-Type, Allow, body) from the ollamafake fixtures, so the
// client is tested against bytes real Ollama produced.
func recordedServer(t *testing.T, version, name string) *llm.Client {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("ollamafake", "testdata", "ollama-"+version, name))
	if err != nil {
		t.Fatal(err)
	}
	_, resp, ok := strings.Cut(string(raw), "### response (headers + body):\n")
	head, body, ok2 := strings.Cut(resp, "\r\n\r\n")
	if !ok || !ok2 {
		t.Fatalf("%s: not a transcript", name)
	}
	lines := strings.Split(head, "\r\n")
	status, err := strconv.Atoi(strings.Fields(lines[0])[1])
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ": ")
		if k == "Content-Type" || k == "Allow" {
			header.Set(k, v)
		}
	}
	body = strings.TrimSuffix(body, "\n") // the recorder appended one newline
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return llm.NewClient(u, nil)
}

func TestClientOnRecordedResponses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, version := range []string{"0.24.0", "0.33.0-rc2"} {
		t.Run(version+"/stream", func(t *testing.T) {
			c := recordedServer(t, version, "04_chat_stream.txt")
			got, err := collect(ctx, c, question("tiny"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 25 || !strings.HasPrefix(text(got), "alph Floricane Paulo") || !strings.HasSuffix(text(got), " inwonersleb") {
				t.Errorf("%d objects, text %q", len(got), text(got))
			}
			last := got[len(got)-1]
			if !last.Done || last.DoneReason != "length" || last.EvalCount != 24 || last.PromptEvalCount != 121 || last.TotalDuration <= 0 || last.EvalDuration <= 0 {
				t.Errorf("done object = %+v", last)
			}
		})
		t.Run(version+"/non-stream", func(t *testing.T) {
			c := recordedServer(t, version, "05_chat_nostream.txt")
			req := question("tiny")
			req.Stream = ptr(false)
			got, err := collect(ctx, c, req)
			if err != nil || len(got) != 1 || !got[0].Done || got[0].EvalCount != 24 || got[0].PromptEvalCount != 95 {
				t.Errorf("got %+v, %v", got, err)
			}
		})
		t.Run(version+"/tags", func(t *testing.T) {
			list, err := recordedServer(t, version, "02_tags.txt").List(ctx)
			if err != nil || len(list.Models) != 1 || list.Models[0].Name != "tiny:latest" || list.Models[0].Details.Family != "llama" || list.Models[0].Size <= 0 {
				t.Fatalf("List = %+v, %v", list, err)
			}
			// What types.go says of these fields: 0.24.0 leaves them out.
			m := list.Models[0]
			if newer := version != "0.24.0"; (m.Details.ContextLength == 4096) != newer || (len(m.Capabilities) > 0) != newer {
				t.Errorf("%s: context_length %d, capabilities %v", version, m.Details.ContextLength, m.Capabilities)
			}
		})
		t.Run(version+"/show", func(t *testing.T) {
			show, err := recordedServer(t, version, "03_show.txt").Show(ctx, "tiny")
			if err != nil {
				t.Fatal(err)
			}
			// The recorded model was made with PARAMETER num_ctx 2048.
			w := llm.ChooseWindow(show, nil, "tiny", 8192)
			if w != (llm.ContextWindow{Tokens: 2048, Source: llm.WindowFromOllamaShow, Trained: 4096}) {
				t.Errorf("window from the recorded show = %+v", w)
			}
		})
		t.Run(version+"/ps", func(t *testing.T) {
			ps, err := recordedServer(t, version, "10_ps.txt").ListRunning(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n, ok := ps.LoadedWindow("tiny"); !ok || n != 2048 {
				t.Errorf("loaded window = %d, %v; recorded 2048", n, ok)
			}
			// Without a Modelfile num_ctx the loaded window decides.
			if w := llm.ChooseWindow(&llm.ShowResponse{}, ps, "tiny:latest", 8192); w.Tokens != 2048 || w.Source != llm.WindowFromOllamaPs {
				t.Errorf("window = %+v", w)
			}
			empty, err := recordedServer(t, version, "27_ps_after_unload.txt").ListRunning(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n, ok := empty.LoadedWindow("tiny"); ok {
				t.Errorf("unloaded model reported at %d", n)
			}
		})
		t.Run(version+"/version", func(t *testing.T) {
			v, err := recordedServer(t, version, "01_version.txt").Version(ctx)
			if err != nil || v != version {
				t.Errorf("Version = %q, %v", v, err)
			}
		})
	}

	errorCases := []struct {
		version, file string
		call          func(*llm.Client) error
		status        int
		message       string
		notFound      bool
	}{
		{"0.24.0", "11_chat_missing_model.txt", chatCall, 404, "model 'no-such-model' not found", true},
		{"0.33.0-rc2", "13_show_missing_model.txt", showCall, 404, "model 'no-such-model:latest' not found", true},
		{"0.24.0", "15_chat_invalid_json.txt", chatCall, 400, "unexpected EOF", false},
		{"0.24.0", "16_chat_no_model_field.txt", chatCall, 400, "model is required", false},
		{"0.24.0", "20_wrong_method.txt", chatCall, 405, "405 method not allowed", false},
		{"0.24.0", "24_options_bad_type.txt", chatCall, 500, `option "num_predict" must be of type integer`, false},
	}
	for _, tc := range errorCases {
		t.Run(tc.version+"/"+tc.file, func(t *testing.T) {
			err := tc.call(recordedServer(t, tc.version, tc.file))
			var se *llm.StatusError
			if !errors.As(err, &se) || se.StatusCode != tc.status || se.ErrorMessage != tc.message {
				t.Fatalf("err = %#v, want StatusError %d %q", err, tc.status, tc.message)
			}
			if errors.Is(err, llm.ErrModelNotFound) != tc.notFound {
				t.Errorf("ErrModelNotFound match = %v, want %v", !tc.notFound, tc.notFound)
			}
		})
	}
}

func chatCall(c *llm.Client) error {
	_, err := collect(context.Background(), c, question("no-such-model"))
	return err
}

func showCall(c *llm.Client) error {
	_, err := c.Show(context.Background(), "no-such-model")
	return err
}
