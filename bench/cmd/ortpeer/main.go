// Command ortpeer measures Footnote's pure-Go embedding engine against ONNX
// Runtime on the same model and the same token ids: CPU-ms per passage at
// several batch sizes, one thread each (Footnote in a child with
// GOMAXPROCS=1 and one worker; ONNX Runtime through its Node binding,
// bench/ortpeer/peer.mjs, with one intra- and one inter-op thread). Runs
// are interleaved, Footnote then ONNX Runtime for each batch size, so
// machine noise hits both alike; the speed ratio is the median of the
// per-pair ratios. The vectors of the two are compared passage by passage
// (cosine). It prints one JSON object for bench/run.sh; without node or the
// onnxruntime-node package it prints why and exits 0.
//
//	go run ./bench/cmd/ortpeer -model <folder> [-runs 3] [-n 32] [-batches 1,8,32]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/bench/internal/prose"
)

// Side is one engine's measurement of one batch size in one run.
type Side struct {
	CPUmsPer float64 `json:"cpu_ms_per_passage"`
	Passages int     `json:"passages"`
	Tokens   int     `json:"tokens_per_passage,omitempty"`
	Engine   string  `json:"engine,omitempty"` // what ran Footnote's side (embed.EngineEncoder or EngineGoBackend)
}

// Row is the summary of one batch size.
type Row struct {
	Batch     int       `json:"batch"`
	Footnote  float64   `json:"footnote_cpu_ms"` // median over runs
	ORT       float64   `json:"ort_cpu_ms"`      // median over runs
	Speedup   float64   `json:"speedup"`         // median of per-run ORT/Footnote CPU ratios
	MinCosine float64   `json:"min_cosine"`      // worst passage, Footnote vs ONNX Runtime vectors
	Ratios    []float64 `json:"ratios"`
}

func main() {
	model := flag.String("model", "", "embedding model folder (model.onnx, tokenizer.json)")
	n := flag.Int("n", 32, "passages per measurement")
	runs := flag.Int("runs", 3, "interleaved runs; medians are reported")
	tokens := flag.Int("tokens", 235, "target tokens per passage")
	batches := flag.String("batches", "1,8,32", "batch sizes")
	peerDir := flag.String("peer", "bench/ortpeer", "folder of peer.mjs with node_modules/onnxruntime-node")
	caseBatch := flag.Int("footnote-batch", 0, "internal: measure Footnote at this batch size")
	work := flag.String("work", "", "internal: folder for ids and vectors")
	flag.Parse()
	if *model == "" {
		fail(fmt.Errorf("-model is required"))
	}
	if *caseBatch > 0 {
		side, err := measureFootnote(*model, *work, *n, *tokens, *caseBatch)
		if err != nil {
			fail(err)
		}
		_ = json.NewEncoder(os.Stdout).Encode(side)
		return
	}
	if why := peerMissing(*peerDir); why != "" {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"skipped": why})
		return
	}
	var sizes []int
	for _, f := range strings.Split(*batches, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b < 1 {
			fail(fmt.Errorf("bad batch size %q", f))
		}
		sizes = append(sizes, b)
	}
	rows, tok, version, engine, err := orchestrate(*model, *peerDir, *n, *runs, *tokens, sizes)
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(map[string]any{"runs": *runs, "passages": *n, "tokens_per_passage": tok, "ort_version": version, "engine": engine, "batches": rows})
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ortpeer:", err)
	os.Exit(1)
}

// peerMissing says why the ONNX Runtime side cannot run, or "".
func peerMissing(dir string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not installed"
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node")); err != nil {
		return "onnxruntime-node is not installed in " + dir + " (ONNXRUNTIME_NODE_INSTALL=skip npm install there)"
	}
	return ""
}

func orchestrate(model, peerDir string, n, runs, tokens int, sizes []int) (rows []Row, tok int, version, engine string, err error) {
	work, err := os.MkdirTemp("", "ortpeer-")
	if err != nil {
		return nil, 0, "", "", err
	}
	defer os.RemoveAll(work)
	peer, err := filepath.Abs(filepath.Join(peerDir, "peer.mjs"))
	if err != nil {
		return nil, 0, "", "", err
	}
	type pair struct{ footnote, ort []float64 }
	got := map[int]*pair{}
	minCos := map[int]float64{}
	for r := range runs {
		for _, b := range sizes {
			fn, err := footnoteChild(model, work, n, tokens, b)
			if err != nil {
				return nil, 0, "", "", err
			}
			tok, engine = fn.Tokens, fn.Engine
			ortSide, v, err := ortChild(peer, filepath.Join(model, embed.ModelFile), work, b)
			if err != nil {
				return nil, 0, "", "", err
			}
			version = v
			p := got[b]
			if p == nil {
				p = &pair{}
				got[b] = p
			}
			p.footnote = append(p.footnote, fn.CPUmsPer)
			p.ort = append(p.ort, ortSide.CPUmsPer)
			cos, err := compareVectors(work, b)
			if err != nil {
				return nil, 0, "", "", err
			}
			if c, ok := minCos[b]; !ok || cos < c {
				minCos[b] = cos
			}
			fmt.Fprintf(os.Stderr, "ortpeer run %d batch %-2d footnote %6.1f cpu-ms/passage  onnxruntime %6.1f  ratio %.3f  min cos %.6f\n",
				r+1, b, fn.CPUmsPer, ortSide.CPUmsPer, ortSide.CPUmsPer/fn.CPUmsPer, cos)
		}
	}
	for _, b := range sizes {
		p := got[b]
		var ratios []float64
		for i := range p.footnote {
			ratios = append(ratios, p.ort[i]/p.footnote[i])
		}
		rows = append(rows, Row{Batch: b, Footnote: median(p.footnote), ORT: median(p.ort), Speedup: median(ratios), MinCosine: minCos[b], Ratios: ratios})
	}
	return rows, tok, version, engine, nil
}

