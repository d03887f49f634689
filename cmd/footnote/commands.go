package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/engine"
)

// modelHTTPClient, when set, carries the requests to the model server
// (tests route a remote-looking name to a loopback fake with it).
var modelHTTPClient *http.Client

func openEngine() (*engine.Engine, error) { return openEngineAllowing(false) }

// openEngineAllowing opens the data folder; allowRemote is --allow-remote:
// consent, for this run, to send passages to a model server that is not on
// this machine.
func openEngineAllowing(allowRemote bool) (*engine.Engine, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	cfg.Settings.AllowRemote = cfg.Settings.AllowRemote || allowRemote
	var opts []engine.Option
	if modelHTTPClient != nil {
		opts = append(opts, engine.WithHTTPClient(modelHTTPClient))
	}
	return engine.New(cfg, opts...)
}

// remoteHint restates a refusal to use an unconfirmed remote model server
// in the CLI's terms.
func remoteHint(err error) error {
	var re *engine.RemoteServerError
	if !errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("%w: the model server %s is not on this machine, so passages from your documents would be sent there; "+
		"run again with --allow-remote (or set %s=1) if that is what you want", engine.ErrRemoteNotConfirmed, re.Server, config.EnvAllowRemote)
}

// openReadyEngine opens the data folder and waits until the embedding model
// and the index are loaded.
func openReadyEngine(ctx context.Context) (*engine.Engine, error) {
	return openReadyEngineAllowing(ctx, false)
}

func openReadyEngineAllowing(ctx context.Context, allowRemote bool) (*engine.Engine, error) {
	en, err := openEngineAllowing(allowRemote)
	if err != nil {
		return nil, err
	}
	if err := en.Ready(ctx); err != nil {
		en.Close()
		return nil, err
	}
	return en, nil
}

// warnWordsOnly says on stderr that search runs by words alone because no
// embedding model is loaded, and how to get one.
func warnWordsOnly(en *engine.Engine, stderr io.Writer) {
	if missing := en.ModelMissing(); missing != nil {
		fmt.Fprintf(stderr, "footnote: searching by words only, no embedding model is loaded (%v); run `footnote model download` for search by meaning\n", missing)
	}
}

func cmdIngest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ingest", stderr)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError{"give one or more folders or files to index"}
	}
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	progress := func(p engine.Progress) {
		if p.Done {
			fmt.Fprintf(stderr, "done: %d/%d files read, %d chunks embedded\n", p.FilesDone, p.FilesTotal, p.Chunks)
			return
		}
		fmt.Fprintf(stderr, "[%d/%d] %s\n", p.FilesDone, p.FilesTotal, p.Current)
	}
	sum, err := en.Ingest(ctx, paths, progress)
	if err != nil {
		return ingestStopped(ctx, en, sum, err)
	}
	if missing := en.ModelMissing(); missing != nil { // not warnWordsOnly: the next step is the download
		fmt.Fprintf(stderr, "footnote: indexed for search by words only, no embedding model is loaded (%v); after `footnote model download` the chunks get vectors without reading the files again\n", missing)
	}
	if *asJSON {
		return printJSON(stdout, sum)
	}
	fmt.Fprintf(stdout, "%d files seen: %d indexed, %d unchanged, %d deleted, %d skipped, %d failed; %d chunks embedded in %.1fs\n",
		sum.FilesSeen, sum.FilesIndexed, sum.FilesUnchanged, sum.FilesDeleted, sum.FilesSkipped, sum.FilesFailed, sum.ChunksEmbedded, float64(sum.DurationMS)/1000)
	for _, e := range sum.Errors {
		fmt.Fprintf(stdout, "  failed  %s: %s\n", e.Path, e.Error)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(stdout, "  skipped %s: %s\n", s.Path, s.Error)
	}
	for _, n := range sum.Notes {
		fmt.Fprintf(stdout, "  note    %s: %s\n", n.Path, n.Error)
	}
	return nil
}

// streamSink prints tokens as they arrive.
type streamSink struct{ w io.Writer }

func (s streamSink) Evidence(string, []engine.Citation) {}
func (s streamSink) Token(_ string, tok string)         { fmt.Fprint(s.w, tok) }

