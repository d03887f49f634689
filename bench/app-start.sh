#!/usr/bin/env bash
# Starts build/bin/Footnote (or the app named by the second argument) under
# Xvfb with an empty data folder and prints one line: time to a visible
# window, and resident memory once idle with the model loaded.
set -euo pipefail
model=${1:?model folder}
bin=${2:-build/bin/Footnote}
home=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$home"; }
trap cleanup EXIT
display=:$((200 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x900x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
export DISPLAY=$display
for _ in $(seq 1 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
start=$(date +%s%N)
FOOTNOTE_HOME=$home FOOTNOTE_EMBED_MODEL=$model OLLAMA_HOST=127.0.0.1:9 "$bin" >/dev/null 2>&1 &
app=$!
pids+=($app)
win=""
for _ in $(seq 1 300); do
  win=$(xdotool search --onlyvisible --name '^Footnote$' 2>/dev/null | head -1 || true)
  [ -n "$win" ] && break
  sleep 0.05
done
[ -n "$win" ] || { echo "no window within 15 s"; exit 1; }
window_ms=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 15 # model load finishes in the background; then the app is idle
# The index file is created once the model has loaded: idle must mean ready.
[ -e "$home/footnote.db" ] || { echo "model not loaded within 15 s"; exit 1; }
rss() { awk -v k="$1" '$1==k {printf "%.0f", $2/1024}' "/proc/$app/status"; }
# Anonymous memory is the Go heap and native allocations; the rest of the
# RSS is mapped code and data of the binary and the GTK/WebKit libraries.
anon=$(awk '$1=="Anonymous:" {printf "%.0f", $2/1024}' "/proc/$app/smaps_rollup")
# WebKit renders in child processes; count them too.
kids=0
for c in $(pgrep -P "$app" || true); do
  kids=$((kids + $(awk '$1=="VmRSS:" {print int($2/1024)}' "/proc/$c/status" 2>/dev/null || echo 0)))
done
echo "window visible after ${window_ms} ms; idle RSS $(rss VmRSS:) MB (Go process, ${anon} MB anonymous, peak $(rss VmHWM:) MB) + ${kids} MB in WebKit child processes"
