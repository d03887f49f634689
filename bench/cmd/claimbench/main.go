// Command claimbench measures claim verification on public, human-labelled
// claim–evidence sets (bench/claims/data/<set>/) and on altered-claim
// probes, and prints one JSON object for bench/run.sh (a readable table goes
// to stderr). The verifier is lexical unless -embed or -entail name a model
// folder.
//
//	go run ./bench/cmd/claimbench [-sets wice-dev,wice-test,factcheck-gpt,begin-wow] [-embed DIR] [-entail DIR] [-misses N]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/rerank"
	"github.com/footnote-app/footnote/backend/verify"
	"github.com/footnote-app/footnote/bench/claims"
)

// output is what the command prints.
type output struct {
	Verifier string               `json:"verifier"`
	Sets     []setOutput          `json:"sets"`
	Probes   []claims.ProbeReport `json:"probes"`
	Labelled []claims.ProbeReport `json:"labelled_probes"`
}

type setOutput struct {
	claims.Report
	MSPerClaim float64 `json:"ms_per_claim"`
}

func main() {
	root := flag.String("root", ".", "the repository root")
	sets := flag.String("sets", "wice-dev,wice-test,factcheck-gpt,begin-wow", "comma-separated sets under bench/claims/data")
	embedDir := flag.String("embed", "", "embedding model folder: adds the semantic signal (for undecided claims, as the app runs)")
	entailDir := flag.String("entail", "", "entailment cross-encoder folder: adds the entailment signal")
	misses := flag.Int("misses", 0, "print up to N false alarms and false passes per set to stderr")
	flag.Parse()
	if err := run(*root, strings.Split(*sets, ","), *embedDir, *entailDir, *misses); err != nil {
		fmt.Fprintln(os.Stderr, "claimbench:", err)
		os.Exit(1)
	}
}

func run(root string, sets []string, embedDir, entailDir string, misses int) error {
	ctx := context.Background()
	// A verifier per set and probe run, each with its own statistics.
	var emb embed.Embedder
	var ent verify.Entailer
	newVerifier := func(stats verify.TermStats) *verify.Verifier {
		return &verify.Verifier{Stats: stats, Embedder: emb, Entailer: ent, SemanticOnlyIfUndecided: emb != nil}
	}
	name := "lexical"
	if embedDir != "" {
		h, err := embed.Load(ctx, embedDir)
		if err != nil {
			return fmt.Errorf("embedding model %s: %w", embedDir, err)
		}
		defer h.Close()
		emb = h
		name += "+semantic(" + filepath.Base(embedDir) + ")"
	}
	if entailDir != "" {
		var err error
		if ent, err = loadEntailer(ctx, entailDir); err != nil {
			return err
		}
		name += "+entailment(" + ent.Name() + ")"
	}
	out := output{Verifier: name}
	dir := filepath.Join(root, "bench", "claims")
	for _, set := range sets {
		rows, err := claims.LoadSet(dir, set)
		if err != nil {
			return err
		}
		t0 := cpuTime()
		outs, err := claims.Run(ctx, newVerifier(claims.Stats(rows)), rows)
		if err != nil {
			return fmt.Errorf("set %s: %w", set, err)
		}
		ms := float64(cpuTime()-t0) / float64(time.Millisecond) / float64(len(rows))
		rep := claims.Measure(set, outs)
		out.Sets = append(out.Sets, setOutput{rep, ms})
		printReport(rep, ms)
		if misses > 0 {
			printMisses(outs, misses)
		}
	}
	probes, err := claims.MakeProbes(filepath.Join(root, "bench", "data", "squad", "extract.json"))
	if err != nil {
		return err
	}
	if out.Probes, err = claims.RunProbes(ctx, newVerifier(claims.ProbeStats(probes)), probes); err != nil {
		return err
	}
	labelled, err := claims.LabelledProbes(filepath.Join(root, "backend", "verify", "testdata", "claims.jsonl"))
	if err != nil {
		return err
	}
	if out.Labelled, err = claims.RunProbes(ctx, newVerifier(claims.ProbeStats(labelled)), labelled); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "probes (share grounded = held under strict verification):")
	for _, p := range append(out.Probes, out.Labelled...) {
		fmt.Fprintf(os.Stderr, "  %-16s n=%4d grounded %.3f supported %.3f\n", p.Kind, p.N, p.Grounded, p.Supported)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// loadEntailer loads a cross-encoder folder as the entailment model, as
// the app loads FOOTNOTE_VERIFY_MODEL (a three-label NLI export or a
// one-label one).
func loadEntailer(ctx context.Context, dir string) (verify.Entailer, error) {
	h, err := rerank.LoadClassifier(ctx, dir, "entailment model")
	if err != nil {
		return nil, fmt.Errorf("entailment model %s: %w", dir, err)
	}
	e, err := verify.NewCrossEncoder(h)
	if err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("entailment model %s: %w", dir, err)
	}
	return e, nil
}

func printReport(r claims.Report, ms float64) {
	w := os.Stderr
	fmt.Fprintf(w, "\n%s: %d claims (%d supported, %d partial, %d not supported), %.2f CPU-ms a claim\n", r.Set, r.Rows,
		r.Gold[claims.Supported], r.Gold[claims.Partial], r.Gold[claims.NotSupported], ms)
	fmt.Fprintf(w, "  %-14s %10s %8s %12s\n", "gold \\ verdict", "supported", "partial", "unsupported")
	for _, l := range []string{claims.Supported, claims.Partial, claims.NotSupported} {
		c := r.Confusion[l]
		fmt.Fprintf(w, "  %-14s %10d %8d %12d\n", l, c[verify.Supported], c[verify.Partial], c[verify.Unsupported])
	}
	fmt.Fprintf(w, "  false alarm %.3f (strict %.3f), false pass %.3f (strict %.3f)\n", r.FalseAlarm, r.FalseAlarmStrict, r.FalsePass, r.FalsePassStrict)
	fmt.Fprintf(w, "  AUC supported vs rest %.3f (baseline %.3f), vs not %.3f (baseline %.3f)\n",
		r.AUC.SupportedVsRest, r.BaselineAUC.SupportedVsRest, r.AUC.SupportedVsNot, r.BaselineAUC.SupportedVsNot)
	for _, b := range r.ByLength {
		fmt.Fprintf(w, "  false alarm, claims of %s words: %.3f of %d\n", b.Words, b.FalseAlarm, b.Supported)
	}
}

func printMisses(outs []claims.Outcome, n int) {
	alarms, passes := 0, 0
	for _, o := range outs {
		switch {
		case o.Label == claims.Supported && o.Verdict == verify.Unsupported && alarms < n:
			alarms++
			fmt.Fprintf(os.Stderr, "  FALSE ALARM %s (%.2f): %s\n      reason: %s\n", o.ID, o.Score, o.Claim, o.Reason)
		case o.Label == claims.NotSupported && o.Holds && passes < n:
			passes++
			fmt.Fprintf(os.Stderr, "  FALSE PASS %s %s (%.2f): %s\n", o.ID, o.Verdict, o.Score, o.Claim)
		}
	}
}

// cpuTime is the process's CPU time so far (user and system): what a busy
// shared machine inflates least.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
