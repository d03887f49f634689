package eval

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
)

// Gate is a threshold on one metric: Min gates keep a metric at or above
// Value, max gates at or below it.
type Gate struct {
	Metric string  `json:"metric"`
	Min    bool    `json:"min"`
	Value  float64 `json:"value"`
}

func (g Gate) String() string {
	op := "≤"
	if g.Min {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %.2f", g.Metric, op, g.Value)
}

// DefaultGates are the CI thresholds.
func DefaultGates() []Gate {
	return []Gate{
		{Metric: "precision", Min: true, Value: 0.80},
		{Metric: "under_refusal", Value: 0.05},
		{Metric: "over_refusal", Value: 0.25},
		{Metric: "citation_hit_rate", Min: true, Value: 0.75},
		{Metric: "compliance", Min: true, Value: 0.98},
		// The re-entry guard's gate: an answer cites corpus text only.
		{Metric: "non_corpus_citation_rate", Value: 0},
	}
}

// lowerIsBetter are the metrics whose gates are maxima.
var lowerIsBetter = map[string]bool{"over_refusal": true, "under_refusal": true, "non_corpus_citation_rate": true}

// ParseGate reads "metric=value" (e.g. "precision=0.9"); the direction
// follows the metric: rates of mistakes are maxima, everything else minima.
func ParseGate(s string) (Gate, error) {
	name, val, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return Gate{}, fmt.Errorf("gate %q is not metric=value; write e.g. precision=0.8", s)
	}
	if _, known := (Metrics{}).Value(name); !known {
		return Gate{}, fmt.Errorf("gate %q names no metric; use one of %s", s, strings.Join(MetricNames, ", "))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || v < 0 || v > 1 || math.IsNaN(v) {
		return Gate{}, fmt.Errorf("gate %q needs a value between 0 and 1", s)
	}
	return Gate{Metric: name, Min: !lowerIsBetter[name], Value: v}, nil
}

// WithGates overrides the defaults with the given gates, metric by metric.
func WithGates(base []Gate, overrides ...Gate) []Gate {
	out := append([]Gate(nil), base...)
	for _, o := range overrides {
		replaced := false
		for i := range out {
			if out[i].Metric == o.Metric {
				out[i], replaced = o, true
			}
		}
		if !replaced {
			out = append(out, o)
		}
	}
	return out
}

// GateResult is one gate checked against the metrics.
type GateResult struct {
	Gate
	Actual float64 `json:"actual"`
	Passed bool    `json:"passed"`
}

// CheckGates checks every gate against m.
func CheckGates(m Metrics, gates []Gate) []GateResult {
	out := make([]GateResult, 0, len(gates))
	for _, g := range gates {
		v, _ := m.Value(g.Metric)
		// Rounding keeps 0.8 from failing "≥ 0.80" through float error.
		v = math.Round(v*1e9) / 1e9
		pass := v <= g.Value
		if g.Min {
			pass = v >= g.Value
		}
		out = append(out, GateResult{Gate: g, Actual: v, Passed: pass})
	}
	return out
}

// Spread is one metric across runs.
type Spread struct {
	Mean   float64 `json:"mean"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	StdDev float64 `json:"stddev"`
}

// AnswerReport is an evaluation's outcome. Metrics pool every row of every run
// and appear at the top level of the JSON under their names;
// with several runs, Spread shows each metric's per-run range.
type AnswerReport struct {
	Source  string            `json:"source"` // "live" or the trace file
	Runs    int               `json:"runs"`
	Metrics                   // flattened: "precision", "over_refusal", … at the top level
	PerRun  []Metrics         `json:"per_run,omitempty"`
	Spread  map[string]Spread `json:"spread,omitempty"`
	Gates   []GateResult      `json:"gates"`
	Passed  bool              `json:"passed"`
	Rows    []Row             `json:"rows"`
	// FollowUps are the metrics over follow-up items alone (nil when the
	// set has none); they are also pooled in Metrics.
	FollowUps *Metrics `json:"follow_ups,omitempty"`
	// Lambda counts the questions whose cited evidence converges across
	// runs (convergence.go); nil with a single run.
	Lambda *Convergence `json:"lambda,omitempty"`
	// Untraced names the gold questions a trace file holds no answer to;
	// they are not scored (Match).
	Untraced []string `json:"untraced,omitempty"`
}

// FailedGates names the gates that failed.
func (r AnswerReport) FailedGates() []string {
	var out []string
	for _, g := range r.Gates {
		if !g.Passed {
			out = append(out, fmt.Sprintf("%s (got %.3f)", g.Gate, g.Actual))
		}
	}
	return out
}

// Build judges every question's traces and checks the gates. traces maps
// qid to that question's runs (see Match).
func Build(qs []QA, traces map[string][]Trace, k int, gates []Gate) AnswerReport {
	rep := AnswerReport{Gates: []GateResult{}, Rows: []Row{}}
	byRun := map[int][]Row{}
	for _, q := range qs {
		for _, t := range traces[q.QID] {
			row := Judge(q, t, k)
			row.FollowUp = len(q.History) > 0
			rep.Rows = append(rep.Rows, row)
			byRun[row.Run] = append(byRun[row.Run], row)
		}
	}
	rep.Metrics = Compute(rep.Rows, k)
	rep.FollowUps = followUpMetrics(rep.Rows, k)
	rep.Lambda = converge(rep.Rows)
	runs := make([]int, 0, len(byRun))
	for run := range byRun {
		runs = append(runs, run)
	}
	sort.Ints(runs)
	rep.Runs = len(runs)
	if len(runs) > 1 {
		rep.Spread = map[string]Spread{}
		for _, run := range runs {
			rep.PerRun = append(rep.PerRun, Compute(byRun[run], k))
		}
		for _, name := range MetricNames {
			vals := make([]float64, len(rep.PerRun))
			for i, m := range rep.PerRun {
				vals[i], _ = m.Value(name)
			}
			rep.Spread[name] = spread(vals)
		}
	}
	rep.Gates = CheckGates(rep.Metrics, gates)
	rep.Passed = true
	for _, g := range rep.Gates {
		rep.Passed = rep.Passed && g.Passed
	}
	return rep
}

func spread(vals []float64) Spread {
	if len(vals) == 0 {
		return Spread{}
	}
	s := Spread{Min: vals[0], Max: vals[0]}
	for _, v := range vals {
		s.Mean += v
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
	}
	s.Mean /= float64(len(vals))
	for _, v := range vals {
		s.StdDev += (v - s.Mean) * (v - s.Mean)
	}
	s.StdDev = math.Sqrt(s.StdDev / float64(len(vals)))
	return s
}

// Asker answers one gold question live: the phrasing to ask, the run
// number (1-based; a different seed per run) and the trace it produced.
type Asker func(ctx context.Context, q QA, question string, run int) (Trace, error)

// Progress reports a live evaluation's advance: done of total answers.
type Progress struct {
	Done  int    `json:"done"`
	Total int    `json:"total"`
	QID   string `json:"qid"`
}

// RunLive asks every question runs times and returns the traces by qid.
func RunLive(ctx context.Context, qs []QA, runs int, ask Asker, progress func(Progress)) (map[string][]Trace, error) {
	runs = max(runs, 1)
	out := map[string][]Trace{}
	total, done := len(qs)*runs, 0
	for run := 1; run <= runs; run++ {
		for _, q := range qs {
			t, err := ask(ctx, q, q.Phrasing(run), run)
			if err != nil {
				return nil, fmt.Errorf("ask %s: %w", q.QID, err)
			}
			t.QID, t.Run = q.QID, run
			out[q.QID] = append(out[q.QID], t)
			done++
			if progress != nil {
				progress(Progress{Done: done, Total: total, QID: q.QID})
			}
		}
	}
	return out, nil
}

// WriteMarkdown renders the report: summary, gates, then one table row per
// question (and run).
func WriteMarkdown(w io.Writer, r AnswerReport) error {
	var b strings.Builder
	m := r.Metrics
	b.WriteString("# Footnote evaluation\n\n")
	fmt.Fprintf(&b, "Source: %s · %d questions (%d answerable, %d unanswerable) · %d run(s) · %d answered\n\n",
		r.Source, m.Questions, m.Answerable, m.Unanswerable, r.Runs, m.Answered)
	if len(r.Untraced) > 0 {
		fmt.Fprintf(&b, "Not scored, no trace answers them: %s\n\n", strings.Join(r.Untraced, ", "))
	}
	b.WriteString("## Summary\n\n")
	if len(r.Spread) > 0 {
		b.WriteString("| metric | value | min | max | stddev |\n|---|---:|---:|---:|---:|\n")
	} else {
		b.WriteString("| metric | value |\n|---|---:|\n")
	}
	for _, name := range MetricNames {
		v, _ := m.Value(name)
		label := name
		if name == "recall_at_k" {
			label = fmt.Sprintf("recall_at_k (k=%d)", m.K)
		}
		if s, ok := r.Spread[name]; ok {
			fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f |\n", label, v, s.Min, s.Max, s.StdDev)
		} else {
			fmt.Fprintf(&b, "| %s | %.3f |\n", label, v)
		}
	}
	writeFollowUps(&b, r.FollowUps)
	if l := r.Lambda; l != nil {
		fmt.Fprintf(&b, "\nλ across %d runs: %d convergent, %d divergent (share convergent %.3f)", r.Runs, l.Convergent, l.Divergent, l.Share)
		if len(l.DivergentQIDs) > 0 {
			fmt.Fprintf(&b, "; divergent: %s", strings.Join(l.DivergentQIDs, ", "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nCitation quality (ALCE, over %d answers with cited claims): citation_recall %s · citation_precision %s\n",
		m.CitationAnswers, orNA(m.CitationRecall), orNA(m.CitationPrecision))
	b.WriteString("\nLabels: ")
	for i, l := range []string{LabelOK, LabelRefusalOK, LabelOverRefusal, LabelHallucinate, LabelAnsNoHit} {
		if i > 0 {
			b.WriteString(" · ")
		}
		fmt.Fprintf(&b, "%s %d", l, m.Labels[l])
	}
	b.WriteString("\n\n## Gates\n\n")
	if len(r.Gates) == 0 {
		b.WriteString("No gates.\n")
	}
	for _, g := range r.Gates {
		status := "PASS"
		if !g.Passed {
			status = "FAIL"
		}
		fmt.Fprintf(&b, "- %s %s (got %.3f)\n", status, g.Gate, g.Actual)
	}
	b.WriteString("\n## Questions\n\n| qid | run | label | answered | hit | compliant | claim | cites | non-corpus | citation recall | citation precision | recall | question | cited |\n")
	b.WriteString("|---|---:|---|---|---|---|---|---:|---:|---:|---:|---:|---|---|\n")
	for _, row := range r.Rows {
		claim, recall := "–", "–"
		if row.Contains != nil {
			claim = yesNo(*row.Contains)
		}
		if row.Retrieval != nil {
			recall = fmt.Sprintf("%.2f", row.Retrieval.Recall)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %d | %d | %s | %s | %s | %s | %s |\n",
			cell(row.QID), row.Run, row.Label, yesNo(row.Answered), yesNo(row.Hit), yesNo(row.Compliant), claim,
			row.Citations, row.NonCorpus, orNA(row.CitationRecall), orNA(row.CitationPrecision), recall,
			cell(row.Question), cell(strings.Join(row.Cited, ", ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// orNA formats an optional share, "n/a" when there is none.
func orNA(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *v)
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", "\\|")
}

// Answerer is what a live evaluation needs from an engine: retrieval for
// the retrieval metrics, and answering through the real pipeline with the
// answer kept out of the history and the answer cache (neither read nor
// written), run n using the configured seed plus n-1, and retrieval limited
// to collections (nil = all).
type Answerer interface {
	Search(ctx context.Context, query string, opts search.Options) (search.Result, error)
	AskForEvaluation(ctx context.Context, req rag.Request, run int, collections []string) (rag.Answer, error)
}

// LiveOptions tune a live evaluation.
type LiveOptions struct {
	K           int      // recall cut-off; at least 10 passages are retrieved for MRR and nDCG
	Mode        string   // retrieval mode for the retrieval metrics ("" = hybrid)
	Collections []string // only search these collections (nil = all)
}

// LiveAsker asks questions through the engine's real pipeline. Answers are
// neither served from nor put in the answer cache, nor stored in the
// history, and run n uses the configured seed plus n-1.
func LiveAsker(en Answerer, opts LiveOptions) Asker {
	return func(ctx context.Context, q QA, question string, run int) (Trace, error) {
		limit := max(opts.K, 10)
		res, err := en.Search(ctx, question, search.Options{Mode: opts.Mode, Limit: limit, TopK: max(limit, 20), Collections: opts.Collections})
		if err != nil {
			return Trace{}, err
		}
		ranked := make([]Item, len(res.Hits))
		for i, h := range res.Hits {
			ranked[i] = Item{SnippetID: h.SnippetID, SectionID: h.SectionID, DocID: h.DocID}
		}
		ans, err := en.AskForEvaluation(ctx, followUpRequest(q, run, question), run, opts.Collections)
		// An LLM failure is still an answer (a refusal) worth scoring; a
		// cancelled evaluation is not.
		if err != nil && ctx.Err() != nil {
			return Trace{}, ctx.Err()
		}
		if err != nil && ans.RefusalReason == nil {
			return Trace{}, err
		}
		if ans.Followup != nil { // retrieval is scored on what was searched for
			if ranked, err = rankedFor(ctx, en, ans.SearchQuestion(), opts); err != nil {
				return Trace{}, err
			}
		}
		return FromAnswer(q.QID, run, ans, ranked), nil
	}
}
