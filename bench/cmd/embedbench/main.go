// Command embedbench measures in-process embedding cost on one model folder:
// CPU-ms per passage at several batch sizes, throughput on one core and on
// all cores, query latency, sequence-bucket choices and peak memory. Each
// case runs in a child process so its peak RSS is its own. It prints one
// JSON object on stdout for bench/run.sh to fold into RESULTS.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/bench/internal/prose"
)

// Result is one child's measurement.
type Result struct {
	Case         string  `json:"case"`
	Passages     int     `json:"passages"`
	TokensPer    int     `json:"tokens_per_passage"`
	CPUmsPer     float64 `json:"cpu_ms_per_passage"`
	PassagesPerS float64 `json:"passages_per_s"`
	QueryP50ms   float64 `json:"query_p50_ms,omitempty"`
	QueryP95ms   float64 `json:"query_p95_ms,omitempty"`
	FirstQueryms float64 `json:"first_query_ms,omitempty"`
	LoadMS       float64 `json:"load_ms"`
	PeakRSSMB    float64 `json:"peak_rss_mb"`
	EndRSSMB     float64 `json:"end_rss_mb"`
	Truncated    int64   `json:"truncated,omitempty"`
	CoresUsed    float64 `json:"cores_used"`
	// CoresWanted adds the time threads were ready but waited for a CPU
	// held by another process: on a shared machine it shows how parallel
	// the work is even when CoresUsed cannot.
	CoresWanted   float64 `json:"cores_wanted"`
	WorkersActive int     `json:"workers"`
	Engine        string  `json:"engine"`                // what ran the model (embed.EngineEncoder or EngineGoBackend)
	EngineNote    string  `json:"engine_note,omitempty"` // why not the encoder
}

