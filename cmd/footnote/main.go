// Command footnote is Footnote's headless CLI: ingest folders, search, ask
// questions with cited answers, and check the setup. It drives the same
// backend as the desktop app, without a window.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/version"
)

// usage lists the commands, then every environment variable from the
// configuration table, so the two cannot drift apart.
var usage = `Footnote answers questions about your own documents, offline, with citations.

Usage:
  footnote ingest [--json] PATH...       index folders and files (md, txt, html, pdf, docx,
                                         epub, odt, rtf, pptx, xlsx, ods, csv, tsv) and keep
                                         tracking them
  footnote collection add|list|remove    named collections of folders and files
  footnote library kept-out|treat-as-document
                                         files kept out of evidence as chats or answers,
                                         and the override that uses them anyway
  footnote library set-aside|retry       files ingest skips because reading them crashed
                                         or took too long, and trying them again
  footnote rescan [--json] [NAME]        re-check collections and ingested folders: index changes,
                                         drop deleted files
  footnote watch                         keep collections and ingested folders indexed as files
                                         change (Ctrl-C stops)
  footnote ask [--json] [--allow-remote] [--fresh] "QUESTION"
                                         answer from your documents, streaming; --fresh
                                         skips the answer cache
  footnote search [--json] [--explain] [--mode hybrid|lexical|vector] [-k N]
                  [--collection NAME] [--doc DOC_ID] [--rrf-k N] "QUERY"
  footnote eval-retrieval --gold FILE [--json] [--mode M] [-k N]
                                         recall@k, MRR@10, nDCG@10 over a gold set
  footnote eval --qaset FILE [--traces FILE] [--collection NAME] [--out report.md]
                [--json] [--runs N] [--gate metric=value] [--allow-remote]
                                         answer quality against a gold QA set; exits 1
                                         when a quality gate fails
  footnote history [--json] [-n N]       stored answers, newest first
  footnote ask --thread ID | --follow-up [--search-for Q] QUESTION
                                         a follow-up in a thread, rewritten into a
                                         standalone question ("Searched for: …")
  footnote threads [--json] [--show ID] [--rename ID TITLE] [--delete ID]
                                         conversation threads, newest first
  footnote trace export [--out FILE] [-n N]
                                         write trace.jsonl (question, chunks, answer,
                                         citations, provenance) for the evaluator
  footnote doctor [--json]               check the data folder, model, index and Ollama
  footnote --version                     the version of this build
  footnote model download [--dir DIR]    fetch all-MiniLM-L6-v2 for first use
  footnote model download --verify [--dir DIR]
                                         fetch the entailment model for claim
                                         verification (nli-MiniLM2-L6-H768, ~330 MB)
  footnote pull MODEL                    pull an Ollama model, with progress

A model server that is not on this machine gets passages from your documents
only with --allow-remote, FOOTNOTE_ALLOW_REMOTE=1, or after it was confirmed
in the app's Settings.

Environment:
` + config.EnvUsage()

func main() {
	engine.RunExtractorIfChild() // first: a parser child serves files and exits here
	engine.LimitProcessMemory()
	ctx, release := signalContext()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	release()
	os.Exit(code)
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, "footnote", version.Describe())
		return 0
	}
	cmds := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"ingest":         cmdIngest,
		"ask":            cmdAsk,
		"search":         cmdSearch,
		"doctor":         cmdDoctor,
		"history":        cmdHistory,
		"threads":        cmdThreads,
		"model":          cmdModel,
		"collection":     cmdCollection,
		"rescan":         cmdRescan,
		"watch":          cmdWatch,
		"pull":           cmdPull,
		"eval-retrieval": cmdEvalRetrieval,
		"eval":           cmdEval,
		"trace":          cmdTrace,   // trace.go
		"library":        cmdLibrary, // evidence.go
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "footnote: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err := cmd(ctx, args[1:], stdout, stderr); err != nil {
		var ue usageError
		var st exitStatus
		if errors.As(err, &st) {
			return st.code // what happened is printed already
		}
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "footnote %s: %v\n", args[0], err)
			return 2
		}
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "footnote %s: %v\n", args[0], err)
		if code, ok := signalExitCode(ctx); ok {
			return code // 130 after Ctrl-C, so scripts can tell a stopped command
		}
		return 1
	}
	return 0
}

// Exit statuses beside 0 (success), 1 (failure), 2 (usage) and 128 + a
// signal's number (130 after Ctrl-C); README.md lists them all.
const (
	// exitNoModel: ask found no answer model (server down, model missing)
	// and printed the passages that match instead.
	exitNoModel = 3
)

// exitStatus ends a command with code after it printed what happened.
type exitStatus struct{ code int }

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseInterspersed lets flags appear after positional arguments
// (`footnote ask "q" --json`), as people type them.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
