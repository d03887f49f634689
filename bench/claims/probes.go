package claims

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/verify"
)

// Probes are altered claims on public text: each sentence of a SQuAD
// paragraph is a claim its paragraph supports, and the same sentence with
// one fact altered is a claim it does not. A verifier that accepts true
// claims in other words must still refuse these.
const (
	ProbeOriginal     = "original"      // the sentence as written, citing its paragraph
	ProbeWrongPassage = "wrong_passage" // the sentence citing the article's paragraph nearest to it but its own
	ProbeNumber       = "changed_number"
	ProbeNegation     = "negation" // "not" inserted after the first auxiliary
	ProbeName         = "swapped_name"
)

// Probe is one probe claim and the passage it cites.
type Probe struct {
	Kind    string
	Claim   string
	Passage string
	Context string
}

// squadExtract is the part of bench/data/squad/extract.json probes use.
type squadExtract struct {
	Paragraphs []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	} `json:"paragraphs"`
}

// MakeProbes builds probes from the paragraphs of a QA extract (bench/data/
// squad/extract.json): per sentence of six words or more, the original and,
// where the sentence allows it, one probe of each altered kind.
func MakeProbes(path string) ([]Probe, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("probes: %w", err)
	}
	var x squadExtract
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, fmt.Errorf("probes: %s: %w", path, err)
	}
	texts := make([]string, len(x.Paragraphs))
	words := make([]map[string]bool, len(x.Paragraphs))
	for i, p := range x.Paragraphs {
		texts[i], words[i] = p.Text, wordSet(p.Text)
	}
	var out []Probe
	for i, p := range x.Paragraphs {
		title := strings.ReplaceAll(p.Title, "_", " ")
		for _, c := range verify.Claims(p.Text, "") {
			s := c.Plain
			if len(strings.Fields(s)) < 6 || !c.Checkable() {
				continue
			}
			out = append(out, Probe{ProbeOriginal, s, p.Text, title})
			if j := nearestOther(s, texts, words, i); j >= 0 {
				out = append(out, Probe{ProbeWrongPassage, s, texts[j], title})
			}
			if alt := changeNumber(s, p.Text); alt != "" {
				out = append(out, Probe{ProbeNumber, alt, p.Text, title})
			}
			if alt := negate(s); alt != "" {
				out = append(out, Probe{ProbeNegation, alt, p.Text, title})
			}
			if alt := swapName(s, p.Text); alt != "" {
				out = append(out, Probe{ProbeName, alt, p.Text, title})
			}
		}
	}
	return out, nil
}

// nearestOther is the paragraph other than own sharing most of the claim's
// words, unless it holds four fifths of them or every number and name of
// the claim (it may well state the claim too); -1 when none qualifies.
// words are the texts' wordSets.
func nearestOther(claim string, texts []string, words []map[string]bool, own int) int {
	best, bestV := -1, 0.0
	cw := contentWords(claim)
	for j, t := range texts {
		if j == own || strings.Contains(t, claim) || holdsSpecifics(t, claim) {
			continue
		}
		if v := overlapOf(cw, words[j]); v > bestV {
			best, bestV = j, v
		}
	}
	if bestV >= 0.8 {
		return -1
	}
	return best
}

// holdsSpecifics reports a text holding every number and every name (a
// capitalised word inside a sentence) of the claim, when it has any.
func holdsSpecifics(text, claim string) bool {
	words := strings.Fields(claim)
	n := 0
	for k, w := range words {
		w = strings.Trim(w, `.,;:"'()`)
		if probeNumberRe.MatchString(w) || k > 0 && isName(w) {
			n++
			if !strings.Contains(text, w) {
				return false
			}
		}
	}
	return n > 0
}

var probeNumberRe = regexp.MustCompile(`\b\d[\d,]*(?:\.\d+)?\b`)

// changeNumber raises the sentence's first number by one (a year by three)
// to a value its paragraph does not hold; "" when it has none.
func changeNumber(s, paragraph string) string {
	loc := probeNumberRe.FindStringIndex(s)
	if loc == nil {
		return ""
	}
	lit := s[loc[0]:loc[1]]
	v, err := strconv.ParseFloat(strings.ReplaceAll(lit, ",", ""), 64)
	if err != nil {
		return ""
	}
	step := 1.0
	if v >= 1900 && v <= 2100 && !strings.Contains(lit, ".") {
		step = 3
	}
	for k := 1; k <= 5; k++ {
		nv := strconv.FormatFloat(v+step*float64(k), 'f', -1, 64)
		if strings.Contains(lit, ".") && !strings.Contains(nv, ".") {
			nv += ".0"
		}
		if !probeNumberRe.MatchString(nv) || strings.Contains(paragraph, nv) {
			continue
		}
		return s[:loc[0]] + nv + s[loc[1]:]
	}
	return ""
}