func cmdAsk(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ask", stderr)
	asJSON := fs.Bool("json", false, "print the stored answer as JSON instead of streaming text")
	allowRemote := fs.Bool("allow-remote", false, "send passages to the model server even if it is not on this machine")
	fresh := fs.Bool("fresh", false, "answer anew without consulting the answer cache (the answer still refreshes it)")
	threadID := fs.String("thread", "", "continue this thread (ids from footnote threads): the question is a follow-up")
	followUp := fs.Bool("follow-up", false, "continue the most recent thread")
	searchFor := fs.String("search-for", "", "search for this standalone question instead of the rewrite (edit it and ask again)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" {
		return usageError{`give a question, e.g. footnote ask "How do I install Footnote?"`}
	}
	en, err := openReadyEngineAllowing(ctx, *allowRemote)
	if err != nil {
		return err
	}
	defer en.Close()
	warnWordsOnly(en, stderr)
	// Check the LLM before anything is retrieved or stored, so an
	// unconfirmed remote server costs one clear sentence and changes
	// nothing. Without a running model the question is still asked: the
	// answer is the passages that match (no_answer_model), and nothing more
	// is sent to a server that said it cannot answer.
	var noModel error
	if err := en.CheckAnswerModel(ctx); err != nil {
		if !engine.NoAnswerModel(err) {
			return remoteHint(err)
		}
		fmt.Fprintf(stderr, "footnote: %s Answering with the passages that match.\n", err)
		noModel = err
	}
	var sink engine.Sink
	if !*asJSON {
		sink = streamSink{stdout}
	}
	if *followUp && *threadID == "" {
		latest, lerr := en.LatestThread(ctx)
		if lerr != nil {
			return lerr
		}
		*threadID = latest.ID
	}
	req := engine.Request{ID: fmt.Sprintf("cli-%d", time.Now().UnixNano()), Question: question}
	ta, err := en.AskInThread(ctx, *threadID, req, *searchFor, sink, engine.AskOptions{Fresh: *fresh, NoAnswerModel: noModel})
	ans := ta.Answer
	if err != nil && ans.ID == "" {
		return err
	}
	if *asJSON {
		// Print the answer as stored, so scripts see exactly what history keeps.
		if rec, found, lerr := en.AnswerByID(ctx, ans.ID); lerr == nil && found {
			if stored, derr := engine.DecodeAnswer(rec); derr == nil {
				ans = stored
			}
		}
		out := askJSON{Answer: ans, ThreadID: ta.Thread.ID, Turn: ta.Turn.Seq}
		if ans.Cache != nil {
			out.AskFresh = askFreshCommand(ans.Question)
		}
		if perr := printJSON(stdout, out); perr != nil {
			return perr
		}
		return askOutcome(ans, err)
	}
	if footnoteWrote(ans) {
		fmt.Fprint(stdout, ans.Answer) // Footnote's own text, never streamed
	}
	fmt.Fprintln(stdout)
	if ans.RefusalReason != nil && *ans.RefusalReason == engine.RefusalNoModel {
		fmt.Fprintf(stdout, "\n%s\n", ans.Error)
	}
	printSearchedFor(stdout, ans)
	printCitations(stdout, ans)
	if err == nil && ans.Incomplete && ans.Error != "" {
		fmt.Fprintf(stdout, "\nIncomplete: %s\n", ans.Error) // e.g. cut at the answer length limit
	}
	printCacheNote(stdout, ans)
	fmt.Fprintf(stdout, "\nThread %s, turn %d (follow up with: footnote ask --follow-up \"…\")\n", ta.Thread.ID, ta.Turn.Seq)
	return askOutcome(ans, err)
}

// askOutcome is what ask exits with once the answer is printed: its error,
// else a stopped answer's, else exitNoModel when no model answered (the
// passages were printed instead), so a script can tell each apart.
func askOutcome(ans engine.Answer, err error) error {
	switch {
	case err != nil:
		return err
	case ans.Stopped:
		return errAnswerStopped
	case ans.RefusalReason != nil && *ans.RefusalReason == engine.RefusalNoModel:
		return exitStatus{code: exitNoModel}
	}
	return nil
}

func cmdPull(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pull", stderr)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"give one model name, e.g. footnote pull llama3.2:3b"}
	}
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	last, lastStatus := time.Time{}, ""
	err = en.PullModel(ctx, pos[0], func(p engine.PullProgress) {
		complete := p.Total > 0 && p.Completed == p.Total
		if p.Done || (p.Status == lastStatus && !complete && time.Since(last) < 500*time.Millisecond) {
			return
		}
		last, lastStatus = time.Now(), p.Status
		if p.Total > 0 {
			fmt.Fprintf(stderr, "%s: %.1f of %.1f MB (%d%%)\n", p.Status, float64(p.Completed)/1e6, float64(p.Total)/1e6, p.Completed*100/p.Total)
		} else {
			fmt.Fprintln(stderr, p.Status)
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model %s is ready\n", pos[0])
	return nil
}

func printCitations(w io.Writer, ans engine.Answer) {
	if ans.Stopped {
		fmt.Fprintln(w, "\n(stopped)")
	}
	if !ans.Grounded && ans.RefusalReason != nil {
		reason := *ans.RefusalReason
		if is, failed := ans.Validation.FirstError(); failed && reason == engine.RefusalValidation {
			reason += " (" + is.Code + ")"
		}
		fmt.Fprintf(w, "\nNot grounded: %s\n", reason)
		if by := ans.Retrieval.RefusedBy; by != nil {
			fmt.Fprintf(w, "  %s\n", by.Sentence())
		}
	}
	printValidation(w, ans)
	for _, c := range ans.Nearest {
		fmt.Fprintf(w, "  nearest: %s › %s (score %.2f)\n", c.Title, c.SectionID, c.ScoreNorm)
	}
	if len(ans.Citations) > 0 {
		fmt.Fprintln(w)
	}
	for _, c := range ans.Citations {
		fmt.Fprintf(w, "[#%d] %s › %s (score %.2f, rank %d, chars %d–%d)\n     %s\n", c.N, c.Title, c.SectionID, c.ScoreNorm, c.KFinal, c.Offsets.Start, c.Offsets.End, c.SourceURL)
	}
	if !scoresDescend(ans.Citations) {
		fmt.Fprintln(w, "  Passages are numbered by rank: fusion weighs each retriever by how clearly its best hits stand out,")
		fmt.Fprintln(w, "  while the score shown is the unweighted fused score (footnote search --explain shows both).")
	}
	printVerification(w, ans)
	if b := ans.LambdaBasis; b != nil {
		fmt.Fprintf(w, "\nλ %s: %s", ans.Lambda, b.Reason)
		if b.PreviousID != "" {
			fmt.Fprintf(w, " (%s, %s)", b.PreviousID, b.PreviousAt.Local().Format("2006-01-02 15:04"))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%s · %s · %d ms\n", ans.Model, ans.EmbedModel, ans.DurationMS)
}

func cmdSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("search", stderr)
	asJSON := fs.Bool("json", false, "print hits as JSON")
	mode := fs.String("mode", "", "hybrid, lexical or vector (default: the retrieval_mode setting, hybrid unless changed)")
	k := fs.Int("k", 10, "hits to show")
	explain := fs.Bool("explain", false, "show how each hit was scored: per-retriever raw score, rank and RRF contribution")
	rrfK := fs.Int("rrf-k", 0, "reciprocal rank fusion constant (default: the rrf_k setting)")
	rerank := fs.Bool("rerank", true, "reorder the top hits with the reranker in "+config.EnvRerankModel+" or rerank_model_dir, when set (--rerank=false shows the fused order)")
	var collections, docs listFlag
	fs.Var(&collections, "collection", "only search this collection (repeat or comma-separate for several)")
	fs.Var(&docs, "doc", "only search this document id (repeat or comma-separate for several)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return usageError{`give a query, e.g. footnote search "install linux"`}
	}
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	res, err := en.Search(ctx, query, engine.SearchOptions{Mode: *mode, Limit: *k, RRFK: *rrfK, Collections: collections, DocIDs: docs, NoRerank: !*rerank})
	if err != nil {
		return err
	}
	if _, rerr := en.RerankerStatus(ctx); *rerank && rerr != nil {
		fmt.Fprintf(stderr, "warning: results are not reranked: %v\n", rerr)
	}
	warnWordsOnly(en, stderr)
	hits := make([]engine.Citation, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = engine.CitationFromHit(i+1, h)
	}
	if *asJSON {
		return printJSON(stdout, struct {
			Query      string            `json:"query"`
			Mode       string            `json:"mode"`
			IndexHash  string            `json:"index_hash"`
			EmbedModel string            `json:"embed_model"`
			RRFK       int               `json:"rrf_k"`
			MaxRRF     float64           `json:"max_rrf"`
			Retrievers []string          `json:"retrievers"`
			Reranker   string            `json:"reranker,omitempty"`
			Hits       []engine.Citation `json:"hits"`
		}{query, res.Mode, en.IndexHash(), en.EmbedModel(), res.RRFK, res.MaxRRF, res.Retrievers, res.Reranker, hits})
	}
	if len(hits) == 0 {
		fmt.Fprintln(stdout, "no matches")
	}
	for _, h := range hits {
		fmt.Fprintf(stdout, "%2d. %.3f  %s › %s\n    %s\n", h.N, h.ScoreNorm, h.Title, h.SectionID, oneLine(excerpt(h.Text, 160)))
		if *explain {
			printExplain(stdout, h, res)
		}
	}
	return nil
}

func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func cmdDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("doctor", stderr)
	asJSON := fs.Bool("json", false, "print checks as JSON")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	en, err := openEngine()
	if err != nil {
		return err
	}
	defer en.Close()
	checks := en.Doctor(ctx)
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if *asJSON {
		if err := printJSON(stdout, checks); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			mark := "ok  "
			switch {
			case !c.OK:
				mark = "FAIL"
			case c.Warn:
				mark = "warn"
			}
			fmt.Fprintf(stdout, "%s %-34s %s\n", mark, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(stdout, "     fix: %s\n", c.Fix)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(checks))
	}
	return nil
}

func cmdModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "download" {
		return usageError{"usage: footnote model download [--verify] [--dir DIR]"}
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	fs := newFlags("model download", stderr)
	verifyModel := fs.Bool("verify", false, "fetch the entailment model for claim verification ("+engine.VerifyModelName+") instead of the embedding model")
	dir := fs.String("dir", "", "folder to download the model into (default: the configured folder)")
	if _, err := parseInterspersed(fs, args[1:]); err != nil {
		return err
	}
	if *dir == "" {
		*dir = cfg.Settings.EmbedModelDir
		if *verifyModel {
			*dir = cfg.Settings.VerifyModelDir
			if *dir == "" {
				*dir = engine.VerifyModelDir(cfg)
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(*dir), 0o755); err != nil {
		return err
	}
	last := time.Time{}
	progress := func(p engine.ModelProgress) {
		if time.Since(last) > 500*time.Millisecond {
			last = time.Now()
			fmt.Fprintf(stderr, "%s: %s of %s\n", p.File, megabytes(p.Done), megabytes(p.Total))
		}
	}
	var signals string
	if *verifyModel {
		signals, err = engine.DownloadVerifyModel(ctx, *dir, progress)
	} else {
		err = engine.DownloadEmbedModel(ctx, *dir, progress)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("download cancelled; nothing was kept")
		}
		if errors.Is(err, engine.ErrModelFolderInUse) {
			return fmt.Errorf("%w (--dir names another folder)", err)
		}
		return err
	}
	if !*verifyModel {
		fmt.Fprintf(stdout, "model ready in %s\n", *dir)
		return nil
	}
	fmt.Fprintf(stdout, "entailment model ready in %s (%s)\n", *dir, signals)
	if cfg.Settings.VerifyModelDir != *dir {
		fmt.Fprintf(stdout, "claim verification uses it once %s=%s is set (or \"verify_model_dir\" in %s)\n",
			config.EnvVerifyModel, *dir, cfg.SettingsPath())
	}
	return nil
}

func megabytes(n int64) string {
	if n <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

func cmdHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("history", stderr)
	asJSON := fs.Bool("json", false, "print answers as JSON")
	n := fs.Int("n", 20, "how many answers")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	en, err := openReadyEngine(ctx)
	if err != nil {
		return err
	}
	defer en.Close()
	answers, err := en.Answers(ctx, *n)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, historyRecords(answers))
	}
	for _, a := range answers {
		state := "grounded"
		if !a.Grounded {
			state = "not grounded: " + a.RefusalReason
		}
		if full, err := engine.DecodeAnswer(a); err == nil && verificationState(full) != "" {
			state += " · " + verificationState(full)
		}
		fmt.Fprintf(stdout, "%s  %s\n  %s\n  (%s, %s)\n", a.CreatedAt.Local().Format("2006-01-02 15:04"), a.Question, oneLine(excerpt(a.Answer, 200)), state, a.Model)
	}
	return nil
}

// footnoteWrote reports an answer whose text Footnote wrote itself, the
// model never called: a refusal before generation, or the passages when no
// model answers. Such text was not streamed.
func footnoteWrote(ans engine.Answer) bool {
	if ans.RefusalReason == nil {
		return false
	}
	switch *ans.RefusalReason {
	case engine.RefusalNoChunks, engine.RefusalScoreGate, engine.RefusalUnanswerable, engine.RefusalNoModel:
		return true
	case engine.RefusalValidation:
		return ans.Retrieval.Used == 0 // refused before generation (analyzer parity, re-entry)
	}
	return false
}

// printValidation lists the answer's failed checks, each with its code, what
// failed and the fix; warnings too, beside a grounded answer.
func printValidation(w io.Writer, ans engine.Answer) {
	for _, is := range ans.Validation.Issues {
		fmt.Fprintf(w, "  %s %s: %s\n    fix: %s\n", is.Severity, is.Code, is.Message, is.Fix)
	}
}

// scoresDescend reports whether citations, in their numbering, go from the
// highest score to the lowest.
func scoresDescend(cs []engine.Citation) bool {
	for i := 1; i < len(cs); i++ {
		if cs[i].ScoreNorm > cs[i-1].ScoreNorm {
			return false
		}
	}
	return true
}
