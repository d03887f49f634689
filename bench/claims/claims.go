// Package claims measures claim verification on public claim–evidence sets
// that people wrote and labelled (data/<set>/claims.jsonl, licences beside
// them): every claim is verified against the passage it cites, exactly as an
// answer's claim is, and the verdicts and scores are set against the human
// labels, beside a word-overlap baseline computed in the same run. Probes
// (probes.go) measure the opposite harm on altered claims: a changed number,
// an inserted negation, a swapped name or the wrong passage cited.
//
// The command is bench/cmd/claimbench; backend/verify's tests hold floors on
// a small committed sample.
package claims

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/backend/verify"
)

// Gold labels, as the extracts write them.
const (
	Supported    = "supported"     // the passage states everything the claim says
	Partial      = "partial"       // it states part of it
	NotSupported = "not_supported" // it does not state it, or contradicts it
)

// Row is one labelled (claim, cited passage) pair.
type Row struct {
	ID      string `json:"id"`
	Claim   string `json:"claim"`
	Passage string `json:"passage"`
	// Context is the cited document's title, as a packed passage carries its
	// title and heading path beside its text.
	Context string `json:"context"`
	Label   string `json:"label"` // Supported, Partial or NotSupported
	// Gold is the set's own label (partially_supported, refute, irrelevant …).
	Gold string `json:"gold"`
	// PassageFrom says how the passage was chosen (WiCE: "annotated", the
	// sentences annotators marked with their neighbours; "closest", the
	// stretch of the page nearest the claim's words for a claim nothing supports).
	PassageFrom string `json:"passage_from,omitempty"`
}

// Load reads one set's claims.jsonl, checking every row.
func Load(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("claim set: %w", err)
	}
	defer f.Close()
	var rows []Row
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for line := 1; sc.Scan(); line++ {
		var r Row
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		switch {
		case r.ID == "" || seen[r.ID]:
			return nil, fmt.Errorf("%s line %d: missing or repeated id %q", path, line, r.ID)
		case r.Claim == "" || r.Passage == "":
			return nil, fmt.Errorf("%s line %d (%s): empty claim or passage", path, line, r.ID)
		case r.Label != Supported && r.Label != Partial && r.Label != NotSupported:
			return nil, fmt.Errorf("%s line %d (%s): label %q is not %s, %s or %s", path, line, r.ID, r.Label, Supported, Partial, NotSupported)
		}
		seen[r.ID] = true
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s holds no claims", path)
	}
	return rows, nil
}

// LoadSet reads data/<set>/claims.jsonl under dir (bench/claims).
func LoadSet(dir, set string) ([]Row, error) {
	return Load(filepath.Join(dir, "data", set, "claims.jsonl"))
}

// Outcome is one row's verdict.
type Outcome struct {
	Row
	Verdict string  `json:"verdict"`
	Score   float64 `json:"score"`
	Reason  string  `json:"reason,omitempty"`
	// Holds is the product's own rule for a claim that keeps its answer
	// grounded under strict verification (verify.Result.Holds).
	Holds    bool    `json:"holds"`
	Baseline float64 `json:"baseline"` // word overlap (Overlap)
}

// Stats counts document frequencies over the set's passages, standing in
// for the index's statistics over a library.
func Stats(rows []Row) verify.TermStats {
	passages := make([]string, len(rows))
	for i, r := range rows {
		passages[i] = r.Passage
	}
	return PassageStats(passages)
}

// PassageStats counts document frequencies over passages, each distinct
// passage once, as a library holds each chunk once.
func PassageStats(passages []string) verify.TermStats {
	seen := map[string]bool{}
	var texts []string
	for _, p := range passages {
		if !seen[p] {
			seen[p] = true
			texts = append(texts, p)
		}
	}
	return verify.NewCountStats(texts...)
}

// Run verifies every row's claim against its passage with v.
func Run(ctx context.Context, v *verify.Verifier, rows []Row) ([]Outcome, error) {
	out := make([]Outcome, len(rows))
	for i, r := range rows {
		res, err := v.Verify(ctx, r.Claim, verify.Passage{N: 1, Text: r.Passage, Context: r.Context})
		if err != nil {
			return nil, fmt.Errorf("claim %s: %w", r.ID, err)
		}
		out[i] = Outcome{Row: r, Verdict: res.Verdict, Score: res.Score, Reason: res.Reason, Holds: res.Holds(),
			Baseline: Overlap(r.Claim, r.Passage+"\n"+r.Context)}
	}
	return out, nil
}