func main() {
	model := flag.String("model", "", "embedding model folder")
	caseName := flag.String("case", "", "run one case in this process (internal)")
	n := flag.Int("n", 64, "passages per run")
	runs := flag.Int("runs", 3, "repeated runs; medians are reported")
	tokens := flag.Int("tokens", 235, "target tokens per passage")
	extra := flag.Bool("extra", false, "also compare sequence buckets (240 vs 256)")
	flag.Parse()
	embed.LimitProcessMemory() // as the app's entry points do
	if *model == "" {
		fmt.Fprintln(os.Stderr, "embedbench: -model is required")
		os.Exit(2)
	}
	if *caseName != "" {
		r, err := runCase(*caseName, *model, *n, *tokens)
		if err != nil {
			fmt.Fprintf(os.Stderr, "embedbench %s: %v\n", *caseName, err)
			os.Exit(1)
		}
		_ = json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	if err := orchestrate(*model, *n, *runs, *tokens, *extra); err != nil {
		fmt.Fprintf(os.Stderr, "embedbench: %v\n", err)
		os.Exit(1)
	}
}

// orchestrate runs every case runs times, interleaved so that machine noise
// hits all cases alike, and prints medians plus same-run ratios.
func orchestrate(model string, n, runs, tokens int, extra bool) error {
	all := runtime.NumCPU()
	cases := []string{
		"cpu:b1", "cpu:b8", "cpu:b8:go-backend", "cpu:b32",
		// Two adjacent pairs a run: on a shared host one core's speed
		// moves by ±20% from minute to minute, and the speed-up is the
		// median of the pairs' ratios (six at the default three runs).
		"tput:w1", "tput:wall", "tput:w1", "tput:wall",
		"query",
		"ingest",
	}
	if extra {
		cases = append(cases, "bucket:256", "bucket:240")
	}
	got := map[string][]Result{}
	for r := range runs {
		for _, c := range cases {
			size := n
			switch {
			case c == "ingest":
				size = max(n*4, 256)
			case strings.HasPrefix(c, "tput"):
				size = max(n, 32*all) // four batches per worker: with two, one slow call swung the ratio
			}
			res, err := child(c, model, size, tokens)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "embedbench run %d %-12s cpu-ms/passage %6.1f  passages/s %6.2f  query p50 %5.1f ms  peak %6.0f MB\n",
				r+1, c, res.CPUmsPer, res.PassagesPerS, res.QueryP50ms, res.PeakRSSMB)
			got[c] = append(got[c], res)
		}
	}
	med := func(c string, f func(Result) float64) float64 {
		var xs []float64
		for _, r := range got[c] {
			xs = append(xs, f(r))
		}
		return median(xs)
	}
	// Ratios come from the same run (pairs), then the median of the ratios.
	ratio := func(a, b string, f func(Result) float64) float64 {
		var xs []float64
		for i := range got[a] {
			if d := f(got[b][i]); d > 0 {
				xs = append(xs, f(got[a][i])/d)
			}
		}
		return median(xs)
	}
	cpu := func(r Result) float64 { return r.CPUmsPer }
	tput := func(r Result) float64 { return r.PassagesPerS }
	peak := func(r Result) float64 { return r.PeakRSSMB }
	summary := map[string]any{
		"runs":                    runs,
		"cores":                   all,
		"tokens_per_passage":      got["cpu:b8"][0].TokensPer,
		"cpu_ms_b1":               med("cpu:b1", cpu),
		"cpu_ms_b8":               med("cpu:b8", cpu),
		"cpu_ms_b8_gobackend":     med("cpu:b8:go-backend", cpu),
		"gobackend_vs_engine_b8":  ratio("cpu:b8:go-backend", "cpu:b8", cpu),
		"engine":                  got["cpu:b8"][0].Engine,
		"cpu_ms_b32":              med("cpu:b32", cpu),
		"peak_mb_b1":              med("cpu:b1", peak),
		"peak_mb_b8":              med("cpu:b8", peak),
		"peak_mb_b32":             med("cpu:b32", peak),
		"cpu_ms_bucket256":        med("bucket:256", cpu),
		"cpu_ms_bucket240":        med("bucket:240", cpu),
		"bucket240_vs_256":        ratio("bucket:240", "bucket:256", cpu),
		"passages_per_s_1core":    med("tput:w1", tput),
		"passages_per_s_allcores": med("tput:wall", tput),
		"cores_used_allcores":     med("tput:wall", func(r Result) float64 { return r.CoresUsed }),
		"cores_wanted_allcores":   med("tput:wall", func(r Result) float64 { return r.CoresWanted }),
		"speedup_allcores":        ratio("tput:wall", "tput:w1", tput),
		"peak_mb_allcores":        med("tput:wall", peak),
		"query_p50_ms":            med("query", func(r Result) float64 { return r.QueryP50ms }),
		"query_p95_ms":            med("query", func(r Result) float64 { return r.QueryP95ms }),
		"first_query_ms":          med("query", func(r Result) float64 { return r.FirstQueryms }),
		"load_ms":                 med("query", func(r Result) float64 { return r.LoadMS }),
		"idle_rss_mb_after_load":  med("query", func(r Result) float64 { return r.EndRSSMB }),
		"ingest_passages":         got["ingest"][0].Passages,
		"ingest_passages_per_s":   med("ingest", tput),
		"ingest_peak_rss_mb":      med("ingest", peak),
		"ingest_truncated":        got["ingest"][0].Truncated,
	}
	summary["ingest_idle_rss_mb"] = med("ingest", func(r Result) float64 { return r.EndRSSMB })
	if !extra {
		for _, k := range []string{"cpu_ms_bucket256", "cpu_ms_bucket240", "bucket240_vs_256"} {
			delete(summary, k)
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(summary)
}

func child(c, model string, n, tokens int) (Result, error) {
	cmd := exec.Command(os.Args[0], "-case", c, "-model", model, "-n", strconv.Itoa(n), "-tokens", strconv.Itoa(tokens))
	cmd.Env = os.Environ()
	if oneCore(c) {
		// The backend parallelises inside a model call, so "one core"
		// needs the runtime held to one.
		cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("case %s: %w", c, err)
	}
	var r Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return Result{}, fmt.Errorf("case %s: bad output %q: %w", c, out.String(), err)
	}
	return r, nil
}

// oneCore reports the cases measured with GOMAXPROCS=1.
func oneCore(c string) bool { return strings.HasPrefix(c, "cpu:") || c == "tput:w1" }

func runCase(c, model string, n, tokens int) (Result, error) {
	ctx := context.Background()
	opts := embed.Options{Workers: 1}
	switch c {
	case "cpu:b1":
		opts.BatchSize = 1
	case "cpu:b8":
		opts.BatchSize = 8
	case "cpu:b8:go-backend":
		// The same work on the Go backend, for the engine's speed-up.
		opts.BatchSize, opts.Engine = 8, embed.EngineGoBackend
	case "cpu:b32":
		opts.BatchSize = 32
	case "bucket:256":
		// Buckets pad inputs on the Go backend only; the encoder pads nothing.
		opts.SequenceBuckets, opts.Engine = []int{16, 32, 64, 128, 256, 384}, embed.EngineGoBackend
	case "bucket:240":
		// A bucket just above ~235-token passages: the finest useful one.
		opts.SequenceBuckets, opts.Engine = []int{16, 32, 64, 128, 240, 256, 384}, embed.EngineGoBackend
	case "tput:w1":
	case "tput:sessions":
		return sessionsCase(ctx, model, n, tokens)
	case "tput:wall", "query", "ingest":
		opts.Workers = 0 // default: one per core
	default:
		return Result{}, fmt.Errorf("unknown case %q", c)
	}
	t0 := time.Now()
	h, err := embed.LoadWith(ctx, model, opts)
	if err != nil {
		return Result{}, err
	}
	defer h.Close()
	r := Result{Case: c, LoadMS: ms(time.Since(t0)), WorkersActive: h.Options().Workers}
	r.Engine, r.EngineNote = h.Engine()
	rng := rand.New(rand.NewPCG(7, 11))

	if c == "query" {
		return queryCase(ctx, h, r, rng)
	}
	var texts []string
	if c == "ingest" {
		// A large ingest: chunks of mixed length, some over the limit.
		for i := range n {
			t := tokens
			switch i % 5 {
			case 0:
				t = 20 + rng.IntN(60)
			case 1:
				t = 80 + rng.IntN(100)
			case 4:
				if i%25 == 4 {
					t = h.Info().MaxTokens + 100
				}
			}
			texts = append(texts, prose.Passage(h, rng, t))
		}
	} else {
		for range n {
			texts = append(texts, prose.Passage(h, rng, tokens))
		}
		r.TokensPer = h.CountTokens(texts[0])
		// Compile this case's shapes outside the measurement.
		if _, err := h.EmbedPassages(ctx, texts[:min(len(texts), h.Options().BatchSize*h.Options().Workers)]); err != nil {
			return r, err
		}
	}
	before := h.Stats()
	if p := os.Getenv("EMBEDBENCH_CPUPROFILE"); p != "" {
		// Profiles the measured part only, not loading or compiling.
		f, err := os.Create(p)
		if err != nil {
			return r, fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return r, fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	cpu0, wall0, wait0 := cpuTime(), time.Now(), runDelay()
	if c == "ingest" {
		// The engine batches the chunks of several files into one call of
		// up to 64 texts (engine.embedBatchTexts).
		for start := 0; start < len(texts); start += 64 {
			if _, err := h.EmbedPassages(ctx, texts[start:min(start+64, len(texts))]); err != nil {
				return r, err
			}
		}
	} else if _, err := h.EmbedPassages(ctx, texts); err != nil {
		return r, err
	}
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	r.CoresWanted = (cpu + runDelay() - wait0).Seconds() / wall.Seconds()
	r.Passages = len(texts)
	r.CPUmsPer = ms(cpu) / float64(len(texts))
	r.PassagesPerS = float64(len(texts)) / wall.Seconds()
	r.CoresUsed = cpu.Seconds() / wall.Seconds()
	r.Truncated = h.Stats().Truncated - before.Truncated
	if c == "ingest" {
		// As the engine does after an ingest run (twice: see engine.runLocked).
		debug.FreeOSMemory()
		debug.FreeOSMemory()
	}
	r.PeakRSSMB, r.EndRSSMB = rss()
	return r, nil
}

func queryCase(ctx context.Context, h *embed.Hugot, r Result, rng *rand.Rand) (Result, error) {
	var lat []float64
	for i := range 200 {
		q := strings.Join(prose.Words(rng, 3+rng.IntN(10)), " ") + "?"
		t := time.Now()
		if _, err := h.EmbedQuery(ctx, q); err != nil {
			return r, err
		}
		d := ms(time.Since(t))
		if i == 0 {
			r.FirstQueryms = d
		}
		lat = append(lat, d)
	}
	r.QueryP50ms = percentile(lat, 50)
	r.QueryP95ms = percentile(lat, 95)
	// Idle memory: what stays resident once garbage is returned to the OS,
	// freed as the app does after loading (twice: the backend's scratch
	// buffers sit in sync.Pools, which survive one collection).
	debug.FreeOSMemory()
	debug.FreeOSMemory()
	r.PeakRSSMB, r.EndRSSMB = rss()
	if p := os.Getenv("EMBEDBENCH_HEAPPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	return r, nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runDelay sums the time this process's threads spent runnable but waiting
// for a CPU (schedstat's second field).
func runDelay() time.Duration {
	tasks, _ := os.ReadDir("/proc/self/task")
	var total int64
	for _, t := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(data)); len(f) >= 2 {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			total += v
		}
	}
	return time.Duration(total)
}

// rss returns peak and current resident memory in MB from /proc.
func rss() (peak, now float64) {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmHWM:":
			peak = v / 1024
		case "VmRSS:":
			now = v / 1024
		}
	}
	return peak, now
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 { return percentile(xs, 50) }

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(float64(len(s)-1)*p/100 + 0.5)
	return s[min(i, len(s)-1)]
}

// sessionsCase runs one model instance per core, each on its share of the
// passages: the alternative to concurrent calls on one instance.
func sessionsCase(ctx context.Context, model string, n, tokens int) (Result, error) {
	all := runtime.NumCPU()
	hs := make([]*embed.Hugot, all)
	for i := range hs {
		h, err := embed.LoadWith(ctx, model, embed.Options{Workers: 1})
		if err != nil {
			return Result{}, err
		}
		defer h.Close()
		hs[i] = h
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var texts []string
	for range n {
		texts = append(texts, prose.Passage(hs[0], rng, tokens))
	}
	share := n / all
	for i, h := range hs {
		if _, err := h.EmbedPassages(ctx, texts[i*share:i*share+8]); err != nil {
			return Result{}, err
		}
	}
	cpu0, wall0 := cpuTime(), time.Now()
	errs := make(chan error, all)
	for i, h := range hs {
		go func() {
			_, err := h.EmbedPassages(ctx, texts[i*share:(i+1)*share])
			errs <- err
		}()
	}
	for range hs {
		if err := <-errs; err != nil {
			return Result{}, err
		}
	}
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	r := Result{Case: "tput:sessions", Passages: share * all, WorkersActive: all}
	r.CPUmsPer = ms(cpu) / float64(r.Passages)
	r.PassagesPerS = float64(r.Passages) / wall.Seconds()
	r.CoresUsed = cpu.Seconds() / wall.Seconds()
	r.PeakRSSMB, r.EndRSSMB = rss()
	return r, nil
}
