#!/usr/bin/env bash
# Browser end-to-end test: the dev-tagged app serves the UI and its Go
# bindings; playwright-core drives Debian's Chromium against it while a fake
# Ollama (replaying recorded protocol behaviour) streams the answer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
model=${MODEL_DIR:?MODEL_DIR must name an embedding model folder}
out=${E2E_OUT:-$root/build/e2e}
mkdir -p "$out"
home=$(mktemp -d)
pids=()
cleanup() {
  # Each helper runs in its own process group (setsid), so this also ends
  # what xvfb-run started under it.
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$home"
}
trap cleanup EXIT

# The sample library plus the documents in frontend/e2e/library, which the
# steps below rely on:
# - broken.pdf: a text file named like a PDF, which the library screen must
#   list as failed with its reason;
# - ferry-notes.txt: a planted link and raw HTML; the fake model repeats its
#   first sentence, so the answer must show it as text, keep its chip, and
#   open the link only after confirmation;
# - sharing.md: a passage the fake model misquotes ("20 MB" → "40 MB", see
#   -misquote), so the answer has an unsupported claim the UI must mark;
#   Korean and emoji before the sentence check that code-point offsets land
#   exactly;
# - office.md, garden.md: a question and two follow-ups about the main
#   office; the garden was "designed" too, so a follow-up searched for as
#   typed can land on it. The fake model misreads 1998 as 2001 (see
#   frontend/e2e/thread.mjs).
# Every line a step asserts must lie whole in one chunk under every
# embedding model (backend/engine's TestE2ELibraryLinesFitOneChunk).
library=$home/library
cp -r sample/library "$library"
cp frontend/e2e/library/* "$library/"
planted_url=$(grep -o 'https://[^)]*' frontend/e2e/library/ferry-notes.txt)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ollama_port=$(free_port)
app_port=$(free_port)

setsid build/bin/fake-ollama -addr "127.0.0.1:$ollama_port" -token-delay 60ms -model footnote-test -misquote '20 MB=40 MB' -misquote '1998=2001' >"$out/fake-ollama.log" 2>&1 &
pids+=($!)

# Strict verification: the misquote and thread steps check that an answer
# with an unsupported claim is refused as not grounded (the default, warn,
# shows it with the claim marked).
FOOTNOTE_HOME=$home OLLAMA_HOST=127.0.0.1:$ollama_port FOOTNOTE_LLM_MODEL=footnote-test FOOTNOTE_VERIFICATION=strict \
FOOTNOTE_EMBED_MODEL=$(cd "$model" && pwd) \
  setsid xvfb-run -a -s "-screen 0 1280x900x24" build/bin/footnote-dev -devserver "127.0.0.1:$app_port" -assetdir frontend/dist \
  >"$out/app.log" 2>&1 &
pids+=($!)

for i in $(seq 1 120); do
  curl -fsS -m 1 "http://127.0.0.1:$app_port/" >/dev/null 2>&1 && break
  sleep 0.5
  [ "$i" = 120 ] && { echo "e2e: the app did not start; log:"; tail -50 "$out/app.log"; exit 1; }
done

FOOTNOTE_URL=http://127.0.0.1:$app_port FOOTNOTE_LIBRARY=$library FOOTNOTE_BROKEN=broken.pdf E2E_OUT=$out \
FOOTNOTE_PLANTED_URL="$planted_url" FOOTNOTE_PLANTED_QUESTION='Where is the Zanzibar ferry timetable?' \
FOOTNOTE_MISQUOTE_QUESTION='What is the upload limit for a shared export?' FOOTNOTE_THREAD=1 \
  node frontend/e2e/app.e2e.mjs || { echo "e2e: failed; app log tail:"; tail -30 "$out/app.log"; exit 1; }
# An error in the app log is a real one (the one false alarm Wails logs at
# every start is dropped by app.WailsLogger).
if grep '^ERR' "$out/app.log"; then echo "e2e: the app logged the errors above"; exit 1; fi
