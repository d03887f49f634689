package verify_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/verify"
)

// labelled is one row of testdata/claims.jsonl: a claim, the passage it
// cites, and what a careful reader says the passage does for the claim.
type labelled struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Label    string `json:"label"`
	Claim    string `json:"claim"`
	Passage  string `json:"passage"`
	Source   string `json:"source"` // a sample library file holding the passage, or "written"
}

func loadLabelled(t testing.TB) []labelled { return loadLabelledFile(t, "claims.jsonl") }

func loadLabelledFile(t testing.TB, name string) []labelled {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []labelled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r labelled
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("testdata/%s line %d: %v", name, line, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestLabelledSetIsWellFormed(t *testing.T) {
	rows := loadLabelled(t)
	checkRows(t, append(rows, loadLabelledFile(t, "claims_heldout.jsonl")...))
	if len(rows) < 150 {
		t.Errorf("%d rows, want at least 150", len(rows))
	}
	cats := map[string]int{}
	for _, r := range rows {
		cats[r.Category]++
	}
	for _, c := range []string{"paraphrase", "partial", "number", "date", "code", "entity", "negation", "neighbour", "korean"} {
		if cats[c] < 10 {
			t.Errorf("category %s has %d rows, want at least 10", c, cats[c])
		}
	}
}

func checkRows(t *testing.T, rows []labelled) {
	t.Helper()
	ids := map[string]bool{}
	for _, r := range rows {
		if ids[r.ID] {
			t.Errorf("duplicate id %s", r.ID)
		}
		ids[r.ID] = true
		switch r.Label {
		case verify.Supported, verify.Partial, verify.Unsupported:
		default:
			t.Errorf("%s: label %q", r.ID, r.Label)
		}
		if r.Claim == "" || r.Passage == "" {
			t.Errorf("%s: empty claim or passage", r.ID)
		}
		if r.Source != "written" {
			b, err := os.ReadFile(filepath.Join("..", "..", r.Source))
			if err != nil {
				t.Errorf("%s: %v", r.ID, err)
			} else if !strings.Contains(string(b), r.Passage) {
				t.Errorf("%s: passage is not in %s", r.ID, r.Source)
			}
		}
	}
}

// libraryStats counts document frequencies over the sample library's
// paragraphs and the written passages, standing in for the index's own
// statistics.
func libraryStats(t testing.TB, rows []labelled) verify.TermStats {
	t.Helper()
	var texts []string
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Source == "written" && !seen[r.Passage] {
			seen[r.Passage] = true
			texts = append(texts, r.Passage)
		}
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "sample", "library", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	blank := regexp.MustCompile(`\n\s*\n`)
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".md" && ext != ".txt" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, blank.Split(string(b), -1)...)
	}
	return verify.NewCountStats(texts...)
}

// tally is one configuration's results on the labelled set.
type tally struct {
	n, correct, falseSupported map[string]int
	misses                     []string
}

func runLabelled(t testing.TB, v *verify.Verifier, rows []labelled) tally {
	t.Helper()
	tl := tally{n: map[string]int{}, correct: map[string]int{}, falseSupported: map[string]int{}}
	for _, r := range rows {
		res, err := v.Verify(context.Background(), r.Claim, verify.Passage{N: 1, Text: r.Passage})
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		tl.n[r.Category]++
		if res.Verdict == r.Label {
			tl.correct[r.Category]++
		} else {
			tl.misses = append(tl.misses, fmt.Sprintf("%s: %s, want %s (score %.2f, lexical %.2f, %s): %s",
				r.ID, res.Verdict, r.Label, res.Score, res.Signals.Lexical, res.Reason, r.Claim))
		}
		if res.Verdict == verify.Supported && r.Label != verify.Supported {
			tl.falseSupported[r.Category]++
		}
	}
	return tl
}

func (tl tally) total() (n, correct int) {
	for c := range tl.n {
		n += tl.n[c]
		correct += tl.correct[c]
	}
	return n, correct
}

