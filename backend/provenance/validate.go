// Package provenance owns what makes an answer auditable: the validators
// that check every citation's payload at the chain boundary (each failure is
// a return code with a one-line fix), the aggregation of an answer's
// provenance (data tier, derivation chain, confidence), and the audit log.
// It depends on plain types only, so the answer pipeline, the cache and the
// CLI can all use it.
package provenance

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Validation return codes. "missing_<field>" is built with MissingCode.
const (
	CodeEmptyCitations    = "empty_citations"
	CodeBadOffsets        = "bad_offsets"
	CodeMissingScore      = "missing_score"
	CodeMismatchIndexHash = "mismatch_index_hash"
	CodeAnalyzerMismatch  = "analyzer_mismatch"
	CodeRevMismatch       = "rev_mismatch"
	CodeCrossSectionReuse = "cross_section_reuse"
	// CodeNonCorpusEvidence is the re-entry auditor's code: a citation that
	// is not corpus text (model output, chat, notes) or was created after the
	// question started.
	CodeNonCorpusEvidence = "non_corpus_evidence"
)

// MissingCode is the code for an absent required field, e.g. missing_rev.
func MissingCode(field string) string { return "missing_" + field }

// Cross-section policies: one answer segment citing several sections is
// allowed with a warning (the default) or forbidden.
const (
	PolicyAllow  = "allow"
	PolicyForbid = "forbid"
)

// Severities: an error stops an answer from being shown as grounded; a
// warning is shown beside a grounded answer.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Payload is the citation payload the validators check. Every answer
// citation carries these fields in the UI, the CLI JSON, the database and
// the logs.
type Payload struct {
	N          int            `json:"n"`
	DocID      string         `json:"doc_id"`
	SectionID  string         `json:"section_id"`
	SnippetID  string         `json:"snippet_id"`
	SourceURL  string         `json:"source_url"`
	Offsets    corpus.Offsets `json:"offsets"`
	Tokens     int            `json:"tokens"`
	IndexHash  string         `json:"index_hash"`
	EmbedModel string         `json:"embed_model"`
	Analyzer   string         `json:"analyzer"`
	Rev        string         `json:"rev"`
	ScoreRaw   float64        `json:"score_raw"`
	ScoreNorm  float64        `json:"score_norm"`
	KPos       int            `json:"k_pos"`
	KFinal     int            `json:"k_final"`
	Source     string         `json:"source"`
	CreatedAt  time.Time      `json:"created_at"`
}

// Live is what citations are checked against: the index and documents as
// they are now.
type Live struct {
	IndexHash string // the live index's content identity
	// HashNow, when set, reads the live index's content identity at the
	// moment of validation, so an index that changed while an answer was
	// generated (a re-index, a watch event) is what citations are checked
	// against; IndexHash is used without it.
	HashNow func() string
	// Resolve reports whether a citation made by another state of the index
	// still resolves in the live one: its passage exists with the same
	// document revision and offsets. A citation whose index_hash differs and
	// does not resolve is mismatch_index_hash; nil resolves nothing.
	Resolve func(c Payload) bool
	// Analyzer is the analyzer this process tokenizes queries with (read
	// time); a citation found in an index written with another is
	// analyzer_mismatch.
	Analyzer string
	// Rev returns a document's current revision; ok false means the
	// document is gone (also a revision change). Nil skips the rev check.
	Rev func(docID string) (rev string, ok bool)
	// AsOf is when the question started; evidence created later is
	// rejected. Zero skips the check.
	AsOf time.Time
	// SourceOf returns a passage's source as the index holds it now (ok
	// false when it is gone), so a document reclassified as chat or model
	// text while an answer was generated is caught; nil checks the source
	// the citation was found with.
	SourceOf func(snippetID string) (source string, ok bool)
	// CrossSection is PolicyAllow (default when empty) or PolicyForbid.
	CrossSection string
}

// Issue is one failed check.
type Issue struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	N        int    `json:"n,omitempty"`   // the citation number, when one citation failed
	Seg      int    `json:"seg,omitempty"` // the answer segment (1-based), for segment checks
	Message  string `json:"message"`
	Fix      string `json:"fix"` // one line telling the user what to do
}

// Report is the outcome of validation at the chain boundary.
type Report struct {
	OK     bool    `json:"ok"` // no error-severity issue
	Issues []Issue `json:"issues"`
}

// Codes lists the issue codes in order, for logs and tests.
func (r Report) Codes() []string {
	out := make([]string, len(r.Issues))
	for i, is := range r.Issues {
		out[i] = is.Code
	}
	return out
}

