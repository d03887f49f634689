package rerank

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

// sharedModel is a model loaded once per test binary.
type sharedModel struct {
	once sync.Once
	h    *Hugot
	err  error
}

var tinyModel, nliModel sharedModel

func (s *sharedModel) load(t testing.TB, dir string, load func(dir string) (*Hugot, error)) *Hugot {
	t.Helper()
	s.once.Do(func() { s.h, s.err = load(dir) })
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.h
}

// loadTiny loads the generated tiny cross-encoder once per test binary.
func loadTiny(t testing.TB) *Hugot {
	t.Helper()
	return tinyModel.load(t, embedtest.CrossEncoderDir(t), func(dir string) (*Hugot, error) {
		return Load(context.Background(), dir)
	})
}

// order returns passage indexes by score, highest first (index breaks ties).
func order(scores []float32) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	return idx
}

func TestHugotScoresFollowQueryCoverage(t *testing.T) {
	h := loadTiny(t)
	query := "install linux desktop"
	passages := []string{
		"On Windows, run the program and restart it.",                 // none of the words
		"To install the app on Windows, open the download page.",      // install
		"The Linux desktop notes describe the folder layout.",         // linux, desktop
		"Install Footnote on a Linux desktop: download the AppImage.", // all three
	}
	got, err := h.Rerank(context.Background(), query, passages)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if !(s > 0 && s < 1) || math.IsNaN(float64(s)) {
			t.Errorf("score %d = %v, want a probability in (0,1)", i, s)
		}
	}
	// The expected order is computed without the model: share of query words present.
	want := make([]float32, len(passages))
	for i, p := range passages {
		want[i] = WordOverlap(query, p)
	}
	if g, w := order(got), order(want); !slices.Equal(g, w) {
		t.Fatalf("model order %v (scores %v), word-overlap order %v (%v)", g, got, w, want)
	}
	if got[3]-got[0] < 0.5 {
		t.Errorf("full match %.3f vs no match %.3f: the head should separate them clearly", got[3], got[0])
	}
}

