#!/usr/bin/env bash
# Prints the copyright and licence notices of what the given Go binaries
# contain: Footnote, the Go runtime, every Go module linked in (read from the
# binaries' own build information) and the frontend's npm packages bundled
# into the app. The packages ship it as their copyright file.
#   notices.sh [--debian] BINARY...
# The Apache License 2.0 is quoted once at the end, or with --debian referred
# to in /usr/share/common-licenses, as Debian policy wants.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
debian=""
[ "${1:-}" = --debian ] && { debian=1; shift; }
[ $# -gt 0 ] || { echo "usage: notices.sh [--debian] BINARY..." >&2; exit 2; }

quote() { sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/  /' "$@"; }
apache=""
# licence_text DIR: every licence or notice file in a module's folder.
licence_text() {
  local dir=$1 f found=""
  for f in "$dir"/LICENSE* "$dir"/LICENCE* "$dir"/License* "$dir"/license* "$dir"/COPYING* "$dir"/NOTICE* "$dir"/UNLICENSE*; do
    [ -f "$f" ] || continue
    found=1
    if grep -q 'Apache License' "$f" && grep -q 'Version 2.0, January 2004' "$f"; then
      apache=$f
      if [ -n "$debian" ]; then
        echo " ${f##*/}: the Apache License 2.0, /usr/share/common-licenses/Apache-2.0"
      else
        echo " ${f##*/}: the Apache License 2.0, quoted at the end"
      fi
      continue
    fi
    echo " ${f##*/}:"
    quote "$f"
  done
  [ -n "$found" ] || echo " (no licence file in the module; see its source)"
}

cat <<'EOF'
Footnote

Copyright: the Footnote developers.
Footnote's own code has no licence chosen yet; until one is, all rights are
reserved by its developers.

The programs also contain the third-party code below, each under its own
licence, quoted from its source. SQLite, compiled in through
github.com/mattn/go-sqlite3, is in the public domain.

EOF

echo "== Go $(go env GOVERSION) (runtime and standard library)"
licence_text "$(go env GOROOT)"
echo

# Each linked module's folder in the module cache (capital letters are
# escaped as "!" + lower case there).
cache=$(go env GOMODCACHE)
deps=$(go version -m "$@" | awk '$1 == "dep" { print $2 "\t" $3 }' | LC_ALL=C sort -u)
[ -n "$deps" ] || { echo "notices.sh: no module list in $*" >&2; exit 1; }
while IFS=$'\t' read -r path ver; do
  dir=$cache/$(sed 's/[A-Z]/!\L&/g' <<<"$path")@$ver
  [ -d "$dir" ] || { echo "notices.sh: $path $ver is not in the module cache ($dir): run go mod download" >&2; exit 1; }
  echo "== $path $ver"
  licence_text "$dir"
  echo
done <<<"$deps"

if [ -d frontend/node_modules ]; then
  (cd frontend && npm ls --omit=dev --all --parseable 2>/dev/null) | tail -n +2 | LC_ALL=C sort -u |
    while read -r dir; do
      name=$(node -p "const p=require('$dir/package.json'); p.name+' '+p.version+' ('+(p.license||'no licence field')+')'")
      echo "== npm: $name"
      licence_text "$dir"
      echo
    done
fi

if [ -n "$apache" ] && [ -z "$debian" ]; then
  echo "== The Apache License 2.0"
  sed '/END OF TERMS AND CONDITIONS/q' "$apache" | quote
fi
