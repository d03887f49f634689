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
// With -library and -qasets it measures a folder of documents and its
// labelled questions the same way (the sample library, its gold set and
// the unanswerable questions near its topics).
//
//	go run -tags sqlite_fts5 ./bench/answerability -model <folder> [-sets squad2] [-rows rows.jsonl]
//	go run -tags sqlite_fts5 ./bench/answerability -model <folder> -sets "" -library sample/library \
//	    -qasets sample/gold.json,cmd/footnote/testdata/unanswerable_near.json
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
	setNames := flag.String("sets", "squad2", "comma-separated public data sets with unanswerable questions (bench/data/<set>), or none")
	library := flag.String("library", "", "also a folder of documents with labelled questions (-qasets): the sample library")
	qasets := flag.String("qasets", "", "comma-separated gold sets for -library, in footnote eval's format")
	labelledName := flag.String("name", "sample", "the name to report the -library set under")
	modes := flag.String("modes", "hybrid,lexical", "comma-separated retrieval modes")
	rowsPath := flag.String("rows", "", "also write one JSON line per question and mode to this file")
	cover := flag.Float64("cover", 0.6, "share of the question's weighted words the extractive reader needs in one sentence (make eval's: 0.6)")
	settings := flag.String("settings", "", `settings.json keys to depart from the defaults with, e.g. '{"min_rare_term_share": 0}'`)
	always := flag.Bool("always", false, "a reader that answers whenever it is given evidence, instead of the extractive one")
	flag.Parse()
	if *model == "" || (*library == "") != (*qasets == "") {
		fmt.Fprintln(os.Stderr, "answerability: -model is required, and -library goes with -qasets")
		os.Exit(2)
	}
	ctx := context.Background()
	var rows *json.Encoder
	if *rowsPath != "" {
		f, err := os.Create(*rowsPath)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		rows = json.NewEncoder(f)
	}
	var sets []Set
	if *library != "" {
		set, err := GoldSet(*labelledName, *library, strings.Split(*qasets, ","))
		if err != nil {
			fail(err)
		}
		sets = append(sets, set)
	}
	if *setNames != "" {
		tmp, err := os.MkdirTemp("", "footnote-answerability-sets-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(tmp)
		for _, name := range strings.Split(*setNames, ",") {
			name = strings.TrimSpace(name)
			x, err := qaset.Load(filepath.Join(*dataDir, name, "extract.json"))
			if err != nil {
				fail(err)
			}
			set, err := ExtractSet(x, filepath.Join(tmp, name))
			if err != nil {
				fail(fmt.Errorf("set %s: %w", name, err))
			}
			sets = append(sets, set)
		}
	}
	var reports []SetReport
	for _, set := range sets {
		r, err := Measure(ctx, set, *model, Reader{MinCover: *cover, Always: *always}, strings.Split(*modes, ","), json.RawMessage(*settings), os.TempDir(), func(o Outcome) {
			if rows != nil {
				_ = rows.Encode(o)
			}
		})
		if err != nil {
			fail(fmt.Errorf("set %s: %w", set.Name, err))
		}
		reports = append(reports, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	_ = enc.Encode(map[string]any{"model": filepath.Base(*model), "sets": reports})
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "answerability: %v\n", err)
	os.Exit(1)
}
