package provenance

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// AuditFileName is the audit log's name inside the data folder.
const AuditFileName = "audit.log"

// TraceRow is one audit record: a question (Seg 0, Kind "question") or one
// answer segment (Seg ≥ 1, Kind "segment"). The same rows go to the log
// file and to the rag_traces table.
type TraceRow struct {
	TS   time.Time `json:"ts"`
	QID  string    `json:"qid"`
	Seg  int       `json:"seg"`
	Kind string    `json:"kind"`
	// DeltaS is 1 − cos(question, passage) of the best passage: of the
	// question's evidence on a question row, of the segment's citations on
	// a segment row; nil when not measured. Lambda is the λ state of the
	// answer or segment ("convergent", "divergent", "-").
	DeltaS *float64 `json:"deltaS"`
	Lambda string   `json:"lambda"`
	// Analyzer is the index's write-time analyzer the evidence was found with.
	Analyzer string `json:"analyzer"`
	// K is the number of passages each retriever fetched (top-k).
	K int `json:"k"`
	// TraceID is the answer's retrieval trace id (rag.NewTraceID), the
	// same in its answer record and trace line.
	TraceID    string    `json:"trace_id"`
	Store      string    `json:"store"` // the index file's name, or "cache" for a cached answer
	IndexHash  string    `json:"index_hash"`
	EmbedModel string    `json:"embed_model"`
	Citations  []string  `json:"citations"` // snippet ids
	Scores     []float64 `json:"scores"`    // score_norm, per citation
	KPos       []int     `json:"k_pos"`
	KFinal     []int     `json:"k_final"`
	SectionIDs []string  `json:"section_id"`
	Revs       []string  `json:"rev"`
	Text       string    `json:"text"` // the question, or the segment's text
	// EvidenceSources counts the packed passages by source (question rows
	// only), so the log shows that nothing but corpus text was evidence.
	EvidenceSources map[string]int `json:"evidence_sources,omitempty"`
	// Checks are the validator codes the answer's checks returned
	// (question rows only; none is "ok"); each has a row of its own, kind
	// "check", whose Code and Severity say which and whose text says what
	// failed and how to fix it.
	Checks   []string `json:"checks,omitempty"`
	Code     string   `json:"code,omitempty"`
	Severity string   `json:"severity,omitempty"`
	// Version is the Footnote build that wrote the answer (backend/version).
	Version string `json:"footnote_version,omitempty"`
	// RefusedBy is the gate signal that refused the question before the
	// model was called, as signal:value<threshold (question rows only; ""
	// when none did).
	RefusedBy string `json:"refused_by,omitempty"`
}

// Row kinds.
const (
	KindQuestion = "question"
	KindSegment  = "segment"
	KindCheck    = "check"
)

// CheckRows renders a validation report's issues as audit rows (kind
// check) on base: the code and severity as keys, the message and its fix
// as the text.
func CheckRows(base TraceRow, issues []Issue) []TraceRow {
	out := make([]TraceRow, 0, len(issues))
	for _, is := range issues {
		r := base
		r.Kind, r.Seg, r.Code, r.Severity = KindCheck, is.Seg, is.Code, is.Severity
		r.Text = is.Message + ". Fix: " + is.Fix
		out = append(out, r)
	}
	return out
}

