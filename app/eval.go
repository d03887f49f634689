package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/backend/engine"
)

// EventEvalProgress reports a running evaluation: engine.EvalProgress.
const EventEvalProgress = "eval:progress"

// EvalReport is an evaluation for the Evaluate view: the report (metrics
// under their names, gates, per-question rows) and its Markdown rendering.
type EvalReport struct {
	engine.EvalReport
	Markdown string `json:"markdown"`
}

// Evaluate runs a gold QA set against the whole library with the default
// gates, emitting eval:progress after each question.
func (a *App) Evaluate(goldPath string) (EvalReport, error) {
	return a.EvaluateCollection(goldPath, "")
}

// EvaluateCollection is Evaluate restricted to one collection ("" = all).
func (a *App) EvaluateCollection(goldPath, collection string) (EvalReport, error) {
	goldPath = strings.TrimSpace(goldPath)
	if goldPath == "" {
		return EvalReport{}, errors.New("choose a gold set file (JSON with qid, q, answerable and gold_ids) to evaluate")
	}
	ev := engine.AnswerEvaluation{QASet: goldPath, K: 10}
	if collection != "" {
		ev.Collections = []string{collection}
	}
	rep, err := engine.EvaluateAnswers(context.Background(), a.engine, ev, func(p engine.EvalProgress) {
		a.emit(EventEvalProgress, p)
	})
	if err != nil {
		return EvalReport{}, err
	}
	var md bytes.Buffer
	if err := engine.WriteEvalMarkdown(&md, rep); err != nil {
		return EvalReport{}, err
	}
	return EvalReport{EvalReport: rep, Markdown: md.String()}, nil
}

// DefaultGoldSet suggests a gold set for the Evaluate view: a gold.json
// beside a folder the app indexed at start (the sample library's), or "".
func (a *App) DefaultGoldSet() string {
	for _, p := range a.startup {
		candidate := filepath.Join(filepath.Dir(filepath.Clean(p)), "gold.json")
		if st, err := os.Stat(candidate); err == nil && st.Mode().IsRegular() {
			return candidate
		}
	}
	return ""
}
