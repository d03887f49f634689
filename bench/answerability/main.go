// Command answerability measures which questions the answer pipeline
// refuses, on public question-answering data that holds unanswerable
// questions (bench/data/squad2: SQuAD 2.0, whose unanswerable questions
// were written against a paragraph to look answerable by it). Each set's
// paragraphs are ingested into a temporary library through the real
// engine and embedding model, and every question is asked with the
// default settings in each retrieval mode (hybrid, lexical), answered by
// the gold-blind extractive reader of make eval: it sees only the prompt
// and quotes the sentence that best covers the question's distinctive
// words, or answers the refusal sentence. It prints, per set and mode,
// answerable questions answered and grounded, over- and under-refusal, and
// which signal refused what, as one JSON object for bench/run.sh.
//
//	go run -tags sqlite_fts5 ./bench/answerability -model <folder> [-sets squad2] [-rows rows.jsonl]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/bench/internal/qaset"
)

func main() {
	model := flag.String("model", "", "embedding model folder")
	dataDir := flag.String("data", "bench/data", "folder holding <set>/extract.json")
	sets := flag.String("sets", "squad2", "comma-separated data sets (with unanswerable questions)")
	modes := flag.String("modes", "hybrid,lexical", "comma-separated retrieval modes")
	rowsPath := flag.String("rows", "", "also write one JSON line per question and mode to this file")
	cover := flag.Float64("cover", 0.6, "share of the question's weighted words the extractive reader needs in one sentence (make eval's: 0.6)")
	settings := flag.String("settings", "", `settings.json keys to depart from the defaults with, e.g. '{"min_rare_term_share": 0}'`)
	always := flag.Bool("always", false, "a reader that answers whenever it is given evidence, instead of the extractive one")
	flag.Parse()
	if *model == "" {
		fmt.Fprintln(os.Stderr, "answerability: -model is required")
		os.Exit(2)
	}
	ctx := context.Background()
	var rows *json.Encoder
	if *rowsPath != "" {
		f, err := os.Create(*rowsPath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "answerability: %v\n", err)
			os.Exit(1)
		}
		defer f.Close()
		rows = json.NewEncoder(f)
	}
	var reports []SetReport
	for _, name := range strings.Split(*sets, ",") {
		name = strings.TrimSpace(name)
		x, err := qaset.Load(filepath.Join(*dataDir, name, "extract.json"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "answerability: %v\n", err)
			os.Exit(1)
		}
		r, err := Measure(ctx, x, *model, Reader{MinCover: *cover, Always: *always}, strings.Split(*modes, ","), json.RawMessage(*settings), os.TempDir(), func(o Outcome) {
			if rows != nil {
				_ = rows.Encode(o)
			}
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "answerability: set %s: %v\n", name, err)
			os.Exit(1)
		}
		reports = append(reports, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	_ = enc.Encode(map[string]any{"model": filepath.Base(*model), "sets": reports})
}
