package main

import (
	"context"
	"fmt"
	"io"

	"github.com/footnote-app/footnote/backend/engine"
)

const libraryUsage = `usage:
  footnote library kept-out [--json]                  files kept out of evidence because they look like a chat or an answer
  footnote library treat-as-document [--undo] PATH... use such files as evidence anyway (--undo keeps them out again)
  footnote library set-aside [--json]                 files ingest skips until they change: reading them crashed or took too long
  footnote library retry PATH...                      try such files again now`

// cmdLibrary shows and overrides which indexed files are kept out of
// evidence by their content, and which files ingest has set aside.
func cmdLibrary(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{libraryUsage}
	}
	fs := newFlags("library "+args[0], stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	undo := fs.Bool("undo", false, "remove the override: keep the files out of evidence again")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "kept-out":
		if len(pos) != 0 {
			return usageError{"kept-out takes no arguments"}
		}
		en, err := openEngine()
		if err != nil {
			return err
		}
		defer en.Close()
		list, err := en.KeptOutOfEvidence(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			if list == nil {
				list = []engine.DocumentSource{}
			}
			return printJSON(stdout, list)
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no file is kept out of evidence")
		}
		for _, d := range list {
			if d.Overridden {
				fmt.Fprintf(stdout, "%s\n  treated as a document (it %s)\n", d.Path, d.Reason)
			} else {
				fmt.Fprintf(stdout, "%s\n  kept out of evidence: %s\n", d.Path, d.Reason)
			}
		}
		return nil
	case "treat-as-document":
		if len(pos) == 0 {
			return usageError{"give one or more indexed files, e.g. footnote library treat-as-document ~/notes/chat.txt"}
		}
		en, err := openEngine()
		if err != nil {
			return err
		}
		defer en.Close()
		for _, p := range pos {
			sum, err := en.TreatAsDocument(ctx, p, !*undo)
			if err != nil {
				return err
			}
			if len(sum.Errors) > 0 {
				return fmt.Errorf("re-index %s: %s", sum.Errors[0].Path, sum.Errors[0].Error)
			}
			if *undo {
				fmt.Fprintf(stdout, "%s: kept out of evidence again if it looks like a chat or an answer\n", p)
			} else {
				fmt.Fprintf(stdout, "%s: treated as a document; its text is evidence\n", p)
			}
		}
		return nil
	case "set-aside":
		if len(pos) != 0 {
			return usageError{"set-aside takes no arguments"}
		}
		return listSetAside(ctx, stdout, *asJSON)
	case "retry":
		if len(pos) == 0 {
			return usageError{"give one or more files set aside, e.g. footnote library retry ~/notes/big.pdf (footnote library set-aside lists them)"}
		}
		return retrySetAside(ctx, pos, stdout, stderr)
	}
	return usageError{libraryUsage}
}

// listSetAside prints the files ingest skips until they change, with why.
func listSetAside(ctx context.Context, stdout io.Writer, asJSON bool) error {
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	list, err := en.SetAsideFiles(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no file is set aside")
	}
	for _, f := range list {
		fmt.Fprintf(stdout, "%s\n  set aside %s: %s\n", f.Path, f.At.Local().Format("2006-01-02 15:04"), f.Reason)
	}
	if len(list) > 0 {
		fmt.Fprintln(stdout, "try one again with: footnote library retry PATH")
	}
	return nil
}

// retrySetAside indexes files set aside again, now.
func retrySetAside(ctx context.Context, paths []string, stdout, stderr io.Writer) error {
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	for _, p := range paths {
		sum, err := en.Retry(ctx, p, progressPrinter(stderr))
		if err != nil {
			return err
		}
		if len(sum.Errors) > 0 {
			fmt.Fprintf(stdout, "%s: failed again: %s\n", p, sum.Errors[0].Error)
			continue
		}
		fmt.Fprintf(stdout, "%s: indexed (%d chunks)\n", p, sum.ChunksEmbedded+sum.ChunksReused)
	}
	return nil
}
