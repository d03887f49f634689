package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// hfServer imitates Hugging Face: /resolve/<name> redirects to /cdn/<name>
// and carries the sha256 in X-Linked-Etag on the redirect only.
type hfServer struct {
	files    map[string][]byte
	etag     map[string]string // name -> X-Linked-Etag value to send
	block    chan struct{}     // if set, /cdn/ sends half the body then waits on it
	drop     atomic.Bool       // if set, /cdn/ sends half the body then drops the connection
	requests atomic.Int64
}

func (s *hfServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	switch {
	case strings.HasPrefix(r.URL.Path, "/resolve/"):
		name := strings.TrimPrefix(r.URL.Path, "/resolve/")
		if _, ok := s.files[name]; !ok {
			http.NotFound(w, r)
			return
		}
		if e := s.etag[name]; e != "" {
			w.Header().Set("X-Linked-Etag", `"`+e+`"`)
		}
		http.Redirect(w, r, "/cdn/"+name, http.StatusFound)
	case strings.HasPrefix(r.URL.Path, "/cdn/"):
		data := s.files[strings.TrimPrefix(r.URL.Path, "/cdn/")]
		w.Header().Set("ETag", `"not-a-sha"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		if s.drop.Load() {
			w.Write(data[:len(data)/2])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // closes the connection mid-body
		}
		if s.block == nil {
			w.Write(data)
			return
		}
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		select {
		case <-s.block:
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	default:
		http.NotFound(w, r)
	}
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// publishedTokenizer turns the tiny model's tokenizer.json into the shape
// Hugging Face publishes for all-MiniLM-L6-v2 (no NFD, strip_accents null).
func publishedTokenizer(t *testing.T, data []byte) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["normalizer"] = map[string]any{
		"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
		"strip_accents": nil, "lowercase": true,
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// newModelServer serves the tiny model's files on 127.0.0.1.
func newModelServer(t *testing.T) (*hfServer, *httptest.Server, Source) {
	t.Helper()
	tiny := filepath.Join(t.TempDir(), "tiny")
	if err := embedtest.WriteTinyModel(tiny); err != nil {
		t.Fatal(err)
	}
	s := &hfServer{files: map[string][]byte{}, etag: map[string]string{}}
	for _, name := range []string{ModelFile, TokenizerFile, "config.json", "vocab.txt"} {
		data, err := os.ReadFile(filepath.Join(tiny, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == TokenizerFile {
			data = publishedTokenizer(t, data)
		}
		s.files[name] = data
	}
	s.files[sentenceConfigFile] = []byte(`{"max_seq_length": 100, "do_lower_case": false}`)
	s.etag[ModelFile] = sha(s.files[ModelFile])         // LFS file: verified by ETag
	s.etag[TokenizerFile] = sha(s.files[TokenizerFile]) // also LFS-like
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv, modelSource(srv.URL, sha(s.files["config.json"]))
}

// modelSource lists the files an hfServer at base serves; configSHA is the
// digest pinned for config.json.
func modelSource(base, configSHA string) Source {
	return Source{Name: "tiny", Files: []File{
		{Name: ModelFile, URL: base + "/resolve/" + ModelFile},
		{Name: TokenizerFile, URL: base + "/resolve/" + TokenizerFile},
		{Name: "config.json", URL: base + "/resolve/config.json", SHA256: configSHA},
		{Name: "vocab.txt", URL: base + "/resolve/vocab.txt"}, // no digest anywhere
		{Name: sentenceConfigFile, URL: base + "/resolve/" + sentenceConfigFile},
		{Name: "modules.json", URL: base + "/resolve/modules.json", Optional: true}, // not served
	}}
}

// assertNoLeftovers checks parent holds exactly the wanted names.
func assertNoLeftovers(t *testing.T, parent string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("folder %s holds %v, want %v", parent, got, want)
	}
}

func TestDownload(t *testing.T) {
	s, _, src := newModelServer(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "tiny-model")
	// An older model Footnote downloaded (it carries the marker) gets
	// replaced, with everything in it.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ownerMarkerFile, "stale"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var events []Progress
	if err := Download(context.Background(), src, dir, func(p Progress) { events = append(events, p) }); err != nil {
		t.Fatal(err)
	}
	assertNoLeftovers(t, parent, "tiny-model")
	if _, err := os.Stat(filepath.Join(dir, "stale")); !os.IsNotExist(err) {
		t.Error("old folder content survived the replacement")
	}

	var total int64
	for name, data := range s.files {
		total += int64(len(data))
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name != TokenizerFile && sha(got) != sha(data) {
			t.Errorf("%s differs from the served file", name)
		}
	}

	// Progress: Done never decreases and ends at the byte total.
	if len(events) == 0 {
		t.Fatal("no progress reported")
	}
	for i := 1; i < len(events); i++ {
		if events[i].Done < events[i-1].Done {
			t.Fatalf("progress went back: %+v after %+v", events[i], events[i-1])
		}
		if events[i].FileDone > events[i].FileTotal && events[i].FileTotal > 0 {
			t.Fatalf("file progress beyond its total: %+v", events[i])
		}
	}
	if last := events[len(events)-1]; last.Done != total || last.Total != total {
		t.Errorf("last progress %+v, want done = total = %d", last, total)
	}

	// The manifest records digests and how each was verified.
	var m Manifest
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ModelFile: "etag", TokenizerFile: "etag", "config.json": "manifest", "vocab.txt": "unverified", sentenceConfigFile: "unverified"}
	if len(m.Files) != len(want) {
		t.Errorf("manifest lists %d files, want %d (optional missing file skipped)", len(m.Files), len(want))
	}
	for _, e := range m.Files {
		if e.VerifiedBy != want[e.Name] {
			t.Errorf("%s verified by %q, want %q", e.Name, e.VerifiedBy, want[e.Name])
		}
		if e.SHA256 != sha(s.files[e.Name]) {
			t.Errorf("%s manifest sha256 %s, want the served file's", e.Name, e.SHA256)
		}
		if (e.Adjusted != "") != (e.Name == TokenizerFile) {
			t.Errorf("%s adjusted = %q", e.Name, e.Adjusted)
		}
		if e.Name == TokenizerFile && !strings.Contains(e.Adjusted, "max_length set to 100") {
			t.Errorf("tokenizer adjustment %q does not record the truncation change", e.Adjusted)
		}
	}

	// The adjusted tokenizer strips accents, so the downloaded model loads
	// and treats "café" like "cafe".
	h := loadModel(t, dir)
	if got := h.Info().MaxTokens; got != 100 {
		t.Errorf("MaxTokens = %d, want 100 from %s", got, sentenceConfigFile)
	}
	a, err := h.EmbedQuery(context.Background(), "café résumé")
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.EmbedQuery(context.Background(), "cafe resume")
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(a, b); d > 1e-6 {
		t.Errorf("accented and plain text differ by %g after the tokenizer fix", d)
	}
}

func TestDownloadFailuresLeaveNothing(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(s *hfServer, src *Source)
		wants string
	}{
		{"manifest checksum mismatch", func(s *hfServer, src *Source) { src.Files[2].SHA256 = strings.Repeat("0", 64) }, "corrupt"},
		{"etag checksum mismatch", func(s *hfServer, src *Source) { s.etag[ModelFile] = strings.Repeat("ab", 32) }, "corrupt"},
		{"not found", func(s *hfServer, src *Source) { src.Files[3].URL += "-missing" }, "404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, src := newModelServer(t)
			c.edit(s, &src)
			parent := t.TempDir()
			dir := filepath.Join(parent, "model")
			err := Download(context.Background(), src, dir, nil)
			if err == nil || !strings.Contains(err.Error(), c.wants) {
				t.Fatalf("Download error = %v, want one mentioning %q", err, c.wants)
			}
			assertNoLeftovers(t, parent)

			// A model already in place survives a failed download untouched.
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{ownerMarkerFile, "keep"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := Download(context.Background(), src, dir, nil); err == nil || !strings.Contains(err.Error(), c.wants) {
				t.Fatalf("second Download error = %v, want one mentioning %q", err, c.wants)
			}
			assertNoLeftovers(t, parent, "model")
			assertNoLeftovers(t, dir, ownerMarkerFile, "keep")
		})
	}
}

func TestDownloadCancel(t *testing.T) {
	s, _, src := newModelServer(t)
	s.block = make(chan struct{})
	defer close(s.block)
	parent := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := Download(ctx, src, filepath.Join(parent, "model"), func(p Progress) {
		if p.FileDone > 0 {
			cancel() // half the first file has arrived
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Download error = %v, want context.Canceled", err)
	}
	assertNoLeftovers(t, parent)
}

func TestAdjustTokenizerLeavesOthersAlone(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, normalizer string }{
		{"cased", `{"type":"BertNormalizer","lowercase":false}`},
		{"keep-accents", `{"type":"BertNormalizer","lowercase":true,"strip_accents":false}`},
		{"already-fixed", `{"type":"Sequence","normalizers":[{"type":"NFD"}]}`},
	} {
		path := filepath.Join(dir, c.name+".json")
		body := `{"normalizer":` + c.normalizer + `}`
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		changes, err := adjustTokenizer(path, 0)
		if err != nil || len(changes) > 0 {
			t.Errorf("%s: adjustTokenizer = %v, %v; want unchanged", c.name, changes, err)
		}
	}
}

func TestDefaultSource(t *testing.T) {
	src := DefaultSource()
	names := map[string]bool{}
	for _, f := range src.Files {
		names[f.Name] = true
		if !strings.HasPrefix(f.URL, "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/") {
			t.Errorf("%s URL %s", f.Name, f.URL)
		}
	}
	for _, want := range []string{ModelFile, TokenizerFile, "config.json", "vocab.txt", "special_tokens_map.json", "tokenizer_config.json"} {
		if !names[want] {
			t.Errorf("DefaultSource lacks %s", want)
		}
	}
}
