package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/atomicfile"
)

// File is one file of a model folder to fetch.
type File struct {
	Name   string // name inside the model folder, e.g. "model.onnx"
	URL    string
	SHA256 string // expected lowercase hex digest; empty to trust the server's ETag
	Size   int64  // expected size in bytes, for progress before the server answers; 0 if unknown
	// Optional files are skipped when the server answers 404.
	Optional bool
}

// Source describes where a model folder comes from.
type Source struct {
	Name   string // human label, e.g. "all-MiniLM-L6-v2"
	Files  []File
	Client *http.Client // nil means a client with no overall timeout (files are large)
}

// Progress reports a download's advance. Done never decreases.
type Progress struct {
	File      string `json:"file"` // file being fetched
	FileDone  int64  `json:"file_done"`
	FileTotal int64  `json:"file_total"` // 0 if unknown
	Done      int64  `json:"done"`       // bytes received across all files
	Total     int64  `json:"total"`      // sum of known sizes; 0 if unknown
}

// ManifestFile is written into every downloaded folder: where each file
// came from, its sha256, how that was verified, and any local adjustment.
const ManifestFile = "download.json"

// Manifest is the content of ManifestFile.
type Manifest struct {
	Source       string          `json:"source"`
	DownloadedAt time.Time       `json:"downloaded_at"`
	Files        []ManifestEntry `json:"files"`
}

// ManifestEntry records one downloaded file.
type ManifestEntry struct {
	Name       string `json:"name"`
	URL        string `json:"url"`
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256"`      // of the bytes as downloaded
	VerifiedBy string `json:"verified_by"` // "manifest", "etag" or "unverified"
	Adjusted   string `json:"adjusted,omitempty"`
}

// DefaultSource is the public all-MiniLM-L6-v2 ONNX export on Hugging Face.
// No digests are pinned: Hugging Face sends each LFS file's sha256 as its
// ETag, which Download checks.
func DefaultSource() Source {
	const base = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/"
	files := []File{{Name: ModelFile, URL: base + "onnx/model.onnx"}}
	for _, name := range []string{TokenizerFile, "config.json", "vocab.txt", "special_tokens_map.json", "tokenizer_config.json"} {
		files = append(files, File{Name: name, URL: base + name})
	}
	// The sentence-transformers input limit, which Download copies into
	// tokenizer.json's truncation length.
	files = append(files, File{Name: sentenceConfigFile, URL: base + sentenceConfigFile, Optional: true})
	return Source{Name: "all-MiniLM-L6-v2", Files: files}
}

// Download fetches every file of src into a staging folder next to dir,
// verifies and flushes each, adjusts tokenizer.json for the Go tokenizer,
// and only then puts the folder at dir. An existing dir is replaced only if
// it is empty or Footnote's own (downloadfolder.go); a folder holding other
// files is refused with ErrFolderInUse and left untouched. On any error or
// cancellation, dir is left as it was and the staging folder is removed.
func Download(ctx context.Context, src Source, dir string, progress func(Progress)) error {
	if len(src.Files) == 0 {
		return errors.New("download model: the source lists no files")
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	dir, err := downloadTarget(filepath.Clean(dir))
	if err != nil {
		return err
	}
	// Refuse before fetching anything; replaceDir checks again at the end.
	if err := checkReplaceable(dir, dir); err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("download model: create %s: %w", parent, err)
	}
	staging, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".download-*")
	if err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	defer os.RemoveAll(staging) // gone after a successful rename anyway

	d := &downloader{client: src.Client, progress: progress}
	if d.client == nil {
		d.client = &http.Client{}
	}
	for _, f := range src.Files {
		d.total += f.Size
	}
	manifest := Manifest{Source: src.Name, DownloadedAt: time.Now().UTC()}
	for _, f := range src.Files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || strings.HasPrefix(f.Name, ".") {
			return fmt.Errorf("download model: invalid file name %q in source", f.Name)
		}
		entry, err := d.fetch(ctx, f, staging)
		if errors.Is(err, errOptionalMissing) {
			continue
		}
		if err != nil {
			return err
		}
		manifest.Files = append(manifest.Files, entry)
	}

	for i, e := range manifest.Files {
		if e.Name != TokenizerFile {
			continue
		}
		changes, err := adjustTokenizer(filepath.Join(staging, e.Name), sentenceMaxSeqLength(staging))
		if err != nil {
			return fmt.Errorf("download model: %w", err)
		}
		if len(changes) > 0 {
			manifest.Files[i].Adjusted = strings.Join(changes, "; ") + " (sha256 is of the original)"
		}
	}
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(staging, ManifestFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(staging, ownerMarkerFile), []byte(ownerMarkerText), 0o644); err != nil {
		return fmt.Errorf("download model: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return replaceDir(staging, dir)
}

var errOptionalMissing = errors.New("optional file not on the server")

const sentenceConfigFile = "sentence_bert_config.json"

// sentenceMaxSeqLength reads max_seq_length from a sentence-transformers
// config in dir, or 0.
func sentenceMaxSeqLength(dir string) int {
	var cfg struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	data, err := os.ReadFile(filepath.Join(dir, sentenceConfigFile))
	if err != nil || json.Unmarshal(data, &cfg) != nil {
		return 0
	}
	return cfg.MaxSeqLength
}

type downloader struct {
	client   *http.Client
	progress func(Progress)
	done     int64
	total    int64
}

// fetch streams one file into staging, hashing as it goes.
func (d *downloader) fetch(ctx context.Context, f File, staging string) (ManifestEntry, error) {
	entry := ManifestEntry{Name: f.Name, URL: f.URL}
	fail := func(err error) (ManifestEntry, error) {
		if ctx.Err() != nil {
			return entry, ctx.Err()
		}
		return entry, fmt.Errorf("download %s from %s failed (%v); check the network connection and try again", f.Name, f.URL, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return fail(err)
	}
	// Hugging Face puts the LFS sha256 on the redirect response, not on the
	// CDN response the client ends at, so remember headers along the way.
	var hops []http.Header
	client := *d.client
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if r.Response != nil {
			hops = append(hops, r.Response.Header)
		}
		if d.client.CheckRedirect != nil {
			return d.client.CheckRedirect(r, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && f.Optional {
		return entry, errOptionalMissing
	}
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("server answered %s", resp.Status))
	}
	hops = append(hops, resp.Header)

	fileTotal := f.Size
	if resp.ContentLength > 0 {
		d.total += resp.ContentLength - f.Size // the server knows better than the source
		fileTotal = resp.ContentLength
	}
	out, err := os.Create(filepath.Join(staging, f.Name))
	if err != nil {
		return entry, fmt.Errorf("download model: %w", err)
	}
	defer out.Close()
	hash := sha256.New()
	buf := make([]byte, 256<<10)
	var fileDone int64
	d.progress(Progress{File: f.Name, FileTotal: fileTotal, Done: d.done, Total: d.total})
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				return entry, fmt.Errorf("download model: write %s: %w", f.Name, err)
			}
			hash.Write(buf[:n])
			fileDone += int64(n)
			d.done += int64(n)
			d.progress(Progress{File: f.Name, FileDone: fileDone, FileTotal: fileTotal, Done: d.done, Total: d.total})
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fail(rerr)
		}
	}
	if resp.ContentLength > 0 && fileDone != resp.ContentLength {
		return fail(fmt.Errorf("got %d of %d bytes", fileDone, resp.ContentLength))
	}
	if err := out.Sync(); err != nil {
		return entry, fmt.Errorf("download model: write %s: %w", f.Name, err)
	}
	if err := out.Close(); err != nil {
		return entry, fmt.Errorf("download model: write %s: %w", f.Name, err)
	}

	entry.Size = fileDone
	entry.SHA256 = hex.EncodeToString(hash.Sum(nil))
	want, by := strings.ToLower(f.SHA256), "manifest"
	if want == "" {
		want, by = etagSHA256(hops), "etag"
	}
	switch {
	case want == "":
		entry.VerifiedBy = "unverified"
	case want != entry.SHA256:
		return entry, fmt.Errorf("download of %s from %s is corrupt (sha256 %s, expected %s); try again, and if it keeps failing the source has changed", f.Name, f.URL, entry.SHA256, want)
	default:
		entry.VerifiedBy = by
	}
	return entry, nil
}

