package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
)

// progressPrinter prints ingest progress with rate and ETA, at most a few
// lines a second so large libraries do not flood the terminal.
func progressPrinter(w io.Writer) func(engine.Progress) {
	var last time.Time
	return func(p engine.Progress) {
		if p.Done {
			fmt.Fprintf(w, "done: %d/%d files, %d chunks embedded (%.1f files/s)\n", p.FilesDone, p.FilesTotal, p.Chunks, p.FilesPerSec)
			return
		}
		if time.Since(last) < 200*time.Millisecond && p.FilesDone != p.FilesTotal {
			return
		}
		last = time.Now()
		eta := ""
		if left := (time.Duration(p.ETAMS) * time.Millisecond).Round(time.Second); left > 0 {
			eta = ", about " + left.String() + " left"
		}
		fmt.Fprintf(w, "[%d/%d] %.1f files/s%s  %s\n", p.FilesDone, p.FilesTotal, p.FilesPerSec, eta, p.Current)
	}
}

func printSummary(stdout io.Writer, sum engine.Summary, asJSON bool) error {
	if asJSON {
		return printJSON(stdout, sum)
	}
	fmt.Fprintf(stdout, "%d files seen: %d indexed, %d unchanged, %d deleted, %d skipped, %d failed; %d chunks embedded, %d reused in %.1fs\n",
		sum.FilesSeen, sum.FilesIndexed, sum.FilesUnchanged, sum.FilesDeleted, sum.FilesSkipped, sum.FilesFailed,
		sum.ChunksEmbedded, sum.ChunksReused, float64(sum.DurationMS)/1000)
	for _, e := range sum.Errors {
		fmt.Fprintf(stdout, "  failed  %s: %s\n", e.Path, e.Error)
	}
	if sum.FilesKeptOut > 0 {
		fmt.Fprintf(stdout, "%d indexed files look like a chat or an answer and are kept out of evidence; see footnote library kept-out\n", sum.FilesKeptOut)
	}
	return nil
}

const collectionUsage = `usage:
  footnote collection add [--json] NAME PATH...   add folders or files to a collection and index them
  footnote collection list [--json]               collections with their folders and counts
  footnote collection remove NAME                 remove a collection's documents from the index`

func cmdCollection(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{collectionUsage}
	}
	fs := newFlags("collection "+args[0], stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "add":
		if len(pos) < 2 {
			return usageError{"give a collection name and one or more folders or files, e.g. footnote collection add notes ~/notes"}
		}
		en, err := openEngine()
		if err != nil {
			return err
		}
		defer en.Close()
		sum, err := en.AddToCollection(ctx, pos[0], pos[1:], progressPrinter(stderr))
		if err != nil {
			return ingestStopped(ctx, en, sum, err)
		}
		return printSummary(stdout, sum, *asJSON)
	case "list":
		en, err := openEngine()
		if err != nil {
			return err
		}
		defer en.Close()
		cols, err := en.Collections(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(stdout, cols)
		}
		if len(cols) == 0 {
			fmt.Fprintln(stdout, "no collections yet; add one with: footnote collection add NAME FOLDER")
		}
		for _, c := range cols {
			name := c.Name
			if name == "" {
				name = "(outside collections: folders and files given to `footnote ingest`)"
			}
			fmt.Fprintf(stdout, "%s  (%d documents, %d chunks)\n", name, c.Documents, c.Chunks)
			for _, p := range c.Paths {
				fmt.Fprintf(stdout, "  %s\n", p)
			}
		}
		return nil
	case "remove":
		if len(pos) != 1 {
			return usageError{"give the name of the collection to remove"}
		}
		en, err := openEngine()
		if err != nil {
			return err
		}
		defer en.Close()
		if err := en.RemoveCollection(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed collection %s\n", pos[0])
		return nil
	}
	return usageError{collectionUsage}
}

func cmdRescan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("rescan", stderr)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"give at most one collection name (none rescans every collection and every ingested folder)"}
	}
	name := ""
	if len(pos) == 1 {
		name = pos[0]
	}
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	sum, err := en.Rescan(ctx, name, progressPrinter(stderr))
	if err != nil {
		return ingestStopped(ctx, en, sum, err)
	}
	return printSummary(stdout, sum, *asJSON)
}

func cmdWatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("watch", stderr)
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	en, err := openReadyEngine(ctx)
	if err != nil {
		return err
	}
	defer en.Close()
	fmt.Fprintln(stderr, "watching every collection and ingested folder for changes; press Ctrl-C to stop")
	return en.Watch(ctx, progressPrinter(stderr))
}
