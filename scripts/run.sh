#!/usr/bin/env bash
# Launches the Footnote desktop app with the sample library (used by `make run`).
set -uo pipefail
app=${1:?usage: run.sh APP_BINARY}
root=$(cd "$(dirname "$0")/.." && pwd)
export FOOTNOTE_LIBRARY=${FOOTNOTE_LIBRARY:-$root/sample/library}
[ -n "${MODEL_SRC:-}" ] && export FOOTNOTE_EMBED_MODEL=${FOOTNOTE_EMBED_MODEL:-$MODEL_SRC}

if [ -z "${FOOTNOTE_EMBED_MODEL:-}" ]; then
  # First run: fetch the embedding model unless it is already in the data folder.
  make -s -C "$root" cli >/dev/null
  if ! "$root/build/bin/footnote" doctor 2>/dev/null | grep -q '^ok   embedding model'; then
    echo "Downloading the embedding model (all-MiniLM-L6-v2, ~90 MB)…"
    "$root/build/bin/footnote" model download ||
      echo "Could not download the embedding model: Footnote starts anyway, indexes the sample library and searches it by words. The window offers the download again (or set FOOTNOTE_EMBED_MODEL to a folder with model.onnx and tokenizer.json); the index then gets vectors without reading the files again."
  fi
fi

host=${OLLAMA_HOST:-127.0.0.1:11434}
case $host in http*) url=$host ;; *) url=http://$host ;; esac
if ! curl -fsS -m 2 "$url/api/version" >/dev/null 2>&1; then
  echo "Ollama is not running at $url. Start it with 'ollama serve' (and 'ollama pull ${FOOTNOTE_LLM_MODEL:-llama3.2:3b}') to get answers; search works without it."
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "No display found: running under Xvfb (install a desktop session to see the window)."
  exec xvfb-run -a -s "-screen 0 1280x900x24" "$app"
fi
exec "$app"
