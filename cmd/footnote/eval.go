package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/footnote-app/footnote/backend/eval"
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
	gates := eval.DefaultGates()
	for _, g := range gateFlags {
		parsed, err := eval.ParseGate(g)
		if err != nil {
			return usageError{err.Error()}
		}
		gates = eval.WithGates(gates, parsed)
	}
	qs, err := eval.LoadQASet(*qaset)
	if err != nil {
		return err
	}

	var traces map[string][]eval.Trace
	source := "live"
	if *tracesPath != "" {
		source = *tracesPath
		all, err := eval.LoadTraces(*tracesPath)
		if err != nil {
			return err
		}
		if traces, err = eval.Match(qs, all); err != nil {
			return err
		}
	} else {
		en, err := openEngineAllowing(*allowRemote)
		if err != nil {
			return err
		}
		defer en.Close()
		if err := en.CheckRemoteServer(); err != nil {
			return remoteHint(err)
		}
		ask := eval.LiveAsker(en, eval.LiveOptions{K: *k, Collections: collections})
		traces, err = eval.RunLive(ctx, qs, *runs, ask, func(p eval.Progress) {
			fmt.Fprintf(stderr, "\rasked %d/%d (%s)   ", p.Done, p.Total, p.QID)
		})
		fmt.Fprintln(stderr)
		if err != nil {
			return err
		}
	}

	rep := eval.Build(qs, traces, *k, gates)
	rep.Source = source
	var md bytes.Buffer
	if err := eval.WriteMarkdown(&md, rep); err != nil {
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