// Line renders r as one grep-friendly key=value line (lists are
// comma-separated; free text is quoted). The keys come in the conventional
// order — ts qid seg deltaS lambda k store index_hash embed citations scores
// kpos kfinal section_id rev — then Footnote's own: kind trace_id,
// version (the build), then evidence_sources and validation (the validator
// codes, or "ok") on question lines (and refused_by on a question a gate
// refused), code and severity on check lines, and the text.
// deltaS and lambda are "-" when not measured.
func (r TraceRow) Line() string {
	var b strings.Builder
	deltaS := "-"
	if r.DeltaS != nil {
		deltaS = strconv.FormatFloat(*r.DeltaS, 'f', 3, 64)
	}
	fmt.Fprintf(&b, "ts=%s qid=%s seg=%d deltaS=%s lambda=%s k=%d store=%s index_hash=%s embed=%s",
		r.TS.UTC().Format(time.RFC3339Nano), field(r.QID), r.Seg, deltaS, field(r.Lambda), r.K, field(r.Store), field(r.IndexHash), field(r.EmbedModel))
	fmt.Fprintf(&b, " citations=%s scores=%s kpos=%s kfinal=%s section_id=%s rev=%s kind=%s trace_id=%s",
		list(r.Citations), floats(r.Scores), ints(r.KPos), ints(r.KFinal), list(r.SectionIDs), list(r.Revs),
		field(r.Kind), field(r.TraceID))
	b.WriteString(" version=" + field(r.Version))
	switch r.Kind {
	case KindQuestion:
		b.WriteString(" evidence_sources=" + counts(r.EvidenceSources))
		checks := "ok"
		if len(r.Checks) > 0 {
			checks = list(r.Checks)
		}
		b.WriteString(" validation=" + checks)
		if r.RefusedBy != "" {
			b.WriteString(" refused_by=" + field(r.RefusedBy))
		}
	case KindCheck:
		b.WriteString(" code=" + field(r.Code) + " severity=" + field(r.Severity))
	}
	b.WriteString(" text=" + strconv.Quote(r.Text)) // free text last, so every key before it greps cleanly
	return b.String()
}

// counts renders source:count pairs in name order ("corpus:3").
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := slices.Sorted(maps.Keys(m))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = field(k) + ":" + strconv.Itoa(m[k])
	}
	return strings.Join(out, ",")
}

func field(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, " ", "_")
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = field(x)
	}
	return strings.Join(out, ",")
}

func floats(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.FormatFloat(x, 'f', 4, 64)
	}
	return strings.Join(out, ",")
}

func ints(xs []int) string {
	if len(xs) == 0 {
		return "-"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return strings.Join(out, ",")
}

// AuditLog appends trace lines to a file that rotates by size: when the
// file would exceed MaxBytes it becomes audit.log.1 (older ones shift up to
// Keep) and a fresh file starts. Safe for concurrent use.
type AuditLog struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	keep     int
	f        *os.File
	size     int64
}

// Default rotation: 5 MiB a file, 3 old files.
const (
	DefaultAuditMaxBytes = 5 << 20
	DefaultAuditKeep     = 3
)

// OpenAudit opens (creating) the audit log in dir. maxBytes ≤ 0 and keep ≤
// 0 take the defaults.
func OpenAudit(dir string, maxBytes int64, keep int) (*AuditLog, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultAuditMaxBytes
	}
	if keep <= 0 {
		keep = DefaultAuditKeep
	}
	l := &AuditLog{path: filepath.Join(dir, AuditFileName), maxBytes: maxBytes, keep: keep}
	if err := l.openFile(); err != nil {
		return nil, err
	}
	return l, nil
}

// Path returns the live log file's path.
func (l *AuditLog) Path() string { return l.path }

func (l *AuditLog) openFile() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open audit log %s: %w", l.path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open audit log %s: %w", l.path, err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Write appends one line per row.
func (l *AuditLog) Write(rows ...TraceRow) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("write audit log %s: the log is closed", l.path)
	}
	for _, r := range rows {
		line := r.Line() + "\n"
		if l.size > 0 && l.size+int64(len(line)) > l.maxBytes {
			if err := l.rotate(); err != nil {
				return err
			}
		}
		n, err := l.f.WriteString(line)
		l.size += int64(n)
		if err != nil {
			return fmt.Errorf("write audit log %s: %w", l.path, err)
		}
	}
	return nil
}

func (l *AuditLog) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	l.f = nil
	os.Remove(fmt.Sprintf("%s.%d", l.path, l.keep)) // the oldest falls off; absent is fine
	for i := l.keep - 1; i >= 1; i-- {
		from := fmt.Sprintf("%s.%d", l.path, i)
		if _, err := os.Stat(from); err == nil {
			if err := os.Rename(from, fmt.Sprintf("%s.%d", l.path, i+1)); err != nil {
				return fmt.Errorf("rotate audit log: %w", err)
			}
		}
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	return l.openFile()
}

// Close closes the file.
func (l *AuditLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
