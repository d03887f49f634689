// Command qa measures retrieval quality on public question-answering data
// with paragraph-level gold (bench/data/<set>/extract.json): each set's
// paragraphs are ingested into a temporary index through the real store
// and embedding model, and every question is asked in each search mode
// (lexical, vector, hybrid), beside two stock baselines over the same
// paragraphs: plain FTS5 BM25 over the OR of the question's terms (the
// store's tokenizer, and porter for reference) and sqlite-vec KNN over the
// same vectors. Unanswerable questions (SQuAD 2.0) have no gold paragraph
// and are left out. It prints recall@1/5/10 and MRR@10 per set and mode as one
// JSON object for bench/run.sh.
//
//	go run -tags sqlite_fts5 ./bench/qa -model <folder> [-sets squad]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/bench/internal/qaset"
)

func main() {
	model := flag.String("model", "", "embedding model folder")
	dataDir := flag.String("data", "bench/data", "folder holding <set>/extract.json")
	sets := flag.String("sets", "squad", "comma-separated data sets")
	flag.Parse()
	if *model == "" {
		fmt.Fprintln(os.Stderr, "qa: -model is required")
		os.Exit(2)
	}
	ctx := context.Background()
	emb, err := embed.Load(ctx, *model)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa: loading the embedding model: %v\n", err)
		os.Exit(1)
	}
	defer emb.Close()
	out := map[string]any{"model": filepath.Base(*model)}
	var reports []SetReport
	for _, name := range strings.Split(*sets, ",") {
		name = strings.TrimSpace(name)
		x, err := qaset.Load(filepath.Join(*dataDir, name, "extract.json"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "qa: %v\n", err)
			os.Exit(1)
		}
		r, err := Measure(ctx, x.Answerable(), emb, os.TempDir())
		if err != nil {
			fmt.Fprintf(os.Stderr, "qa: set %s: %v\n", name, err)
			os.Exit(1)
		}
		reports = append(reports, r)
	}
	out["sets"] = reports
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	_ = enc.Encode(out)
}
