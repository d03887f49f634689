package engine

// Evaluations for the Evaluate view and the CLI: answer quality on a gold
// QA set (asked live through this engine, or scored from recorded traces)
// and retrieval quality on a gold set.

import (
	"context"
	"io"
	"path/filepath"

	"github.com/footnote-app/footnote/backend/eval"
	"github.com/footnote-app/footnote/backend/rag"
)

// RetrievalReport is a retrieval evaluation: recall@k, MRR@10, nDCG@10.
type RetrievalReport = eval.Report

// AnswerEvaluation is an answer-quality evaluation to run.
type AnswerEvaluation struct {
	QASet       string   // gold QA set file (JSON array or JSON lines)
	Runs        int      // ask every question this many times (0 = once)
	K           int      // recall cut-off (0 = 10)
	Collections []string // only search these collections (nil = all)
	// Gates override default quality gates, each as metric=value.
	Gates []string
	// Traces scores the answers recorded in this trace file instead of
	// asking; no engine is needed then.
	Traces string
	// Source names a live run in the report ("" = the gold set's file name).
	Source string
}

// GateError is a gate override that does not parse.
type GateError struct{ Err error }

func (g *GateError) Error() string { return g.Err.Error() }
func (g *GateError) Unwrap() error { return g.Err }

// EvaluateAnswers runs an answer-quality evaluation with the default gates
// plus ev.Gates. Live evaluations ask through en, reporting progress after
// each question; with ev.Traces set, en may be nil. Report.Source names the
// trace file, or ev.Source (by default the gold set's file name) for live runs.
func EvaluateAnswers(ctx context.Context, en *Engine, ev AnswerEvaluation, progress func(EvalProgress)) (EvalReport, error) {
	if ev.Runs < 1 {
		ev.Runs = 1
	}
	if ev.K < 1 {
		ev.K = 10
	}
	gates := eval.DefaultGates()
	for _, g := range ev.Gates {
		parsed, err := eval.ParseGate(g)
		if err != nil {
			return EvalReport{}, &GateError{err}
		}
		gates = eval.WithGates(gates, parsed)
	}
	qs, err := eval.LoadQASet(ev.QASet)
	if err != nil {
		return EvalReport{}, err
	}
	var traces map[string][]eval.Trace
	var untraced []string
	source := ev.Source
	if source == "" {
		source = filepath.Base(ev.QASet)
	}
	if ev.Traces != "" {
		source = ev.Traces
		all, err := eval.LoadTraces(ev.Traces)
		if err != nil {
			return EvalReport{}, err
		}
		if traces, untraced, err = eval.Match(qs, all); err != nil {
			return EvalReport{}, err
		}
	} else {
		if err := en.Ready(ctx); err != nil {
			return EvalReport{}, err
		}
		ask := eval.LiveAsker(en, eval.LiveOptions{K: ev.K, Collections: ev.Collections})
		if traces, err = eval.RunLive(ctx, qs, ev.Runs, ask, progress); err != nil {
			return EvalReport{}, err
		}
	}
	rep := eval.Build(qs, traces, ev.K, gates)
	rep.Source, rep.Untraced = source, untraced
	return rep, nil
}

// WriteEvalMarkdown renders an answer-quality report as Markdown.
func WriteEvalMarkdown(w io.Writer, rep EvalReport) error { return eval.WriteMarkdown(w, rep) }

// AskForEvaluation answers for a live evaluation: the answer is kept out of
// the history and the answer cache (neither read nor written), run n uses
// the configured seed plus n-1, and retrieval is limited to collections
// (nil = all).
func (e *Engine) AskForEvaluation(ctx context.Context, req rag.Request, run int, collections []string) (rag.Answer, error) {
	return e.AskWith(ctx, req, nil, AskOptions{Unrecorded: true, Uncached: true, SeedOffset: run - 1, Collections: collections})
}

// EvaluateRetrieval measures retrieval on a gold set file: recall@k, MRR@10
// and nDCG@10, searching in mode ("" = the retrieval mode in effect) and
// only the given collections (nil = all).
func (e *Engine) EvaluateRetrieval(ctx context.Context, goldPath string, k int, mode string, collections []string) (RetrievalReport, error) {
	gold, err := eval.LoadGold(goldPath)
	if err != nil {
		return RetrievalReport{}, err
	}
	limit := max(k, 10)
	return eval.Evaluate(ctx, gold, k, func(ctx context.Context, q string) ([]eval.Item, error) {
		res, err := e.Search(ctx, q, SearchOptions{Mode: mode, Limit: limit, TopK: max(limit, 20), Collections: collections})
		if err != nil {
			return nil, err
		}
		items := make([]eval.Item, len(res.Hits))
		for i, h := range res.Hits {
			items[i] = eval.Item{SnippetID: h.SnippetID, SectionID: h.SectionID, DocID: h.DocID}
		}
		return items, nil
	})
}
