#!/usr/bin/env bash
# Smoke test of the production binary in a real WebKitGTK window under Xvfb:
# index the sample library, type a question with xdotool, let the fake Ollama
# stream the answer, take a screenshot and check it shows something.
#
# By default it runs build/bin/Footnote with a throw-away data folder. The
# install test runs the installed app through it:
#   SMOKE_APP   the app to start (a path, or a command found on PATH)
#   SMOKE_CLI   the CLI that reads the same index (default build/bin/footnote)
#   SMOKE_HOME  a home folder: the app and CLI run with HOME set to it and
#               their default data folder ($HOME/.local/share/footnote),
#               which is kept afterwards
#   SMOKE_NAME  names the screenshot and logs in E2E_OUT (default smoke)
#   SMOKE_DESKTOP  a desktop entry: the app is started from it (gio launch),
#               as a desktop's menu starts it, instead of from SMOKE_APP
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
model=$(cd "${MODEL_DIR:?MODEL_DIR must name an embedding model folder}" && pwd)
out=${E2E_OUT:-$root/build/e2e}
mkdir -p "$out"
app=${SMOKE_APP:-build/bin/Footnote}
cli=${SMOKE_CLI:-build/bin/footnote}
name=${SMOKE_NAME:-smoke}
home=""
if [ -n "${SMOKE_HOME:-}" ]; then
  data=(env -u FOOTNOTE_HOME -u XDG_DATA_HOME HOME="$SMOKE_HOME")
else
  home=$(mktemp -d)
  data=(env FOOTNOTE_HOME="$home")
fi
pids=()
app_pid=""
cleanup() {
  # Each helper runs in its own process group (setsid), so this also ends
  # what xvfb-run started under it; the app, when a desktop entry started
  # it, by the process id its window names too.
  [ -z "$app_pid" ] || kill "$app_pid" 2>/dev/null || true
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -z "$home" ] || rm -rf "$home"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
setsid build/bin/fake-ollama -addr "127.0.0.1:$port" -token-delay 30ms -model footnote-test >"$out/$name-ollama.log" 2>&1 &
pids+=($!)

display=:$((90 + RANDOM % 100))
setsid Xvfb "$display" -screen 0 1280x900x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
export DISPLAY=$display
for _ in $(seq 1 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done

start=("$app")
# gio runs the entry's Exec line with this environment and the app keeps
# gio's output and process group, then gio exits.
[ -z "${SMOKE_DESKTOP:-}" ] || start=(gio launch "$SMOKE_DESKTOP")
"${data[@]}" OLLAMA_HOST=127.0.0.1:$port FOOTNOTE_LLM_MODEL=footnote-test FOOTNOTE_EMBED_MODEL=$model \
  FOOTNOTE_LIBRARY=$root/sample/library setsid "${start[@]}" >"$out/$name-app.log" 2>&1 &
pids+=($!)

# Wait for the window, then for the sample library to be indexed (the CLI reads the same index).
win=""
for _ in $(seq 1 100); do
  win=$(xdotool search --onlyvisible --name '^Footnote$' 2>/dev/null | head -1 || true)
  [ -n "$win" ] && break
  sleep 0.2
done
[ -n "$win" ] || { echo "smoke: no Footnote window appeared"; tail -20 "$out/$name-app.log"; exit 1; }
app_pid=$(xdotool getwindowpid "$win" 2>/dev/null || true)
[ -n "$app_pid" ] || app_pid=${pids[2]}
[ -z "${SMOKE_DESKTOP:-}" ] || echo "smoke: $SMOKE_DESKTOP started $(readlink -f "/proc/$app_pid/exe") (pid $app_pid)"
for _ in $(seq 1 100); do
  "${data[@]}" FOOTNOTE_EMBED_MODEL=$model "$cli" search --mode lexical "install" 2>/dev/null | grep -q install && break
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
history() { "${data[@]}" FOOTNOTE_EMBED_MODEL=$model "$cli" history --json -n 1 2>/dev/null; }
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
import -window root "$out/$name.png"
history | grep -q '"grounded": true' || { echo "smoke: no grounded answer was stored for the typed question (see $out/$name.png)"; exit 1; }
colors=$(convert "$out/$name.png" -format '%k' info:)
echo "smoke: screenshot $out/$name.png ($colors colours)"
[ "$colors" -gt 50 ] || { echo "smoke: the window looks blank"; exit 1; }
kill -0 "$app_pid" || { echo "smoke: the app exited"; tail -20 "$out/$name-app.log"; exit 1; }
if grep '^ERR' "$out/$name-app.log"; then echo "smoke: the app logged the errors above"; exit 1; fi
echo "smoke: PASS (window up, question typed in the window answered and stored as grounded)"
