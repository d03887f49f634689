#!/usr/bin/env bash
# Smoke test of the production binary in a real WebKitGTK window under Xvfb:
# index the sample library, type a question with xdotool, let the fake Ollama
# stream the answer, take a screenshot and check it shows something.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
model=$(cd "${MODEL_DIR:?MODEL_DIR must name an embedding model folder}" && pwd)
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
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
setsid build/bin/fake-ollama -addr "127.0.0.1:$port" -token-delay 30ms -model footnote-test >"$out/smoke-ollama.log" 2>&1 &
pids+=($!)

display=:$((90 + RANDOM % 100))
setsid Xvfb "$display" -screen 0 1280x900x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
export DISPLAY=$display
for _ in $(seq 1 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done

FOOTNOTE_HOME=$home OLLAMA_HOST=127.0.0.1:$port FOOTNOTE_LLM_MODEL=footnote-test FOOTNOTE_EMBED_MODEL=$model \
FOOTNOTE_LIBRARY=$root/sample/library setsid build/bin/Footnote >"$out/smoke-app.log" 2>&1 &
pids+=($!)

# Wait for the window, then for the sample library to be indexed (the CLI reads the same index).
win=""
for _ in $(seq 1 100); do
  win=$(xdotool search --onlyvisible --name '^Footnote$' 2>/dev/null | head -1 || true)
  [ -n "$win" ] && break
  sleep 0.2
done
[ -n "$win" ] || { echo "smoke: no Footnote window appeared"; tail -20 "$out/smoke-app.log"; exit 1; }
for _ in $(seq 1 100); do
  FOOTNOTE_HOME=$home FOOTNOTE_EMBED_MODEL=$model build/bin/footnote search --mode lexical "install" 2>/dev/null | grep -q install && break
  sleep 0.3
done
sleep 1
# No window manager runs under Xvfb: click into the question box (bottom of
# the window) to give it keyboard focus, then type as a user would. Keys sent
# while the page is still settling after the startup ingest can miss the box
# (no window manager hands out focus), so an unanswered question is typed
# again, at most three times.
eval "$(xdotool getwindowgeometry --shell "$win")"
# The fake streams ~40 tokens at 30 ms each.
history() { FOOTNOTE_HOME=$home FOOTNOTE_EMBED_MODEL=$model build/bin/footnote history --json -n 1 2>/dev/null; }
answered=""
for attempt in 1 2 3; do
  xdotool mousemove --window "$win" $((WIDTH / 2)) $((HEIGHT - 40)) click 1
  sleep 0.3
  xdotool type --delay 15 "How do I install Footnote on Linux?"
  xdotool key Return
  for _ in $(seq 1 50); do
    history | grep -q '"grounded": true' && { answered=1; break; }
    sleep 0.2
  done
  [ -n "$answered" ] && break
  echo "smoke: no answer after typing the question (attempt $attempt); typing it again"
done
sleep 1
import -window root "$out/smoke.png"
history | grep -q '"grounded": true' || { echo "smoke: no grounded answer was stored for the typed question (see $out/smoke.png)"; exit 1; }
colors=$(convert "$out/smoke.png" -format '%k' info:)
echo "smoke: screenshot $out/smoke.png ($colors colours)"
[ "$colors" -gt 50 ] || { echo "smoke: the window looks blank"; exit 1; }
kill -0 "${pids[2]}" || { echo "smoke: the app exited"; tail -20 "$out/smoke-app.log"; exit 1; }
if grep '^ERR' "$out/smoke-app.log"; then echo "smoke: the app logged the errors above"; exit 1; fi
echo "smoke: PASS (window up, question typed in the window answered and stored as grounded)"
