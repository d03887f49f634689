package rerank

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// hubPath is where Hugging Face serves a file of the pinned revision.
func hubPath(file string) string {
	return "/cross-encoder/" + NLIModel + "/resolve/" + nliRevision + "/" + file
}

// TestNLISourceDownloads downloads NLISource from a 127.0.0.1 server laid
// out like the model's Hugging Face repository (the ONNX graph under onnx/,
// the rest at the top, sha256 in X-Linked-Etag on a redirect), serving the
// generated NLI model: the folder it makes loads as a three-label
// classifier.
func TestNLISourceDownloads(t *testing.T) {
	src := embedtest.NLIDir(t)
	served := map[string][]byte{}
	for repoPath, file := range map[string]string{
		"onnx/model.onnx": ModelFile, TokenizerFile: TokenizerFile, "config.json": "config.json",
		"special_tokens_map.json": "special_tokens_map.json", "tokenizer_config.json": "tokenizer_config.json",
	} {
		data, err := os.ReadFile(filepath.Join(src, file))
		if err != nil {
			t.Fatal(err)
		}
		served[hubPath(repoPath)] = data
	}
	var requested []string
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cdn, ok := strings.CutPrefix(r.URL.Path, "/cdn"); ok {
			w.Header().Set("Content-Length", strconv.Itoa(len(served[cdn])))
			w.Write(served[cdn])
			return
		}
		requested = append(requested, r.URL.Path)
		data, ok := served[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(data)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		http.Redirect(w, r, "/cdn"+r.URL.Path, http.StatusFound)
	}))
	defer hub.Close()
	local, err := url.Parse(hub.URL)
	if err != nil {
		t.Fatal(err)
	}

	source := NLISource()
	for _, f := range source.Files {
		if !strings.HasPrefix(f.URL, "https://huggingface.co/") {
			t.Fatalf("%s comes from %s, not Hugging Face", f.Name, f.URL)
		}
	}
	// Requests for huggingface.co go to the local server instead.
	source.Client = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = local.Scheme, local.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
	dir := filepath.Join(t.TempDir(), NLIModel)
	if err := embed.Download(context.Background(), source, dir, nil); err != nil {
		t.Fatal(err)
	}
	if want := slices.Sorted(maps.Keys(served)); !slices.Equal(slices.Sorted(slices.Values(requested)), want) {
		t.Errorf("requested %v, want the repository's files %v", requested, want)
	}
	h, err := LoadClassifier(context.Background(), dir, "entailment model")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if !slices.Equal(h.Labels(), embedtest.NLILabels) {
		t.Errorf("downloaded model's labels %v", h.Labels())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