func TestHugotBatchesMatchSinglePairs(t *testing.T) {
	h := loadTiny(t)
	ctx := context.Background()
	query := "backup the database before an update"
	var passages []string
	for i := range 11 { // one full batch of 8, then three single pairs
		passages = append(passages, strings.Repeat("notes about the server ", i+1)+"database backup")
	}
	batched, err := h.Rerank(ctx, query, passages)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range passages {
		one, err := h.Rerank(ctx, query, []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(float64(one[0] - batched[i])); d > 1e-5 {
			t.Errorf("passage %d: batched %.6f, alone %.6f", i, batched[i], one[0])
		}
	}
	if got, err := h.Rerank(ctx, query, nil); err != nil || len(got) != 0 {
		t.Errorf("no passages: %v, %v", got, err)
	}
}

func TestHugotTruncatesLongPairs(t *testing.T) {
	h := loadTiny(t)
	long := strings.Repeat("the river runs past the old mill and the forest ", 60)
	cases := []struct{ query, passage string }{
		{"mill forest", long},
		{long, "mill forest"},
		{long, long},
	}
	for _, c := range cases {
		p := h.encode(c.query, c.passage)
		if len(p.ids) > h.MaxTokens() {
			t.Errorf("pair of %d tokens exceeds the model's %d", len(p.ids), h.MaxTokens())
		}
		if p.ids[0] != h.clsID || p.ids[len(p.ids)-1] != h.sepID || p.types[0] != 0 || p.types[len(p.types)-1] != 1 {
			t.Errorf("pair is not [CLS] q [SEP] p [SEP] with segments 0/1: %v %v", p.ids, p.types)
		}
		if _, err := h.Rerank(context.Background(), c.query, []string{c.passage}); err != nil {
			t.Fatal(err)
		}
	}
	// A short query survives whole when the passage is cut.
	p := h.encode("mill forest", long)
	if want := len(h.tok.Encode("mill forest")); p.ids[want+1] != h.sepID {
		t.Errorf("query was cut although the passage is the longer side")
	}
}

func TestHugotConcurrentCalls(t *testing.T) {
	h := loadTiny(t)
	query := "water temperature"
	passages := []string{"the water temperature is low", "a note on music", "temperature of the sea water", "cold"}
	want, err := h.Rerank(context.Background(), query, passages)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			got, err := h.Rerank(context.Background(), query, passages)
			if err == nil && !slices.Equal(got, want) {
				err = errors.New("concurrent call scored differently")
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHugotCancelledAndClosed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := loadTiny(t)
	if _, err := h.Rerank(ctx, "q", []string{"a", "b"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}

	other, err := Load(context.Background(), embedtest.CrossEncoderDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(other.Name(), filepath.Base(embedtest.CrossEncoderDir(t))+"@") {
		t.Errorf("name %q should be the folder name and a hash prefix", other.Name())
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := other.Rerank(context.Background(), "q", []string{"a"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("call after close: %v", err)
	}
}

func TestLoadRejectsBadFolders(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := Load(ctx, missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing folder: %v", err)
	}
	empty := t.TempDir()
	if _, err := Load(ctx, empty); err == nil || !strings.Contains(err.Error(), "no "+ModelFile) {
		t.Errorf("empty folder: %v", err)
	}
	// The embedding model has the right files but outputs per-token vectors,
	// not one logit per pair: hugot's cross-encoder validation refuses it.
	if _, err := Load(ctx, embedtest.TinyDir(t)); err == nil || !strings.Contains(err.Error(), "could not be loaded") {
		t.Errorf("embedding model accepted as a reranker: %v", err)
	}
	broken := t.TempDir()
	for _, name := range []string{ModelFile, TokenizerFile} {
		if err := os.WriteFile(filepath.Join(broken, name), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(ctx, broken); err == nil || !strings.Contains(err.Error(), TokenizerFile) {
		t.Errorf("broken tokenizer: %v", err)
	}
}

func TestFake(t *testing.T) {
	ctx := context.Background()
	got, err := Fake{}.Rerank(ctx, "Linux install", []string{"install on linux", "Linux only", "nothing"})
	if err != nil || !slices.Equal(got, []float32{1, 0.5, 0}) {
		t.Errorf("word overlap scores %v, %v", got, err)
	}
	boom := errors.New("boom")
	if _, err := (Fake{Err: boom}).Rerank(ctx, "q", []string{"p"}); !errors.Is(err, boom) {
		t.Errorf("Err not returned: %v", err)
	}
	got, _ = Fake{Score: func(q, p string) float32 { return float32(len(p)) }}.Rerank(ctx, "q", []string{"ab", "abc"})
	if !slices.Equal(got, []float32{2, 3}) {
		t.Errorf("custom Score ignored: %v", got)
	}
}

// BenchmarkRerank20 scores the 20 candidates a search reranks by default,
// each about a 200-token chunk. ns/pair is the CPU cost per candidate.
func BenchmarkRerank20(b *testing.B) {
	h := loadTiny(b)
	words := strings.Fields("the index keeps every passage of a document with its section title and the offsets of its text so citations can point back to the source file on disk")
	var passages []string
	for i := range 20 {
		var sb strings.Builder
		for j := range 120 {
			sb.WriteString(words[(i+j)%len(words)])
			sb.WriteByte(' ')
		}
		passages = append(passages, sb.String())
	}
	ctx := context.Background()
	if _, err := h.Rerank(ctx, "where does the index keep passages", passages); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := h.Rerank(ctx, "where does the index keep passages", passages); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(passages)), "ns/pair")
}

func TestClipWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a b c", 2, "a b"},
		{"  a\tb  c ", 2, "  a\tb"},
		{"a b", 5, "a b"},
		{"", 3, ""},
		{"one, two. three", 2, "one, two."},
	} {
		if got := clipWords(c.in, c.n); got != c.want {
			t.Errorf("clipWords(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	// Clipping never changes what the model reads.
	h := loadTiny(t)
	long := strings.Repeat("the river runs past the old mill, and the forest ", 200)
	enc := h.tok.Encode(long)
	clipped := h.tok.Encode(clipWords(long, h.MaxTokens()))
	if len(clipped) < h.MaxTokens() || !slices.Equal(clipped, enc[:len(clipped)]) {
		t.Errorf("clipped text encodes to %d tokens, not a prefix of at least %d", len(clipped), h.MaxTokens())
	}
}