func (tl tally) table() string {
	var cats []string
	for c := range tl.n {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %5s %8s %15s\n", "category", "rows", "accuracy", "false supported")
	for _, c := range cats {
		fmt.Fprintf(&b, "%-14s %5d %8.2f %15d\n", c, tl.n[c], float64(tl.correct[c])/float64(tl.n[c]), tl.falseSupported[c])
	}
	n, correct := tl.total()
	fs := 0
	for _, v := range tl.falseSupported {
		fs += v
	}
	fmt.Fprintf(&b, "%-14s %5d %8.3f %15d\n", "all", n, float64(correct)/float64(n), fs)
	return b.String()
}

// accuracyFloors are the figures the verifier reaches on this labelled
// set; a change that does worse fails. The set was written for the
// verifier and its old thresholds were chosen on it (0.908 lexical, 197 of
// 217). Since the verifier was recalibrated on claims people wrote and
// labelled (bench/claims: graded facts instead of a cliff at any failed
// check), it gives 0.899 (195 of 217): it now calls some claims partial
// that this set calls unsupported because one name is missing, and some
// paraphrases partial that it calls supported. Categories the lexical and
// semantic signals cannot always decide (role swaps, partial support) have
// their false-supported count recorded but no zero target.
type accuracyFloors struct {
	overall        float64
	falseSupported map[string]int // at most this many per category; missing = 0
}

// zeroFalseSupported are the categories where a wrong number, code or
// negation must never be called supported.
var zeroFalseSupported = []string{"number", "code", "negation"}

func checkFloors(t *testing.T, name string, tl tally, floors accuracyFloors) {
	t.Helper()
	n, correct := tl.total()
	acc := float64(correct) / float64(n)
	t.Logf("%s: accuracy %.3f (%d of %d)\n%s", name, acc, correct, n, tl.table())
	for _, m := range tl.misses {
		t.Logf("  miss %s", m)
	}
	if acc < floors.overall {
		t.Errorf("%s: accuracy %.3f below the floor %.3f", name, acc, floors.overall)
	}
	for c, got := range tl.falseSupported {
		if got > floors.falseSupported[c] {
			t.Errorf("%s: %d false supported in %s, floor %d", name, got, c, floors.falseSupported[c])
		}
	}
	for _, c := range zeroFalseSupported {
		if tl.falseSupported[c] != 0 {
			t.Errorf("%s: %d false supported in %s, want 0", name, tl.falseSupported[c], c)
		}
	}
}

func TestVerifierAccuracyLexical(t *testing.T) {
	rows := loadLabelled(t)
	v := &verify.Verifier{Stats: libraryStats(t, rows)}
	checkFloors(t, "lexical", runLabelled(t, v, rows), accuracyFloors{overall: 0.898,
		falseSupported: map[string]int{"partial": 1, "entity": 1, "role_swap": 2}})
}

func TestVerifierAccuracyTinyModel(t *testing.T) {
	rows := loadLabelled(t)
	emb := loadEmbedder(t, embedtest.TinyDir(t))
	v := &verify.Verifier{Stats: libraryStats(t, rows), Embedder: emb}
	checkFloors(t, "lexical+tiny model", runLabelled(t, v, rows), accuracyFloors{overall: 0.898,
		falseSupported: map[string]int{"partial": 1, "entity": 1, "korean": 1, "role_swap": 2}})
}

// The same set on the model MODEL_SRC names (a MiniLM-shaped model), or on
// the tiny model when it is unset.
func TestVerifierAccuracyModelSrc(t *testing.T) {
	rows := loadLabelled(t)
	name := "lexical+tiny model (MODEL_SRC unset)"
	if src := os.Getenv(embedtest.ModelSrcEnv); src != "" {
		name = "lexical+" + filepath.Base(src)
	}
	emb := loadEmbedder(t, embedtest.Dir(t))
	v := &verify.Verifier{Stats: libraryStats(t, rows), Embedder: emb}
	checkFloors(t, name, runLabelled(t, v, rows), accuracyFloors{overall: 0.898,
		falseSupported: map[string]int{"partial": 1, "entity": 1, "korean": 1, "role_swap": 2}})
}

// The held-out set (36 rows) was written after the first thresholds were
// fixed. Its first run gave 0.889 lexical and 0.861 with the tiny model;
// after a negation scope fix, 0.917 and 0.889. The recalibrated verifier
// gives 0.889 (32 of 36) with both: a date row, one Korean row and two
// partial/entity rows are missed.
func TestVerifierAccuracyHeldOut(t *testing.T) {
	rows := loadLabelled(t)
	held := loadLabelledFile(t, "claims_heldout.jsonl")
	stats := libraryStats(t, append(rows, held...))
	checkFloors(t, "held out, lexical", runLabelled(t, &verify.Verifier{Stats: stats}, held),
		accuracyFloors{overall: 0.888, falseSupported: map[string]int{"korean": 1, "partial": 1}})
	emb := loadEmbedder(t, embedtest.TinyDir(t))
	checkFloors(t, "held out, lexical+tiny model", runLabelled(t, &verify.Verifier{Stats: stats, Embedder: emb}, held),
		accuracyFloors{overall: 0.888, falseSupported: map[string]int{"korean": 1, "partial": 1}})
}

// The altered rows of the set (a changed number, date or code, a negation
// turned round) must not keep an answer grounded: not supported, and not
// partly supported either. Swapped names and neighbouring passages are
// held to what they reach (3 of 13 and 3 of 18 partly supported: a claim
// that shares all but one name with its passage is partly supported now).
func TestAlteredClaimsAreNotGrounded(t *testing.T) {
	rows := loadLabelled(t)
	v := &verify.Verifier{Stats: libraryStats(t, rows)}
	grounded, n := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if r.Label != verify.Unsupported {
			continue
		}
		res, err := v.Verify(context.Background(), r.Claim, verify.Passage{N: 1, Text: r.Passage})
		if err != nil {
			t.Fatal(err)
		}
		n[r.Category]++
		if res.Verdict != verify.Unsupported {
			grounded[r.Category]++
			t.Logf("%s %s: %s (%s)", r.ID, res.Verdict, r.Claim, res.Reason)
		}
	}
	limits := map[string]int{"number": 0, "date": 0, "code": 0, "negation": 0, "entity": 3, "neighbour": 3}
	for cat, limit := range limits {
		if n[cat] == 0 {
			t.Errorf("no unsupported rows in %s", cat)
		}
		if grounded[cat] > limit {
			t.Errorf("%s: %d of %d altered claims keep the answer grounded, want at most %d", cat, grounded[cat], n[cat], limit)
		}
	}
}

func loadEmbedder(t testing.TB, dir string) embed.Embedder {
	t.Helper()
	h, err := embed.Load(context.Background(), dir)
	if err != nil {
		t.Fatalf("load model %s: %v", dir, err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}
