#!/usr/bin/env bash
# Builds Footnote for Windows x64 on Debian (`make package-windows`):
# cross-compiles the desktop app and the CLI with mingw-w64 (cgo, for
# SQLite), gives the app its icon, manifest and version resources, wraps both
# in an NSIS installer, and checks the result (scripts/check-windows.sh).
# Output: build/package/Footnote-VERSION-windows-amd64-setup.exe
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
: "${GO_LDFLAGS:?run this through make package-windows, which stamps the version}"
GO=${GO:-go}
version=$(scripts/version.sh)
numeric=$(tr -d ' \n' <VERSION) # X.Y.Z: Windows version fields are numbers only
out=build/package work=build/package/windows
[ -f frontend/dist/index.html ] || { echo "package-windows: frontend/dist is empty: build the frontend first (make frontend)" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/include" "$work/bin"
rm -f "$out"/Footnote-*-windows-*-setup.exe

# sqlite-vec's cgo code includes "sqlite3.h", which Debian has for Linux
# only: give it the header of the SQLite that go-sqlite3 compiles in.
sqlite_dir=$($GO list -m -f '{{.Dir}}' github.com/mattn/go-sqlite3)
echo '#include "sqlite3-binding.h"' >"$work/include/sqlite3.h"

# Resources: icon, manifest, version. The .syso must sit beside main.go for
# the linker to take it; it is removed again when this script ends.
convert build/appicon.png -define icon:auto-resize=256,128,64,48,32,16 "$work/footnote.ico"
sed "s/@NUMVERSION@/$numeric.0/" build/windows/footnote.exe.manifest >"$work/footnote.exe.manifest"
sed -e "s/@VERSION@/$version/g" -e "s/@COMMAVERSION@/${numeric//./,},0/g" build/windows/footnote.rc >"$work/footnote.rc"
syso=$root/rsrc_windows_amd64.syso
trap 'rm -f "$syso"' EXIT
x86_64-w64-mingw32-windres --input-format=rc --output-format=coff -I "$work" -i "$work/footnote.rc" -o "$syso"

export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc
export CGO_CFLAGS="-O2 -I$root/$work/include -I$sqlite_dir -DSQLITE_VEC_STATIC"
# The Wails runtime check stays its default ("download"): should WebView2
# be missing when the app starts after all, it offers to fetch Microsoft's
# bootstrapper; the installer below normally installed the runtime already.
$GO build -trimpath -tags desktop,production,sqlite_fts5 -ldflags "$GO_LDFLAGS -H windowsgui" -o "$work/Footnote.exe" .
rm -f "$syso"
# The CLI is built into bin/ as it is installed: NSIS matches File names
# without regard to case, as Windows does, so beside Footnote.exe it would
# be packed twice.
$GO build -trimpath -tags sqlite_fts5 -ldflags "$GO_LDFLAGS" -o "$work/bin/footnote.exe" ./cmd/footnote

# Microsoft's WebView2 bootstrapper, as the Wails Go module ships it (the
# file Wails' own NSIS installer embeds); nothing is downloaded here.
wails_dir=$($GO list -m -f '{{.Dir}}' github.com/wailsapp/wails/v2)
cp "$wails_dir/internal/webview2runtime/MicrosoftEdgeWebview2Setup.exe" "$work/"
cp CHANGELOG.md "$work/"
GOOS= GOARCH= scripts/notices.sh "$work/Footnote.exe" "$work/bin/footnote.exe" | sed 's/$/\r/' >"$work/COPYRIGHT.txt"

setup=$out/Footnote-$version-windows-amd64-setup.exe
makensis -V2 -NOCD -DVERSION="$version" -DNUMVERSION="$numeric.0" -DWORK="$work" -DOUTFILE="$setup" build/windows/footnote.nsi
scripts/check-windows.sh "$setup" "$work" "$version"
echo "package-windows: $setup ($(du -h "$setup" | cut -f1))"