// FirstError returns the first error-severity issue, if any.
func (r Report) FirstError() (Issue, bool) {
	for _, is := range r.Issues {
		if is.Severity == SeverityError {
			return is, true
		}
	}
	return Issue{}, false
}

// Segment is one part of an answer — a claim as the answer pipeline splits
// it (verify.Claims): a sentence, list item, table row, heading or code
// block — and the citation numbers it is checked against. One splitter
// serves claim verification, the audit trail and confidence, so they count
// the same sentences.
type Segment struct {
	Text  string `json:"text"`
	Cites []int  `json:"cites"`
	// Inherited is set when Cites come from the next cited sentence of the
	// paragraph or from a list's lead-in (the claims' coverage rule).
	Inherited bool `json:"inherited,omitempty"`
	// NonClaim says why the segment states nothing to check (a heading,
	// code, a lead-in, the refusal sentence, …); "" for a claim.
	NonClaim string `json:"non_claim,omitempty"`
}

var fixes = map[string]string{
	CodeEmptyCitations:    "Ask again or rephrase the question; an answer without citations cannot be shown as grounded.",
	CodeBadOffsets:        "Rebuild the index (Settings → Rebuild index) so passages get valid character offsets.",
	CodeMissingScore:      "Ask fresh; the passage lost its retrieval score, which usually means a stale cached answer.",
	CodeMismatchIndexHash: "Ask fresh; the passage this answer cited has changed or left the index since.",
	CodeAnalyzerMismatch:  "Rebuild the index (Settings → Rebuild index); it was written with a different text analyzer.",
	CodeRevMismatch:       "Re-index the document or ask fresh; the document changed since this passage was indexed.",
	CodeCrossSectionReuse: "Check that each sentence's sources agree, or allow cross-section citations in Settings.",
	CodeNonCorpusEvidence: "Ask fresh; only your documents may be cited, never chat history, notes or model output.",
}

// Fix returns the one-line fix for a code.
func Fix(code string) string {
	if f, ok := fixes[code]; ok {
		return f
	}
	if strings.HasPrefix(code, "missing_") {
		return "Rebuild the index (Settings → Rebuild index); passages are missing provenance fields."
	}
	return "Ask the question again."
}

func issue(code, severity string, n, seg int, format string, args ...any) Issue {
	return Issue{Code: code, Severity: severity, N: n, Seg: seg, Message: fmt.Sprintf(format, args...), Fix: Fix(code)}
}

// Validate checks an answer's citations and segments against the live index.
// Checks run in a fixed order so reports are deterministic.
func Validate(cites []Payload, segs []Segment, live Live) Report {
	var r Report
	if live.HashNow != nil {
		live.IndexHash = live.HashNow()
	}
	if len(cites) == 0 {
		r.Issues = append(r.Issues, issue(CodeEmptyCitations, SeverityError, 0, 0, "the answer cites no passage"))
	}
	unit := ""
	for _, c := range cites {
		for _, f := range missingFields(c) {
			r.Issues = append(r.Issues, issue(MissingCode(f), SeverityError, c.N, 0, "citation [#%d] has no %s", c.N, f))
		}
		if c.Offsets.Unit != "" {
			if c.Offsets.Start < 0 || c.Offsets.Start >= c.Offsets.End {
				r.Issues = append(r.Issues, issue(CodeBadOffsets, SeverityError, c.N, 0,
					"citation [#%d] has offsets %d..%d (start must be before end)", c.N, c.Offsets.Start, c.Offsets.End))
			} else if unit != "" && c.Offsets.Unit != unit {
				r.Issues = append(r.Issues, issue(CodeBadOffsets, SeverityError, c.N, 0,
					"citation [#%d] counts offsets in %q, others in %q", c.N, c.Offsets.Unit, unit))
			}
			if unit == "" {
				unit = c.Offsets.Unit
			}
		}
		if !validScore(c.ScoreNorm) || !validScore(c.ScoreRaw) || c.KFinal <= 0 {
			r.Issues = append(r.Issues, issue(CodeMissingScore, SeverityError, c.N, 0, "citation [#%d] has no retrieval score or rank", c.N))
		}
		if live.IndexHash != "" && c.IndexHash != "" && c.IndexHash != live.IndexHash && (live.Resolve == nil || !live.Resolve(c)) {
			r.Issues = append(r.Issues, issue(CodeMismatchIndexHash, SeverityError, c.N, 0,
				"citation [#%d] comes from index state %s and its passage is no longer in the live index (%s)", c.N, c.IndexHash, live.IndexHash))
		}
		if is, ok := analyzerIssue(c, live.Analyzer); ok {
			r.Issues = append(r.Issues, is)
		}
		if live.Rev != nil && c.DocID != "" && c.Rev != "" {
			if rev, ok := live.Rev(c.DocID); !ok || rev != c.Rev {
				r.Issues = append(r.Issues, issue(CodeRevMismatch, SeverityError, c.N, 0,
					"citation [#%d]: document %s changed since the passage was indexed", c.N, c.DocID))
			}
		}
		now := c
		if live.SourceOf != nil {
			if src, ok := live.SourceOf(c.SnippetID); ok {
				now.Source = src
			}
		}
		if reason := notEvidence(now, live.AsOf); reason != "" {
			r.Issues = append(r.Issues, issue(CodeNonCorpusEvidence, SeverityError, c.N, 0, "citation [#%d] %s", c.N, reason))
		}
	}
	r.Issues = append(r.Issues, crossSection(cites, segs, live.CrossSection)...)
	_, failed := r.FirstError()
	r.OK = !failed
	return r
}