// etagSHA256 returns the first X-Linked-Etag or ETag that is a bare sha256
// (64 hex digits), or "".
func etagSHA256(headers []http.Header) string {
	for _, key := range []string{"X-Linked-Etag", "Etag"} {
		for _, h := range headers {
			v := strings.TrimPrefix(strings.TrimSpace(h.Get(key)), "W/")
			v = strings.ToLower(strings.Trim(v, `"`))
			if len(v) == 64 && isHex(v) {
				return v
			}
		}
	}
	return ""
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// adjustTokenizer prepares a published tokenizer.json for hugot's Go
// tokenizer and returns what it changed:
//   - a lowercasing BertNormalizer becomes NFD followed by BertNormalizer with
//     strip_accents on. The Rust tokenizer treats strip_accents=null as
//     "follow lowercase" and decomposes internally; older Go tokenizers did
//     neither and turned accented and Korean text into [UNK].
//   - when maxSeq > 0 (the sentence-transformers limit), the truncation
//     length is set to it; Load reads its input limit from there, and
//     exports often carry a shorter training-time value.
func adjustTokenizer(path string, maxSeq int) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", filepath.Base(path), err)
	}
	var changes []string

	var norm struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          bool   `json:"lowercase"`
	}
	raw, ok := doc["normalizer"]
	if ok && json.Unmarshal(raw, &norm) == nil && norm.Type == "BertNormalizer" && norm.Lowercase &&
		(norm.StripAccents == nil || *norm.StripAccents) {
		orTrue := func(b *bool) bool { return b == nil || *b }
		fixed, err := json.Marshal(map[string]any{
			"type": "Sequence",
			"normalizers": []any{
				map[string]any{"type": "NFD"},
				map[string]any{
					"type":                 "BertNormalizer",
					"clean_text":           orTrue(norm.CleanText),
					"handle_chinese_chars": orTrue(norm.HandleChineseChars),
					"strip_accents":        true,
					"lowercase":            true,
				},
			},
		})
		if err != nil {
			return nil, err
		}
		doc["normalizer"] = fixed
		changes = append(changes, "normalizer rewritten to NFD + BertNormalizer(strip_accents, lowercase) for the Go tokenizer")
	}

	if maxSeq > 0 {
		var trunc map[string]any
		if raw, ok := doc["truncation"]; ok {
			_ = json.Unmarshal(raw, &trunc) // null stays nil
		}
		if trunc == nil {
			trunc = map[string]any{"direction": "Right", "strategy": "LongestFirst", "stride": 0}
		}
		if n, _ := trunc["max_length"].(float64); int(n) != maxSeq {
			trunc["max_length"] = maxSeq
			fixed, err := json.Marshal(trunc)
			if err != nil {
				return nil, err
			}
			doc["truncation"] = fixed
			changes = append(changes, fmt.Sprintf("truncation max_length set to %d from %s", maxSeq, sentenceConfigFile))
		}
	}

	if len(changes) == 0 {
		return nil, nil
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(path, out, 0o644); err != nil {
		return nil, err
	}
	return changes, nil
}
