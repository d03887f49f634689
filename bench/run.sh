#!/usr/bin/env bash
# Footnote's benchmark suite (`make bench`): runs every benchmark present,
# keeps their raw output in build/bench/, and writes bench/RESULTS.md with the
# machine described. MODEL_SRC picks the embedding model; by default the
# shared MiniLM-L6-shaped model next to the checkout when present, otherwise
# the project's generated tiny model (whose costs are not realistic).
# Knobs: BENCH_RUNS (repeats, default 3), BENCH_SIZES (retrieval corpus sizes),
# BENCH_1M_DIR (a folder to keep a 1M-chunk index in: adds the 1M retrieval
# run; the first run builds the index, later runs reuse it), BENCH_PDF_DIR (a
# folder of public test PDFs, e.g. pdf.js's test/pdfs: adds PDF text against
# pdftotext; nothing is downloaded).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.0} GOEXPERIMENT=${GOEXPERIMENT:-simd} CGO_ENABLED=1
GO=${GO:-go}
runs=${BENCH_RUNS:-3}
sizes=${BENCH_SIZES:-10000,100000}
out=build/bench
mkdir -p "$out"

model_note=""
if [ -z "${MODEL_SRC:-}" ] && [ -f ../shared/models/minilm-l6-random/model.onnx ]; then
  MODEL_SRC=$(cd ../shared/models/minilm-l6-random && pwd)
  model_note="shared minilm-l6-random (all-MiniLM-L6-v2 shape, random weights)"
elif [ -n "${MODEL_SRC:-}" ]; then
  MODEL_SRC=$(cd "$MODEL_SRC" && pwd)
  model_note="MODEL_SRC folder $(basename "$MODEL_SRC")"
else
  MODEL_SRC=$root/build/testmodel
  $GO run ./cmd/make-test-model "$MODEL_SRC" >/dev/null
  model_note="generated tiny test model (1 layer, 64-d): costs are NOT realistic"
fi
export MODEL_SRC
log() { echo "bench: $*" >&2; }
# step NAME: logs how long the previous step took, so slow steps are visible.
step_t=$(date +%s); step_name=""
step() {
  local now; now=$(date +%s)
  [ -n "$step_name" ] && echo "$step_name $((now - step_t)) s" >>"$out/timings.txt"
  step_name=$1; step_t=$now
}
: >"$out/timings.txt"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)

# 1. Embeddings: CPU-ms/passage, 1 vs all cores, query latency, memory.
log "embeddings ($runs runs)…"
step embeddings
$GO build -o "$out/embedbench" ./bench/cmd/embedbench
"$out/embedbench" -model "$MODEL_SRC" -runs "$runs" -n 32 >"$out/embed.json" 2>"$out/embed.log" || log "embedbench failed (see $out/embed.log)"

# 1b. The same model and token ids in ONNX Runtime (its Node binding ships
# the CPU library; npm is the only download), one thread each, interleaved.
log "embedding engine vs ONNX Runtime…"
step ort-peer
if command -v node >/dev/null && command -v npm >/dev/null && [ ! -d bench/ortpeer/node_modules/onnxruntime-node ]; then
  (cd bench/ortpeer && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund >"$root/$out/ortpeer-npm.log" 2>&1) \
    || log "npm install of onnxruntime-node failed (see $out/ortpeer-npm.log)"
fi
$GO run ./bench/cmd/ortpeer -model "$MODEL_SRC" -runs "$runs" -n 32 >"$out/ortpeer.json" 2>"$out/ortpeer.log" || log "ortpeer failed (see $out/ortpeer.log)"

