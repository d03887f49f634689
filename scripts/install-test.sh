#!/usr/bin/env bash
# Install test (`make install-test`, run by CI after `make test`): installs
# the .deb `make package` built, as a user would, and checks that
# - the installed CLI and app carry this build's version;
# - the desktop entry validates and starts the installed app: the window
#   smoke test (scripts/smoke.sh) launches it from the entry, types a question
#   into it and gets it answered and stored as grounded, in the user's default
#   data folder (~/.local/share/footnote);
# - the installed `footnote doctor` passes and names the build, and the stored
#   answer and the audit log name it too;
# - removing the package leaves the user's data folder as it was and nothing
#   of the package under /usr.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
model=$(cd "${MODEL_DIR:?MODEL_DIR must name an embedding model folder}" && pwd)
out=${E2E_OUT:-$root/build/e2e}
mkdir -p "$out"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
fail() { echo "install-test: $*" >&2; exit 1; }
say() { echo "install-test: $*"; }

debs=(build/package/footnote_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "want one build/package/footnote_*.deb (make package), found: ${debs[*]}"
deb=${debs[0]}
version=$(scripts/version.sh)
debversion=$(dpkg-deb -f "$deb" Version)
installed() { dpkg-query -W -f='${Status}' footnote 2>/dev/null | grep -q 'install ok installed'; }
installed && fail "the footnote package is installed already; this test installs and removes it: remove it first (sudo dpkg -r footnote)"

home=$(mktemp -d)
usr_before=$(mktemp) usr_after=$(mktemp) data_before=$(mktemp) data_after=$(mktemp)
pids=()
we_installed=""
cleanup() {
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # A failed run still leaves the machine as it found it.
  if [ -n "$we_installed" ] && installed; then $sudo dpkg -r footnote >/dev/null 2>&1 || true; fi
  rm -rf "$home" "$usr_before" "$usr_after" "$data_before" "$data_after"
}
trap cleanup EXIT

# /usr before, as a list of paths (caches that triggers rewrite are not the package's).
snapshot_usr() { find /usr -path /usr/local -prune -o -print | grep -vE '/(icon-theme|mimeinfo)\.cache$' | LC_ALL=C sort >"$1"; }
snapshot_usr "$usr_before"

say "installing $deb"
we_installed=1
if ! $sudo dpkg -i "$deb"; then
  say "dpkg could not configure it alone; letting apt install the dependencies"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq
fi
installed || fail "the package is not installed after dpkg -i and apt-get -f install"
[ "$(dpkg-query -W -f='${Version}' footnote)" = "$debversion" ] || fail "installed version is not $debversion"
mapfile -t files < <(dpkg -L footnote | while read -r f; do [ -d "$f" ] || echo "$f"; done)
say "installed ${#files[@]} files: $(printf '%s ' "${files[@]}")"

# The installed programs, found on PATH as a user's shell finds them.
[ "$(command -v footnote)" = /usr/bin/footnote ] || fail "footnote on PATH is $(command -v footnote), not /usr/bin/footnote"
footnote --version | tee "$out/install-version.txt"
grep -qx "footnote $version (.*)" "$out/install-version.txt" || fail "installed footnote --version does not say $version"
footnote-desktop --version | grep -q "^footnote-desktop $version (" || fail "installed footnote-desktop --version does not say $version"
man -w footnote >/dev/null 2>&1 || [ -f /usr/share/man/man1/footnote.1.gz ] || fail "no manual page for footnote"

# The desktop entry: valid, with an icon, and its command starts the app.
entry=/usr/share/applications/footnote.desktop
desktop-file-validate "$entry" || fail "$entry does not validate"
[ -f /usr/share/icons/hicolor/512x512/apps/footnote.png ] || fail "no icon installed"
exec_cmd=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$entry")
app=$(command -v "$exec_cmd") || fail "the desktop entry runs '$exec_cmd', which is not on PATH"
[ "$app" = /usr/bin/footnote-desktop ] || fail "the desktop entry runs $app, not the installed /usr/bin/footnote-desktop"

# The window smoke test on the installed app, started from its desktop entry
# (gio launch, as a desktop's menu does) by a user with a fresh home: the data
# goes to the default XDG folder and stays there.
data=$home/.local/share/footnote
SMOKE_DESKTOP=$entry SMOKE_CLI=/usr/bin/footnote SMOKE_HOME=$home SMOKE_NAME=install MODEL_DIR=$model scripts/smoke.sh |
  tee "$out/install-smoke.txt"
grep -q "^smoke: $entry started $app " "$out/install-smoke.txt" || fail "the desktop entry did not start $app"
[ -f "$data/footnote.db" ] || fail "the installed app did not keep its index in $data"

# doctor against a model server, as the user; it names the build first.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
setsid build/bin/fake-ollama -addr "127.0.0.1:$port" -model footnote-test >"$out/install-ollama.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do curl -fsS -m 1 "http://127.0.0.1:$port/api/version" >/dev/null 2>&1 && break; sleep 0.1; done
as_user=(env -u FOOTNOTE_HOME -u XDG_DATA_HOME HOME="$home" FOOTNOTE_EMBED_MODEL="$model" OLLAMA_HOST="127.0.0.1:$port" FOOTNOTE_LLM_MODEL=footnote-test)
"${as_user[@]}" footnote doctor | tee "$out/install-doctor.txt" || fail "the installed footnote doctor failed"
head -1 "$out/install-doctor.txt" | grep -q "^ok   Footnote .* $version (" || fail "doctor's first line does not name $version"
grep -q "^ok   data folder .*$data\$" "$out/install-doctor.txt" || fail "doctor does not use the default data folder $data"
"${as_user[@]}" footnote history --json -n 1 | grep -q "\"footnote_version\": \"$version\"" ||
  fail "the stored answer does not name the build $version"
grep -q " version=$version " "$data/audit.log" || fail "the audit log does not name the build $version"
kill -- "-${pids[0]}" 2>/dev/null || true
wait 2>/dev/null || true
pids=()

# Remove the package: the user's data stays as it was, and /usr is as before.
(cd "$data" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$data_before"
say "removing the package"
$sudo dpkg -r footnote
installed && fail "the package is still installed after dpkg -r"
for f in "${files[@]}"; do [ ! -e "$f" ] || fail "$f is left after removing the package"; done
snapshot_usr "$usr_after"
if ! diff "$usr_before" "$usr_after"; then fail "/usr differs from before the install (above)"; fi
(cd "$data" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$data_after"
cmp -s "$data_before" "$data_after" || { diff "$data_before" "$data_after" || true; fail "removing the package changed the user's data in $data"; }
say "PASS (installed $debversion, started from its desktop entry, a typed question answered, doctor ok, removed: $(wc -l <"$data_after") data files kept, /usr as before)"
