package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/footnote-app/footnote/backend/engine"
)

// errGatesFailed marks a finished evaluation whose quality gates failed.
type errGatesFailed struct{ failed []string }

func (e errGatesFailed) Error() string {
	return "quality gates failed: " + strings.Join(e.failed, "; ")
}

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", stderr)
	qaset := fs.String("qaset", "", "gold QA set: JSON array or JSON lines of {qid, q, answerable, gold_ids, gold_claim}")
	tracesPath := fs.String("traces", "", "score answers from this trace.jsonl instead of asking live")
	out := fs.String("out", "", "also write the Markdown report to this file")
	asJSON := fs.Bool("json", false, "print the report as JSON (metrics under their names, plus per-question rows)")
	runs := fs.Int("runs", 1, "ask every question N times (paraphrases, then a new seed per run) and report the spread")
	k := fs.Int("k", 10, "recall cut-off; MRR and nDCG always use 10")
	allowRemote := fs.Bool("allow-remote", false, "send passages to the model server even if it is not on this machine")
	var collections, gateFlags listFlag
	fs.Var(&collections, "collection", "only search this collection (repeat or comma-separate)")
	fs.Var(&gateFlags, "gate", "override a gate as metric=value, e.g. precision=0.9 (repeatable)")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if *qaset == "" {
		return usageError{"give a gold QA set with --qaset FILE"}
	}
	if *runs < 1 || *k < 1 {
		return usageError{"--runs and -k must be at least 1"}
	}
	ev := engine.AnswerEvaluation{QASet: *qaset, Runs: *runs, K: *k, Collections: collections, Gates: gateFlags, Traces: *tracesPath, Source: "live"}
	var en *engine.Engine
	if *tracesPath == "" {
		var err error
		if en, err = openEngineAllowing(*allowRemote); err != nil {
			return err
		}
		defer en.Close()
		if err := en.CheckRemoteServer(); err != nil {
			return remoteHint(err)
		}
	}
	rep, err := engine.EvaluateAnswers(ctx, en, ev, func(p engine.EvalProgress) {
		fmt.Fprintf(stderr, "\rasked %d/%d (%s)   ", p.Done, p.Total, p.QID)
	})
	if *tracesPath == "" {
		fmt.Fprintln(stderr)
	}
	var gateErr *engine.GateError
	if errors.As(err, &gateErr) {
		return usageError{gateErr.Error()}
	}
	if err != nil {
		return err
	}
	var md bytes.Buffer
	if err := engine.WriteEvalMarkdown(&md, rep); err != nil {
		return err
	}
	if *out != "" {
		if err := os.WriteFile(*out, md.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	if *asJSON {
		err = printJSON(stdout, rep)
	} else {
		_, err = stdout.Write(md.Bytes())
	}
	if err != nil {
		return err
	}
	if !rep.Passed {
		return errGatesFailed{rep.FailedGates()}
	}
	return nil
}