var auxiliaryRe = regexp.MustCompile(`\b(is|was|are|were|has|had|have|will|can|could|would|did|does)\b`)

// negate inserts "not" after the sentence's first auxiliary; "" when it
// has none or already negates.
func negate(s string) string {
	lower := strings.ToLower(s)
	if strings.Contains(lower, " not ") || strings.Contains(lower, "n't") || strings.Contains(lower, " never ") {
		return ""
	}
	loc := auxiliaryRe.FindStringIndex(s)
	if loc == nil {
		return ""
	}
	return s[:loc[1]] + " not" + s[loc[1]:]
}

// swapName replaces the sentence's first name after its first word with
// another name its paragraph uses and the sentence does not (the swap a
// careless model makes between two names it just read); "" when there is
// none. Names here are capitalised words inside a sentence that are not
// function words.
func swapName(s, paragraph string) string {
	words := strings.Fields(s)
	used := map[string]bool{}
	for _, w := range words {
		used[strings.Trim(w, `.,;:"'()`)] = true
	}
	var others []string
	seen := map[string]bool{}
	pw := strings.Fields(paragraph)
	for k, w := range pw {
		w = strings.Trim(w, `.,;:"'()`)
		if k == 0 || strings.HasSuffix(pw[k-1], ".") || !isName(w) || used[w] || seen[w] {
			continue
		}
		seen[w] = true
		others = append(others, w)
	}
	if len(others) == 0 {
		return ""
	}
	sort.Strings(others)
	for k := 1; k < len(words); k++ {
		w := strings.Trim(words[k], `.,;:"'()`)
		if !isName(w) || strings.HasSuffix(words[k-1], ".") {
			continue
		}
		alt := others[len(w)%len(others)]
		words[k] = strings.Replace(words[k], w, alt, 1)
		return strings.Join(words, " ")
	}
	return ""
}

// isName: a capitalised word of letters, three or more, that is not a
// function word, a month or a weekday.
func isName(w string) bool {
	rs := []rune(w)
	if len(rs) < 3 || !unicode.IsUpper(rs[0]) {
		return false
	}
	for _, r := range rs {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	lower := strings.ToLower(w)
	if overlapStop[lower] {
		return false
	}
	for _, m := range []string{"january", "february", "march", "april", "may", "june", "july", "august", "september",
		"october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
		if lower == m {
			return false
		}
	}
	return true
}

// ProbeReport is, per probe kind, how many probes there were and the
// share that keeps an answer grounded under strict verification.
type ProbeReport struct {
	Kind      string  `json:"kind"`
	N         int     `json:"n"`
	Grounded  float64 `json:"grounded"`  // held (verify.Result.Holds): keeps the answer grounded under strict verification
	Supported float64 `json:"supported"` // supported
}

// ProbeStats counts document frequencies over the probes' passages, as
// Stats does over a set's.
func ProbeStats(ps []Probe) verify.TermStats {
	passages := make([]string, len(ps))
	for i, p := range ps {
		passages[i] = p.Passage
	}
	return PassageStats(passages)
}

// RunProbes verifies every probe and reports per kind, in the order the
// kinds first occur.
func RunProbes(ctx context.Context, v *verify.Verifier, probes []Probe) ([]ProbeReport, error) {
	n, grounded, supported := map[string]int{}, map[string]int{}, map[string]int{}
	var kinds []string
	for _, p := range probes {
		if n[p.Kind] == 0 {
			kinds = append(kinds, p.Kind)
		}
		res, err := v.Verify(ctx, p.Claim, verify.Passage{N: 1, Text: p.Passage, Context: p.Context})
		if err != nil {
			return nil, fmt.Errorf("probe %q: %w", p.Claim, err)
		}
		n[p.Kind]++
		if res.Holds() {
			grounded[p.Kind]++
		}
		if res.Verdict == verify.Supported {
			supported[p.Kind]++
		}
	}
	var out []ProbeReport
	for _, k := range kinds {
		out = append(out, ProbeReport{Kind: k, N: n[k], Grounded: share(grounded[k], n[k]), Supported: share(supported[k], n[k])})
	}
	return out, nil
}

// LabelledProbes reads the verifier's own labelled set (backend/verify/
// testdata/claims.jsonl: claims written for it) and returns its
// unsupported rows of the altered kinds as probes, kind = the row's
// category: number, date, code, entity (a swapped name), negation and
// neighbour (the wrong passage cited).
func LabelledProbes(path string) ([]Probe, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("labelled probes: %w", err)
	}
	var out []Probe
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Category, Label, Claim, Passage string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		switch r.Category {
		case "number", "date", "code", "entity", "negation", "neighbour":
			if r.Label == verify.Unsupported {
				out = append(out, Probe{Kind: r.Category, Claim: r.Claim, Passage: r.Passage})
			}
		}
	}
	return out, nil
}
