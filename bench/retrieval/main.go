// Command retrieval benchmarks Footnote's retrieval on synthetic corpora:
// 384-d clustered unit vectors with Zipf-distributed synthetic words. For
// each corpus size it reports p50/p95 latency per mode (lexical, vector,
// hybrid; query embedding excluded) and vector storage kind, recall@10 of
// the quantised vector search against exact float32 search, and the index
// size on disk. It prints the load average at start and end, since the
// figures are only comparable on an otherwise idle machine. -keep with
// -reuse skips ingesting again when comparing builds on the same corpus.
//
//	go run -tags sqlite_fts5 ./bench/retrieval -sizes 10000,100000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

func main() {
	sizes := flag.String("sizes", "10000,100000", "comma-separated corpus sizes in chunks (1000000 takes a while)")
	dim := flag.Int("dim", 384, "vector dimension")
	queries := flag.Int("queries", 200, "queries per measurement")
	storages := flag.String("storage", "float32,int8,binary", "vector storage kinds to measure")
	dir := flag.String("dir", os.TempDir(), "folder for the benchmark index files")
	keep := flag.Bool("keep", false, "keep the index files")
	reuse := flag.Bool("reuse", false, "reuse index files kept by an earlier -keep run instead of ingesting again")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed queries to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("# load average at start: %s\n", loadAverage())
	defer func() { fmt.Printf("# load average at end: %s\n", loadAverage()) }()
	fmt.Printf("%-8s %-8s %-8s %9s %9s %10s %9s\n", "chunks", "storage", "mode", "p50_ms", "p95_ms", "recall@10", "db_MB")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			log.Fatalf("bad size %q", f)
		}
		if err := run(n, *dim, *queries, strings.Split(*storages, ","), *dir, *keep, *reuse); err != nil {
			log.Fatal(err)
		}
	}
}

type bench struct {
	n, dim   int
	texts    []string
	vecs     [][]float32
	exact    [][]string // exact top-10 snippet ids per query
	queryTxt []string
	queryVec map[string][]float32
	source   []string // the chunk each query's words were drawn from
}

// EmbedQuery returns the prepared vector, so timings exclude embedding.
func (b *bench) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return b.queryVec[text], nil
}

