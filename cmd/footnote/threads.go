package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/footnote-app/footnote/backend/engine"
)

// printSearchedFor shows what a follow-up searched for and how it was
// rewritten.
func printSearchedFor(w io.Writer, ans engine.Answer) {
	f := ans.Followup
	if f == nil {
		return
	}
	fmt.Fprintf(w, "Searched for: %s (%s rewrite", f.Standalone, f.RewriteSource)
	if f.RewriteNote != "" {
		fmt.Fprintf(w, ": %s", f.RewriteNote)
	}
	fmt.Fprintf(w, "; earlier questions used: %v", f.TurnsUsed)
	if f.TurnsDropped > 0 {
		fmt.Fprintf(w, ", %d dropped for the context budget", f.TurnsDropped)
	}
	fmt.Fprintln(w, ")")
}

func cmdThreads(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("threads", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	show := fs.String("show", "", "print this thread's questions, searches and answers")
	rename := fs.String("rename", "", "rename this thread to the title given as the argument")
	del := fs.String("delete", "", "delete this thread (its answers stay in history)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	switch {
	case *rename != "":
		if err := en.RenameThread(ctx, *rename, strings.Join(pos, " ")); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "renamed thread %s\n", *rename)
		return nil
	case *del != "":
		if err := en.DeleteThread(ctx, *del); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted thread %s\n", *del)
		return nil
	case *show != "":
		turns, err := en.ThreadAnswers(ctx, *show)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(stdout, turns)
		}
		for _, t := range turns {
			fmt.Fprintf(stdout, "%d. %s\n", t.Turn.Seq, t.Turn.Question)
			printSearchedFor(stdout, t.Answer)
			fmt.Fprintln(stdout, t.Answer.Answer)
			printCitations(stdout, t.Answer)
			fmt.Fprintln(stdout)
		}
		return nil
	}
	ts, err := en.Threads(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, ts)
	}
	if len(ts) == 0 {
		fmt.Fprintln(stdout, "no threads yet: footnote ask \"…\" starts one")
	}
	for _, t := range ts {
		fmt.Fprintf(stdout, "%s  %s  %d turn(s)  %s\n", t.ID, t.UpdatedAt.Local().Format("2006-01-02 15:04"), t.Turns, t.Title)
	}
	return nil
}