func footnoteChild(model, work string, n, tokens, batch int) (Side, error) {
	cmd := exec.Command(os.Args[0], "-model", model, "-work", work, "-n", strconv.Itoa(n), "-tokens", strconv.Itoa(tokens), "-footnote-batch", strconv.Itoa(batch))
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1") // the backend parallelises inside a call: hold it to one core
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return Side{}, fmt.Errorf("footnote batch %d: %w", batch, err)
	}
	var s Side
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		return Side{}, fmt.Errorf("footnote batch %d: bad output %q: %w", batch, out.String(), err)
	}
	return s, nil
}

func ortChild(peer, modelFile, work string, batch int) (Side, string, error) {
	out := filepath.Join(work, fmt.Sprintf("ort-b%d.json", batch))
	cmd := exec.Command("node", peer, modelFile, filepath.Join(work, "ids.json"), strconv.Itoa(batch), out)
	cmd.Dir = filepath.Dir(peer)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return Side{}, "", fmt.Errorf("onnxruntime batch %d: %w", batch, err)
	}
	var res struct {
		Side
		Version string `json:"version"`
	}
	b, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		return Side{}, "", fmt.Errorf("onnxruntime batch %d: %w", batch, err)
	}
	return res.Side, res.Version, nil
}

// measureFootnote runs in the child: it embeds the passages with the
// engine's own path (EmbedPassages, one worker, this batch size), writes
// their token ids for the peer and its vectors for the comparison, and
// returns process CPU time per passage, the first batch excluded (it
// compiles the shapes).
func measureFootnote(model, work string, n, tokens, batch int) (Side, error) {
	ctx := context.Background()
	h, err := embed.LoadWith(ctx, model, embed.Options{BatchSize: batch, Workers: 1})
	if err != nil {
		return Side{}, err
	}
	defer h.Close()
	rng := rand.New(rand.NewPCG(7, 11)) // the same passages in every child
	texts := make([]string, n)
	ids := make([][]int, n)
	for i := range texts {
		texts[i] = prose.Passage(h, rng, tokens)
		ids[i] = h.PassageTokenIDs(texts[i])
	}
	if err := writeJSON(filepath.Join(work, "ids.json"), map[string]any{"ids": ids, "pad_id": 0}); err != nil {
		return Side{}, err
	}
	if _, err := h.EmbedPassages(ctx, texts[:min(batch, n)]); err != nil {
		return Side{}, err
	}
	cpu0 := cpuTime()
	vecs, err := h.EmbedPassages(ctx, texts)
	if err != nil {
		return Side{}, err
	}
	cpu := cpuTime() - cpu0
	if err := writeJSON(filepath.Join(work, fmt.Sprintf("footnote-b%d.json", batch)), map[string]any{"vectors": vecs}); err != nil {
		return Side{}, err
	}
	engine, _ := h.Engine()
	return Side{CPUmsPer: float64(cpu.Microseconds()) / 1000 / float64(n), Passages: n, Tokens: len(ids[0]), Engine: engine}, nil
}

// compareVectors returns the lowest cosine between the two engines'
// vectors of the same passage.
func compareVectors(work string, batch int) (float64, error) {
	var a, b struct {
		Vectors [][]float64 `json:"vectors"`
	}
	for _, f := range []struct {
		name string
		into any
	}{{fmt.Sprintf("footnote-b%d.json", batch), &a}, {fmt.Sprintf("ort-b%d.json", batch), &b}} {
		data, err := os.ReadFile(filepath.Join(work, f.name))
		if err != nil {
			return 0, err
		}
		if err := json.Unmarshal(data, f.into); err != nil {
			return 0, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if len(a.Vectors) != len(b.Vectors) || len(a.Vectors) == 0 {
		return 0, fmt.Errorf("batch %d: %d Footnote vectors, %d ONNX Runtime vectors", batch, len(a.Vectors), len(b.Vectors))
	}
	worst := 1.0
	for i := range a.Vectors {
		worst = min(worst, cosine(a.Vectors[i], b.Vectors[i]))
	}
	return worst, nil
}

func cosine(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.NaN()
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