# 2. Other helpers' Go benchmarks, when present.
gobench() { # name pattern package benchtime
  local name=$1 pat=$2 pkg=$3 bt=$4
  if ls "$pkg"/*_test.go >/dev/null 2>&1 && grep -qs "func Benchmark$pat" "$pkg"/*_test.go; then
    log "$name…"
    step "$name"
    /usr/bin/time -v -o "$out/$name.time" $GO test -tags sqlite_fts5 -run '^$' -bench "^Benchmark$pat\$" -benchtime "$bt" -count 1 -timeout 30m "./$pkg" >"$out/$name.txt" 2>&1 \
      || log "$name failed (see $out/$name.txt)"
  fi
}
gobench ingest IngestLibrary backend/engine 1x
gobench formats LoadEveryFormat backend/ingest 5x
gobench chunking ChunkShapes backend/ingest 1x
gobench overhead OverheadBeforeFirstToken backend/rag 20x

# 3. Retrieval at several corpus sizes.
if [ -f bench/retrieval/main.go ]; then
  log "retrieval at $sizes chunks…"
  step retrieval
  $GO run -tags sqlite_fts5 ./bench/retrieval -sizes "$sizes" >"$out/retrieval.txt" 2>&1 || log "retrieval failed (see $out/retrieval.txt)"
  rm -f "$out/retrieval-1m.txt"
  if [ -n "${BENCH_1M_DIR:-}" ]; then
    log "retrieval at 1M chunks (index kept in BENCH_1M_DIR)…"
    step retrieval-1m
    mkdir -p "$BENCH_1M_DIR"
    $GO run -tags sqlite_fts5 ./bench/retrieval -sizes 1000000 -storage binary -dir "$BENCH_1M_DIR" -keep -reuse \
      >"$out/retrieval-1m.txt" 2>&1 || log "1M retrieval failed (see $out/retrieval-1m.txt)"
  fi
fi

# 3b. Retrieval quality on public QA data (bench/data/<set>/extract.json):
# the model in use and the generated tiny model, every mode and the stock
# baselines in the same run.
if [ -f bench/qa/qa.go ]; then
  log "retrieval quality on public QA data…"
  step qa
  qa_sets=$(cd bench/data && ls -d */ 2>/dev/null | tr -d / | paste -sd, -)
  $GO run -tags sqlite_fts5 ./bench/qa -model "$MODEL_SRC" -sets "$qa_sets" >"$out/qa.json" 2>"$out/qa.log" || log "qa failed (see $out/qa.log)"
  tiny=$root/build/testmodel
  $GO run ./cmd/make-test-model "$tiny" >/dev/null && \
    $GO run -tags sqlite_fts5 ./bench/qa -model "$tiny" -sets "$qa_sets" >"$out/qa-tiny.json" 2>>"$out/qa.log" || log "qa (tiny model) failed (see $out/qa.log)"
fi

# 3b'. Claim verification on public, human-labelled claim sets
# (bench/claims/data/<set>/) and altered-claim probes, lexical verifier.
if [ -f bench/cmd/claimbench/main.go ]; then
  log "claim verification on public claim sets…"
  step claims
  $GO run ./bench/cmd/claimbench >"$out/claims.json" 2>"$out/claims.log" || log "claimbench failed (see $out/claims.log)"
fi

# 3b''. Which questions the answer pipeline refuses: the sample library's
# labelled questions (its gold set and the unanswerable questions near its
# topics) and the SQuAD 2.0 extract, in hybrid and lexical mode, answered by
# make eval's gold-blind extractive reader and by a permissive one that
# answers whenever a sentence holds a quarter of the question's weighted words.
if [ -f bench/answerability/main.go ]; then
  log "answerability on labelled and public QA data…"
  step answerability
  $GO build -tags sqlite_fts5 -o "$out/answerability" ./bench/answerability
  : >"$out/answerability.log"
  for cover in 0.6 0.25; do
    "$out/answerability" -model "$MODEL_SRC" -cover "$cover" -sets squad2 -library sample/library \
      -qasets sample/gold.json,cmd/footnote/testdata/unanswerable_near.json \
      >"$out/answerability-$cover.json" 2>>"$out/answerability.log" || log "answerability (reader cover $cover) failed (see $out/answerability.log)"
  done
fi

# 3c. PDF text against Poppler's pdftotext on a public corpus, when given.
rm -f "$out/pdfcorpus.json"
if [ -n "${BENCH_PDF_DIR:-}" ] && command -v pdftotext >/dev/null; then
  log "PDF text vs pdftotext on $(ls "$BENCH_PDF_DIR"/*.pdf 2>/dev/null | wc -l) files…"
  step pdf-corpus
  $GO run -tags sqlite_fts5 ./bench/pdfcorpus -dir "$BENCH_PDF_DIR" >"$out/pdfcorpus.json" 2>"$out/pdfcorpus.log" || log "pdfcorpus failed (see $out/pdfcorpus.log)"
fi

# 4. CLI start and idle memory: load the model and open the index, then stay idle.
log "CLI start and idle RSS…"
step cli
$GO build -tags sqlite_fts5 -o "$out/footnote" ./cmd/footnote
home=$(mktemp -d)
start=$(date +%s%N)
FOOTNOTE_HOME=$home FOOTNOTE_EMBED_MODEL=$MODEL_SRC "$out/footnote" doctor --json >"$out/doctor.json" 2>/dev/null
cli_start_ms=$(( ($(date +%s%N) - start) / 1000000 ))
rm -rf "$home"

# 5. App start to interactive and idle RSS (needs Xvfb and a built app).
app_line="not measured (needs Xvfb and build/bin/Footnote: run \`make app\` first)"
if [ -x build/bin/Footnote ] && command -v Xvfb >/dev/null; then
  log "app start and idle RSS…"
  step app
  app_line=$(bench/app-start.sh "$MODEL_SRC" 2>"$out/app.log" || echo "failed (see $out/app.log)")
fi

step done
elapsed=$(( $(date +%s) - t0 ))
load1=$(cut -d' ' -f1-3 /proc/loadavg)
python3 bench/report.py "$out" "$model_note" "$runs" "$cli_start_ms" "$app_line" "$load0" "$load1" "$elapsed" >bench/RESULTS.md
log "wrote bench/RESULTS.md in ${elapsed}s"
