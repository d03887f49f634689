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

# The sample library plus a file that cannot be indexed, so the library
# screen must list it as failed with its reason.
library=$home/library
cp -r sample/library "$library"
printf '# Not a PDF\n\nA text file named like a PDF.\n' >"$library/broken.pdf"
# A document with a planted link and raw HTML: the fake model repeats its
# first sentence, so the answer must show it as text, keep its chip, and
# open the link only after confirmation.
planted_url='https://ferry.example.com/timetable?session=SECRET-TOKEN&user=me'
cat >"$library/ferry-notes.txt" <<EOF
The Zanzibar ferry timetable is at [the ferry site]($planted_url) and <img src=x onerror=window.__pwned=1> marks it, while </script > must not hide the words after it.
Boats leave twice a day from the harbour.
EOF

# A passage the fake model misquotes ("20 MB" → "40 MB", see -misquote), so
# the answer about it has an unsupported claim the UI must mark; Korean and
# emoji before the sentence check that code-point offsets land exactly.
cat >"$library/sharing.md" <<'EOF'
# 공유 — Sharing exports 🗂️

Shared exports 📎 have an upload limit of 20 MB per file. Larger exports are split into parts, and each part keeps its footnotes.
EOF

# A conversation: a question and two follow-ups about the main office; the
# garden was "designed" too, so a follow-up searched for as typed can land
# on it. The fake model misreads 1998 as 2001 (see frontend/e2e/thread.mjs).
cat >"$library/office.md" <<'EOF'
# Main office

The main office opened in 1998 on Harbour Street.

## Architect

The main office was designed by the architect Mara Lind.
EOF
cat >"$library/garden.md" <<'EOF'
# Garden

The community garden was designed by volunteers in 2010.
EOF

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ollama_port=$(free_port)
app_port=$(free_port)

setsid build/bin/fake-ollama -addr "127.0.0.1:$ollama_port" -token-delay 60ms -model footnote-test -misquote '20 MB=40 MB' -misquote '1998=2001' >"$out/fake-ollama.log" 2>&1 &
pids+=($!)

FOOTNOTE_HOME=$home OLLAMA_HOST=127.0.0.1:$ollama_port FOOTNOTE_LLM_MODEL=footnote-test \
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