// missingFields lists the required payload fields that are empty.
func missingFields(c Payload) []string {
	var out []string
	for _, f := range []struct {
		name  string
		empty bool
	}{
		{"doc_id", c.DocID == ""},
		{"section_id", c.SectionID == ""},
		{"snippet_id", c.SnippetID == ""},
		{"source_url", c.SourceURL == ""},
		{"offsets", c.Offsets.Unit == ""},
		{"tokens", c.Tokens <= 0},
		{"index_hash", c.IndexHash == ""},
		{"embed_model", c.EmbedModel == ""},
		{"analyzer", c.Analyzer == ""},
		{"rev", c.Rev == ""},
	} {
		if f.empty {
			out = append(out, f.name)
		}
	}
	return out
}

func validScore(s float64) bool { return s > 0 && !math.IsNaN(s) && !math.IsInf(s, 0) }

// notEvidence is the re-entry auditor: it says why a cited unit may not be
// evidence, or "" when it may.
func notEvidence(c Payload, asOf time.Time) string {
	return corpus.NotEvidence(c.Source, c.SnippetID, c.DocID, c.SectionID, c.CreatedAt, asOf)
}

// analyzerIssue is analyzer parity: the index c was found in must have been
// written with the analyzer queries are tokenized with now.
func analyzerIssue(c Payload, running string) (Issue, bool) {
	if running == "" || c.Analyzer == "" || c.Analyzer == running {
		return Issue{}, false
	}
	return issue(CodeAnalyzerMismatch, SeverityError, c.N, 0,
		"citation [#%d] was found in an index written with analyzer %q, but queries are tokenized with %q", c.N, c.Analyzer, running), true
}

// CheckEvidence runs the checks that can fail before anything is
// generated, on the passages packed for the model: analyzer parity and the
// re-entry auditor. The pipeline refuses on any of them without calling the
// model (the run fails fast).
func CheckEvidence(cites []Payload, live Live) []Issue {
	var out []Issue
	for _, c := range cites {
		if is, ok := analyzerIssue(c, live.Analyzer); ok {
			out = append(out, is)
		}
	}
	return append(out, AuditEvidence(cites, live.AsOf)...)
}

// AuditEvidence runs only the re-entry checks; the pipeline calls it on
// packed evidence before the model sees it.
func AuditEvidence(cites []Payload, asOf time.Time) []Issue {
	var out []Issue
	for _, c := range cites {
		if reason := notEvidence(c, asOf); reason != "" {
			out = append(out, issue(CodeNonCorpusEvidence, SeverityError, c.N, 0, "citation [#%d] %s", c.N, reason))
		}
	}
	return out
}

func crossSection(cites []Payload, segs []Segment, policy string) []Issue {
	byN := map[int]Payload{}
	for _, c := range cites {
		byN[c.N] = c
	}
	severity := SeverityWarning
	if policy == PolicyForbid {
		severity = SeverityError
	}
	var out []Issue
	for i, s := range segs {
		sections := map[string]bool{}
		for _, n := range s.Cites {
			if c, ok := byN[n]; ok {
				sections[c.DocID+"#"+c.SectionID] = true
			}
		}
		if len(sections) > 1 {
			names := make([]string, 0, len(sections))
			for k := range sections {
				names = append(names, k)
			}
			sort.Strings(names)
			out = append(out, issue(CodeCrossSectionReuse, severity, 0, i+1,
				"segment %d cites %d sections: %s", i+1, len(sections), strings.Join(names, ", ")))
		}
	}
	return out
}
