#!/usr/bin/env python3
"""Folds the raw outputs in build/bench/ into bench/RESULTS.md (stdout)."""
import json, os, pathlib, platform, re, subprocess, sys

out, model_note, runs, cli_ms, app_line, load0, load1, elapsed = sys.argv[1:9]

def read(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""

def cpu_model():
    for line in read_file("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"

def read_json(name):
    """A raw output as JSON; None when it is missing or torn (a step that failed)."""
    try:
        return json.loads(read(name) or "null")
    except ValueError:
        return None

def read_file(p):
    try:
        with open(p) as f:
            return f.read()
    except OSError:
        return ""

def go_version():
    try:
        return subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"

def metrics(text):
    """Benchmark lines -> {name: {unit: value}}."""
    res = {}
    for line in text.splitlines():
        if not line.startswith("Benchmark"):
            continue
        parts = line.split()
        name = re.sub(r"-\d+$", "", parts[0])
        vals = res.setdefault(name, {})
        for i in range(2, len(parts) - 1, 2):
            try:
                vals[parts[i + 1]] = float(parts[i])
            except ValueError:
                pass
    return res

def max_rss(name):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", read(name + ".time"))
    return f"{int(m.group(1)) / 1024:.0f} MB" if m else "n/a"

def f(v, unit="", nd=1):
    return "n/a" if v is None else f"{v:.{nd}f}{unit}"

try:
    e = json.loads(read("embed.json"))
except ValueError:
    e = {}
mem_kb = int(re.search(r"MemTotal:\s+(\d+)", read_file("/proc/meminfo")).group(1))
ing = metrics(read("ingest.txt"))
ovh = metrics(read("overhead.txt"))

print("# Footnote benchmark results\n")
print("Written by `make bench` (bench/run.sh). Figures are medians of repeated runs; ratios are taken within a run.\n")
print("## Machine\n")
print(f"- CPU: {cpu_model()}, {os.cpu_count()} cores visible; RAM {mem_kb / 1048576:.0f} GB; {platform.system()} {platform.release()}")
print(f"- {go_version()}, GOEXPERIMENT={os.environ.get('GOEXPERIMENT', '')}")
print(f"- load average at start {load0}, at end {load1} (a shared machine skews parallel figures)")
print(f"- embedding model: {model_note}")
steps = ", ".join(l.strip() for l in read("timings.txt").splitlines() if l.strip())
print(f"- runs per figure: {runs}; whole suite took {elapsed} s" + (f" ({steps})" if steps else "") + "\n")

print("## Summary\n")
print("| figure | value | target |")
print("|---|---|---|")
tok = e.get("tokens_per_passage")
print(f"| embed CPU-ms per passage (~{tok} tokens), batch 1 / 8 / 32, one core (GOMAXPROCS=1) | {f(e.get('cpu_ms_b1'))} / {f(e.get('cpu_ms_b8'))} / {f(e.get('cpu_ms_b32'))} | ~80 at batch 8 |")
if e.get("cpu_ms_b8_gobackend") is not None:
    print(f"| embed CPU-ms per passage at batch 8 on the Go backend, and its cost over the engine in use ({e.get('engine', '?')}; same run) | {f(e.get('cpu_ms_b8_gobackend'))} ({f(e.get('gobackend_vs_engine_b8'), '×', 2)}) | |")
print(f"| passages/s, 1 core (GOMAXPROCS=1) / all cores ({e.get('cores', '?')}) | {f(e.get('passages_per_s_1core'), '', 2)} / {f(e.get('passages_per_s_allcores'), '', 2)} | |")
print(f"| all-core speed-up (same run) | {f(e.get('speedup_allcores'), '×', 2)} ({f(e.get('cores_used_allcores'), ' cores busy', 2)}; {f(e.get('cores_wanted_allcores'), ' runnable', 2)}) | ≥ 1.7× on 2 cores |")
if e.get("bucket240_vs_256") is not None:
    print(f"| padding to a 240 bucket vs 256 (CPU, same run) | {f(e.get('bucket240_vs_256'), '×', 3)} | |")
print(f"| query embed p50 / p95 (first query) | {f(e.get('query_p50_ms'), ' ms')} / {f(e.get('query_p95_ms'), ' ms')} ({f(e.get('first_query_ms'), ' ms')}) | p50 ≤ 15 ms |")
print(f"| model load (background) | {f(e.get('load_ms'), ' ms', 0)} | off the UI path |")
print(f"| peak RSS, embedding-only ingest of {e.get('ingest_passages', '?')} mixed chunks, 64-chunk cross-file calls, all cores | {f(e.get('ingest_peak_rss_mb'), ' MB', 0)} | ≤ 1.5 GB |")
print(f"| RSS after that ingest, once garbage is returned (as the engine does) | {f(e.get('ingest_idle_rss_mb'), ' MB', 0)} | |")
print(f"| peak RSS, batch 1 / 8 / 32 (one core) | {f(e.get('peak_mb_b1'), '', 0)} / {f(e.get('peak_mb_b8'), '', 0)} / {f(e.get('peak_mb_b32'), ' MB', 0)} | |")
print(f"| RSS idle after load + 200 queries (embedder only) | {f(e.get('idle_rss_mb_after_load'), ' MB', 0)} | ≤ 300 MB (app) |")
il = ing.get("BenchmarkIngestLibrary", {})
print(f"| ingest of generated 2,000-file library: files/s, chunks/s | {f(il.get('files/s'), '', 1)}, {f(il.get('chunks/s'), '', 1)} (peak RSS of the benchmark process {max_rss('ingest')}) | |")
for name, vals in ovh.items():
    shown = ", ".join(f"{v:.2f} {u}" for u, v in vals.items() if u not in ("ns/op", "B/op", "allocs/op"))
    print(f"| overhead before first token ({name.removeprefix('Benchmark')}) | {shown or 'n/a'} | |")
print(f"| CLI cold start to answer `doctor` (loads model, opens index) | {cli_ms} ms | |")
print(f"| app start to interactive, idle RSS | {app_line} | ≤ 300 MB idle |")

try:
    peer = json.loads(read("ortpeer.json") or "null")
except ValueError:
    peer = None
print("\n## Embedding engine vs ONNX Runtime (bench/cmd/ortpeer)\n")
if not peer:
    print("Not measured (see build/bench/ortpeer.log).")
elif "skipped" in peer:
    print(f"Not measured: {peer['skipped']}.")
else:
    print(f"The same model and the same token ids ({peer['passages']} passages of {peer['tokens_per_passage']} tokens): Footnote's "
          f"pure-Go engine ({peer.get('engine', 'as loaded')}) through EmbedPassages (tokenising included) with GOMAXPROCS=1 and one worker, ONNX Runtime "
          f"{peer.get('ort_version', '')} through onnxruntime-node with one intra- and one inter-op thread, padding each batch "
          f"to its longest row. Process CPU per passage, first batch excluded; {peer['runs']} interleaved runs; the speed-up "
          "is the median of the per-run ratios (ONNX Runtime CPU / Footnote CPU; above 1 means Footnote is faster). "
          "Vectors are compared passage by passage.\n")
    print("| batch | Footnote CPU-ms/passage | ONNX Runtime CPU-ms/passage | speed-up (per-run ratios) | lowest cosine |")
    print("|---:|---:|---:|---|---:|")
    for r in peer["batches"]:
        ratios = ", ".join(f"{x:.2f}" for x in r["ratios"])
        print(f"| {r['batch']} | {r['footnote_cpu_ms']:.1f} | {r['ort_cpu_ms']:.1f} | {r['speedup']:.2f}× ({ratios}) | {r['min_cosine']:.6f} |")

fmts = metrics(read("formats.txt"))
if fmts:
    print("\n## Ingest speed per format (backend/ingest BenchmarkLoadEveryFormat)\n")
    print("A generated file of each format (2,000 paragraphs, 5,000 table rows or 200 slides), parsed in the kept parser "
          "child as the app does and chunked with a word-count tokenizer: parse and chunk only. Embedding comes after, "
          "at the cost per chunk in the summary above, whatever the format.\n")
    print("| format | input MB/s | chunks | chunks/s |")
    print("|---|---:|---:|---:|")
    for name, vals in fmts.items():
        fmt = name.rsplit("/", 1)[-1]
        print(f"| {fmt} | {f(vals.get('MB/s'), '', 2)} | {f(vals.get('chunks'), '', 0)} | {f(vals.get('chunks/s'), '', 0)} |")

shapes = metrics(read("chunking.txt"))
if shapes:
    print("\n## Chunking CPU time per MB by shape of text (backend/ingest BenchmarkChunkShapes)\n")
    print("One text split into chunks with the embedding model's tokenizer: prose, a run without spaces (hex digits), "
          "prose on one line, and prose in one table cell. CPU seconds of the process per MB of text: chunking is "
          "linear when the figure stays flat as the text grows.\n")
    sizes, rows = [], {}
    for name, vals in shapes.items():
        shape, size = name.split("/")[-2:]
        if size not in sizes:
            sizes.append(size)
        rows.setdefault(shape, {})[size] = vals.get("cpu-s/MB")
    print("| shape | " + " | ".join(s.replace("_", " ") for s in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for shape, by_size in rows.items():
        print(f"| {shape} | " + " | ".join(f(by_size.get(s), "", 3) for s in sizes) + " |")

try:
    pdfc = json.loads(read("pdfcorpus.json") or "null")
except ValueError:
    pdfc = None
print("\n## PDF text against Poppler's pdftotext (bench/pdfcorpus)\n")
if not pdfc:
    print("Not run: set BENCH_PDF_DIR to a folder of public test PDFs (e.g. the PDFs of pdf.js's test/pdfs, Apache-2.0 "
          "repository; not committed here).")
else:
    b, fn = pdfc["builtin_only"], pdfc["footnote"]
    print(f"{pdfc['files']} PDFs. Files with text: at least 20 non-space characters. Word recall: the share of pdftotext's "
          "words (NFKC, lower-case, with multiplicity) found in Footnote's text, on the files both read. OCR is left out "
          "(it would add scanned files pdftotext cannot read).\n")
    print("Files ≥ 5% unreadable: files with text of which at least 5% of the characters are U+FFFD.\n")
    print("| reader | files with text | failed | read through pdftotext | both read | recall mean / median | files below 0.95 | files ≥ 5% unreadable | seconds |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    pt = pdfc['pdftotext']
    print(f"| pdftotext | {pt['files_with_text']} | | | | | | {pt.get('files_unreadable', '')} | {pt['seconds']:.0f} |")
    for label, side in (("Footnote, built-in readers alone (PDFium, then the Go reader)", b), ("Footnote as it ingests (pdftotext fallback)", fn)):
        print(f"| {label} | {side['files_with_text']} | {side['files_failed']} | {side.get('files_read_by_pdftotext', 0)} | "
              f"{side['files_both_read']} | {side['word_recall_mean']:.3f} / {side['word_recall_median']:.3f} | {side['files_below_0_95']} | "
              f"{side.get('files_unreadable', '')} | {side['seconds']:.0f} |")

ret = read("retrieval.txt").strip()
print("\n## Retrieval (bench/retrieval)\n")
print("```\n" + (ret or "not run") + "\n```")
big = read("retrieval-1m.txt").strip()
print("\n### 1M chunks\n")
if big:
    print("Binary storage only, on the index kept in BENCH_1M_DIR (`-sizes 1000000 -storage binary -keep -reuse`; built on first use).\n")
    print("```\n" + big + "\n```")
else:
    print("Not run: set BENCH_1M_DIR to a folder for the 1M-chunk index (about 3 GB; the first run builds it, which takes a while).")
print("\n## Retrieval quality on public QA data\n")
print("bench/qa: each set's paragraphs in a fresh index through the real store and embedding model; every question asked in "
      "each mode, beside plain FTS5 BM25 over the OR of the question's terms (same tokenizer; porter for reference) and "
      "stock sqlite-vec KNN over the same vectors. Gold is the paragraph the question was written on. Licences: bench/data/<set>/.\n")
print("Sets: squad (English, SQuAD v1.1 dev), korquad (Korean, KorQuAD 1.0 dev), identifiers (error codes, part numbers and "
      "function names in two manuals; the second written without running the ranking rule on it). Hybrid weighs each "
      "retriever's list per query by how clearly its best hits stand out and by how much of the query the embedding model "
      "can read (backend/search/fusion.go); fused ties break by evidence strength (backend/search/evidence.go). Paragraphs "
      "are indexed as bare text here (no title or heading context), like the baselines.\n")
qa_any = False
for fname, label in (("qa.json", model_note), ("qa-tiny.json", "generated tiny test model")):
    qa = read_json(fname)
    if not qa:
        continue
    qa_any = True
    print(f"\nModel: {label}\n")
    print("| set (paragraphs / questions) | mode | recall@1 | recall@5 | recall@10 | MRR@10 |")
    print("|---|---|---|---|---|---|")
    for st in qa["sets"]:
        for m in st["modes"]:
            print(f"| {st['set']} ({st['paragraphs']} / {st['questions']}) | {m['mode']} | {m['recall_at_1']:.3f} | "
                  f"{m['recall_at_5']:.3f} | {m['recall_at_10']:.3f} | {m['mrr_at_10']:.3f} |")
if not qa_any:
    print("Not run (see build/bench/qa.log).")
else:
    print("\nChecks, per model and set (recall@1 / MRR@10): hybrid against the better single retriever, "
          "lexical against plain BM25 (the better of unicode61 and porter) at recall@1/5/10.\n")
    print("| model | set | hybrid − best single (r@1, MRR) | lexical − BM25 (r@1, r@5, r@10) | identifier r@1 |")
    print("|---|---|---|---|---|")
    for fname, label in (("qa.json", "model in use"), ("qa-tiny.json", "tiny model")):
        qa = read_json(fname)
        for st in (qa or {}).get("sets", []):
            m = {x["mode"]: x for x in st["modes"]}
            if not all(k in m for k in ("lexical", "vector", "hybrid", "fts5-bm25-or", "fts5-porter-or")):
                continue
            d1 = m["hybrid"]["recall_at_1"] - max(m["lexical"]["recall_at_1"], m["vector"]["recall_at_1"])
            dm = m["hybrid"]["mrr_at_10"] - max(m["lexical"]["mrr_at_10"], m["vector"]["mrr_at_10"])
            bm = [max(m["fts5-bm25-or"][k], m["fts5-porter-or"][k]) for k in ("recall_at_1", "recall_at_5", "recall_at_10")]
            dl = [m["lexical"][k] - b for k, b in zip(("recall_at_1", "recall_at_5", "recall_at_10"), bm)]
            ok_h = "✓" if d1 >= -0.01 and dm >= -0.01 else "✗"
            ok_l = "✓" if all(x >= 0 for x in dl) else "✗"
            ident = f"{m['lexical']['recall_at_1']:.3f} / {m['hybrid']['recall_at_1']:.3f} (lexical / hybrid)" if st["set"] == "identifiers" else ""
            print(f"| {label} | {st['set']} | {ok_h} {d1:+.3f}, {dm:+.3f} | {ok_l} {dl[0]:+.3f}, {dl[1]:+.3f}, {dl[2]:+.3f} | {ident} |")
try:
    cl = json.loads(read("claims.json") or "null")
except ValueError:
    cl = None
print("\n## Claim verification on public claim sets (bench/cmd/claimbench)\n")
if not cl:
    print("Not run (see build/bench/claims.log).")
else:
    print(f"Verifier: {cl['verifier']}. Each claim is verified against the passage it cites, as an answer's claim is; "
          "labels are people's (bench/claims/README.md: sets, passages, licences). wice-dev is the set rules and thresholds "
          "were chosen on; wice-test is held out; factcheck-gpt and begin-wow were each run once, at the end of the work "
          "they measured. False alarm: supported claims called unsupported (marked under warn); strict: supported claims "
          "that do not hold (each turns a correct answer into \"Not answered\" under strict verification). False pass: "
          "not-supported claims called supported; strict: those that hold (the answer stays grounded). A claim holds when "
          "supported, or partly supported with every number, date, code, name and negation it states found "
          "(verify.Result.Holds). Baseline: the share of the claim's content words found in the passage, same run.\n")
    print("| set (supported / partial / not) | false alarm | false alarm, strict | supported → partial | false pass | false pass, strict | AUC supported vs rest (baseline) | AUC supported vs not (baseline) | CPU-ms a claim |")
    print("|---|---:|---:|---:|---:|---:|---|---|---:|")
    for st in cl["sets"]:
        g = st["gold"]
        print(f"| {st['set']} ({g.get('supported', 0)} / {g.get('partial', 0)} / {g.get('not_supported', 0)}) | "
              f"{st['false_alarm']:.3f} | {st.get('false_alarm_strict', 0):.3f} | {st['partial_supported']:.3f} | {st['false_pass']:.3f} | {st['false_pass_strict']:.3f} | "
              f"{st['auc']['supported_vs_rest']:.3f} ({st['baseline_auc']['supported_vs_rest']:.3f}) | "
              f"{st['auc']['supported_vs_not']:.3f} ({st['baseline_auc']['supported_vs_not']:.3f}) | {st['ms_per_claim']:.2f} |")
    print("\nConfusion (rows: gold label; columns: verdict supported / partial / unsupported), and false alarms by claim length:\n")
    print("| set | supported | partial | not supported | false alarm ≤ 15 / 16–25 / > 25 words |")
    print("|---|---|---|---|---|")
    for st in cl["sets"]:
        c = st["confusion"]
        row = lambda l: f"{c[l]['supported']} / {c[l]['partial']} / {c[l]['unsupported']}"
        lengths = " / ".join(f"{b['false_alarm']:.2f} ({b['supported']})" for b in st["by_length"])
        print(f"| {st['set']} | {row('supported')} | {row('partial')} | {row('not_supported')} | {lengths} |")
    print("\nAltered-claim probes: share that keeps an answer grounded (holds under strict verification). SQuAD probes: sentences of "
          "the SQuAD extract's paragraphs (bench/data/squad) citing their paragraph, and altered (bench/claims/probes.go). "
          "Labelled probes: the unsupported rows of backend/verify/testdata/claims.jsonl by category.\n")
    print("| probe | claims | grounded | supported |")
    print("|---|---:|---:|---:|")
    for p in cl["probes"]:
        print(f"| SQuAD {p['kind']} | {p['n']} | {p['grounded']:.3f} | {p['supported']:.3f} |")
    for p in cl["labelled_probes"]:
        print(f"| labelled {p['kind']} | {p['n']} | {p['grounded']:.3f} | {p['supported']:.3f} |")
print("\n## Answerability: which questions are refused (bench/answerability)\n")
print("Each set's library ingested through the engine with the model in use and the default settings; every question asked "
      "in hybrid and lexical mode. The readers are scripted models that see only the prompt: make eval's gold-blind "
      "extractive reader (answers when one sentence holds 0.6 of the question's weighted words) and a permissive one "
      "(0.25: answers whenever a passage overlaps). *Answered* = not refused and grounded; *correct* = also citing a gold "
      "passage; over-refusal = refused answerable / answerable, under-refusal = answered unanswerable / unanswerable. "
      "*Gold first* = the gold passage was the first hit. Refusals by gate: answerable (of them gold first) / unanswerable. "
      "Sets: sample (the sample library, its gold set and 50 unanswerable questions near its topics), squad2 (SQuAD 2.0 "
      "dev extract, bench/data/squad2).\n")
ans_any = False
for cover in ("0.6", "0.25"):
    rep = read_json(f"answerability-{cover}.json")
    if not rep:
        continue
    ans_any = True
    print(f"\nReader cover {cover}:\n")
    print("| set (questions) | mode | answerable: answered / correct | over-refusal | under-refusal | unanswerable answered | gold first | score gate | answerability gate | model refused |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    checks = []
    for st in rep["sets"]:
        modes = {m["mode"]: m for m in st["modes"]}
        for m in st["modes"]:
            by = m.get("refused_by", {})
            cell = lambda k: (f"{by[k]['answerable']} ({by[k]['answerable_gold_top']}) / {by[k]['unanswerable']}" if k in by else "0 / 0")
            print(f"| {st['set']} ({m['answerable']} + {m['unanswerable']}) | {m['mode']} | {m['answerable_answered_grounded']:.3f} / "
                  f"{m['answerable_correct']:.3f} | {m['over_refusal']:.3f} | {m['under_refusal']:.3f} | "
                  f"{m['unanswerable_answered_grounded']:.3f} | {m['gold_top']} | {cell('score_gate')} | {cell('unanswerable')} | {cell('model')} |")
        if "hybrid" in modes and "lexical" in modes:
            d = modes["hybrid"]["answerable_answered_grounded"] - modes["lexical"]["answerable_answered_grounded"]
            gold_score = sum(modes[k].get("refused_by", {}).get("score_gate", {}).get("answerable_gold_top", 0) for k in ("hybrid", "lexical"))
            checks.append(f"- {st['set']}: answerable answered, hybrid − lexical {d:+.3f} {'✓' if abs(d) <= 0.02 else '✗'} (within 0.02); "
                          f"answerable questions with their gold passage first refused by the score gate: {gold_score} {'✓' if gold_score == 0 else '✗'}")
    if checks:
        print("\nChecks:\n\n" + "\n".join(checks))
if not ans_any:
    print("Not run (see build/bench/answerability.log).")
# Claim verification figures are measured by hand (see that file) and kept as written.
claims_md = pathlib.Path(__file__).with_name("claim-verification.md")
if claims_md.exists():
    print("\n" + claims_md.read_text().rstrip())
print("\n## Raw outputs\n")
print("`build/bench/` holds embed.json/embed.log (per-run embedding figures), ingest.txt, overhead.txt, retrieval.txt, retrieval-1m.txt, qa.json, qa-tiny.json, claims.json/claims.log, answerability-0.6.json, answerability-0.25.json.")