func run(n, dim, queries int, storages []string, dir string, keep, reuse bool) error {
	ctx := context.Background()
	path := filepath.Join(dir, fmt.Sprintf("footnote-bench-%d.db", n))
	if _, err := os.Stat(path); err != nil || !reuse {
		reuse = false
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
	}
	if !keep {
		defer func() {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
		}()
	}
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	centres := make([][]float64, 256)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for d := range centres[i] {
			centres[i][d] = rng.NormFloat64()
		}
	}
	vocab := make([]string, 30000)
	for i := range vocab {
		vocab[i] = word(rng)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	sample := func() []float32 { return unitNear(rng, centres[rng.IntN(len(centres))], 0.8) }

	// Ingest without a quantised copy (it is built from the stored vectors
	// when each kind is opened); a reused file keeps the first kind's copy,
	// so it is not rebuilt on every run.
	initial := store.VectorFloat32
	if reuse {
		initial = strings.TrimSpace(storages[0])
	}
	st, err := store.Open(path, store.Options{Dim: dim, VectorStorage: initial})
	if err != nil {
		return err
	}
	start := time.Now()
	const perDoc = 200
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var snippetOf, idOf []string
	for d := 0; d*perDoc < n; d++ {
		docID := fmt.Sprintf("doc_%08d", d)
		doc := corpus.Document{DocID: docID, Path: "/bench/" + docID + ".txt", Title: docID, Format: "txt", Rev: "r",
			Collection: fmt.Sprintf("c%d", d%10)}
		var vecs [][]float32
		for i := 0; i < perDoc && d*perDoc+i < n; i++ {
			words := make([]string, 30)
			for w := range words {
				words[w] = vocab[zipf.Uint64()]
			}
			text := strings.Join(words, " ")
			id := corpus.SnippetID(docID, "s", text, i)
			doc.Chunks = append(doc.Chunks, corpus.Chunk{SnippetID: id, DocID: docID, SectionID: "s", Ordinal: i, Text: text,
				Offsets: corpus.Offsets{Unit: corpus.UnitChar}, Source: corpus.SourceCorpus, CreatedAt: created})
			vecs = append(vecs, sample())
			snippetOf = append(snippetOf, text)
			idOf = append(idOf, id)
		}
		if reuse {
			continue // same generator sequence, already stored
		}
		if err := st.PutDocument(ctx, doc, vecs, "bench"); err != nil {
			return err
		}
	}
	if !reuse {
		fmt.Printf("# %d chunks ingested in %.1fs (%.0f chunks/s, FTS5 + float32 vectors)\n", n, time.Since(start).Seconds(), float64(n)/time.Since(start).Seconds())
	}
	// The app folds the text index's segments together when ingest goes
	// idle (engine, after each run); do the same before measuring.
	t0 := time.Now()
	if rewrote, err := st.CompactTextIndex(ctx); err != nil {
		return err
	} else if rewrote {
		fmt.Printf("# text index compacted in %.1fs, as the app does when ingest goes idle\n", time.Since(t0).Seconds())
	}

	b := &bench{n: n, dim: dim, queryVec: map[string][]float32{}}
	for q := range queries {
		// Three words of a random chunk, plus a unique tag that matches
		// nothing, so every query text is distinct.
		src := rng.IntN(len(snippetOf))
		b.source = append(b.source, idOf[src])
		words := strings.Fields(snippetOf[src])
		rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		text := strings.Join(words[:3], " ") + fmt.Sprintf(" zzq%d", q)
		b.queryTxt = append(b.queryTxt, text)
		b.queryVec[text] = sample()
	}
	for _, text := range b.queryTxt {
		ms, err := st.SearchVectorExact(ctx, b.queryVec[text], 10, store.Filter{})
		if err != nil {
			return err
		}
		b.exact = append(b.exact, ids(ms))
	}
	st.Close()

	lexicalDone := false
	for _, kind := range storages {
		kind = strings.TrimSpace(kind)
		t0 := time.Now()
		st, err := store.Open(path, store.Options{Dim: dim, VectorStorage: kind})
		if err != nil {
			return err
		}
		build := time.Since(t0)
		st.Close()
		size := fileMB(path)
		st, err = store.Open(path, store.Options{Dim: dim, VectorStorage: kind})
		if err != nil {
			return err
		}
		if kind != store.VectorFloat32 {
			fmt.Printf("# %s index built from stored vectors in %.1fs\n", kind, build.Seconds())
		}
		s := &search.Searcher{Index: st, Embedder: b, RRFK: 60, TopK: 20}
		if !lexicalDone {
			p50, p95, err := timeQueries(b.queryTxt, func(q string) error {
				_, err := s.Search(ctx, q, search.Options{Mode: search.ModeLexical, Limit: 10})
				return err
			})
			if err != nil {
				return err
			}
			fmt.Printf("%-8d %-8s %-8s %9.2f %9.2f %10s %9.0f\n", n, "-", "lexical", p50, p95, "-", size)
			// Lexical quality: how often the chunk a query's words came from
			// is among the top 10 (common words are skipped at scale).
			hit := 0
			for i, q := range b.queryTxt {
				ms, err := st.SearchLexical(ctx, q, 10)
				if err != nil {
					return err
				}
				if slices.Contains(ids(ms), b.source[i]) {
					hit++
				}
			}
			fmt.Printf("# lexical: source chunk in the top 10 for %d of %d queries\n", hit, len(b.queryTxt))
			if err := compareWithPlainBM25(ctx, st, path, b.queryTxt, b.source); err != nil {
				return err
			}
			lexicalDone = true
		}
		var found, total int
		for i, text := range b.queryTxt {
			ms, err := st.SearchVector(ctx, b.queryVec[text], 10)
			if err != nil {
				return err
			}
			for _, id := range ids(ms) {
				if slices.Contains(b.exact[i], id) {
					found++
				}
			}
			total += len(b.exact[i])
		}
		recall := float64(found) / float64(max(total, 1))
		for _, mode := range []string{search.ModeVector, search.ModeHybrid} {
			p50, p95, err := timeQueries(b.queryTxt, func(q string) error {
				_, err := s.Search(ctx, q, search.Options{Mode: mode, Limit: 10})
				return err
			})
			if err != nil {
				return err
			}
			fmt.Printf("%-8d %-8s %-8s %9.2f %9.2f %10.3f %9.0f\n", n, kind, mode, p50, p95, recall, size)
		}
		st.Close()
	}
	return nil
}

// timeQueries runs every query once to warm caches, then times a second
// pass and returns p50 and p95 in milliseconds.
func timeQueries(qs []string, fn func(string) error) (p50, p95 float64, err error) {
	for _, q := range qs[:min(len(qs), 20)] {
		if err := fn(q); err != nil {
			return 0, 0, err
		}
	}
	ds := make([]float64, 0, len(qs))
	for _, q := range qs {
		t := time.Now()
		if err := fn(q); err != nil {
			return 0, 0, err
		}
		ds = append(ds, float64(time.Since(t).Microseconds())/1000)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*95/100)], nil
}

func ids(ms []store.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.SnippetID
	}
	return out
}

// loadAverage is the 1/5/15-minute load average on Linux, "n/a" elsewhere:
// the benchmark machine may be shared, which the figures should say.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}

func fileMB(path string) float64 {
	var total int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			total += fi.Size()
		}
	}
	return float64(total) / 1e6
}

func unitNear(rng *rand.Rand, centre []float64, noise float64) []float32 {
	v := make([]float32, len(centre))
	var norm float64
	for d := range v {
		x := centre[d] + noise*rng.NormFloat64()
		v[d] = float32(x)
		norm += x * x
	}
	inv := float32(1 / math.Sqrt(norm))
	for d := range v {
		v[d] *= inv
	}
	return v
}

// word makes a pronounceable synthetic word of 2–4 syllables.
func word(rng *rand.Rand) string {
	const cons, vows = "bcdfghjklmnprstvz", "aeiou"
	var sb strings.Builder
	for range 2 + rng.IntN(3) {
		sb.WriteByte(cons[rng.IntN(len(cons))])
		sb.WriteByte(vows[rng.IntN(len(vows))])
	}
	return sb.String()
}
