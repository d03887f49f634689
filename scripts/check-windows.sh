#!/usr/bin/env bash
# Checks the Windows build, which cannot run here:
#   check-windows.sh SETUP.exe FOLDER [VERSION]
# FOLDER holds the Footnote.exe and bin/footnote.exe it packs; VERSION is the one
# they were stamped with (default: this checkout's, scripts/version.sh).
# - both programs are x86-64 PE files: the app a GUI program, the CLI a
#   console one, importing only DLLs every Windows has (no mingw runtime);
# - the app carries its icon, manifest and version (as scripts/version.sh says);
# - every file of the built frontend is embedded in the app, byte for byte;
# - the installer holds exactly these two programs, the WebView2 bootstrapper,
#   the notes and its own files, no two of whose names differ only in case
#   (Windows would write one over the other).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
usage="usage: check-windows.sh SETUP.exe FOLDER [VERSION]"
setup=${1:?$usage} dir=${2:?$usage}
version=${3:-$(scripts/version.sh)}
fail() { echo "check-windows: $*" >&2; exit 1; }
objdump=x86_64-w64-mingw32-objdump
sevenzip=$(command -v 7zz || command -v 7z) || fail "7-Zip is missing (apt install 7zip)"

# DLLs every Windows 10 has; Go loads the rest itself at run time.
system_dlls='^(KERNEL32|msvcrt|USER32|ADVAPI32|SHELL32|OLE32|WS2_32|WINMM|bcrypt|ntdll)\.dll$'
check_pe() { # FILE SUBSYSTEM
  local headers imports
  headers=$($objdump -p "$1")
  grep -q 'file format pei-x86-64' <<<"$headers" || fail "$1 is not an x86-64 PE file"
  grep -qE "^Subsystem[[:space:]]+[0-9a-f]+[[:space:]]+\($2\)" <<<"$headers" || fail "$1 is not a $2 program"
  imports=$(sed -n 's/^[[:space:]]*DLL Name: //p' <<<"$headers" | sort -u)
  [ -n "$imports" ] || fail "$1 imports no DLL at all"
  if grep -viE "$system_dlls" <<<"$imports"; then fail "$1 imports the DLLs above, which Windows does not ship"; fi
  echo "check-windows: $1: PE x86-64, $2, imports $(tr '\n' ' ' <<<"$imports")"
}
check_pe "$dir/Footnote.exe" "Windows GUI"
check_pe "$dir/bin/footnote.exe" "Windows CUI"

# Resources, read back from the linked program.
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
x86_64-w64-mingw32-windres --input-format=coff --output-format=rc -i "$dir/Footnote.exe" -o "$res/res.rc" 2>/dev/null ||
  fail "cannot read the resources of $dir/Footnote.exe"
grep -q 'VALUE "ProductVersion", "'"$version"'"' "$res/res.rc" || fail "Footnote.exe's version resource does not say $version"
grep -qE '^3 (ICON|14)' "$res/res.rc" || fail "Footnote.exe has no icon with id 3 (the one Wails loads)"
grep -qE '^1 (24|MANIFEST)' "$res/res.rc" || fail "Footnote.exe has no application manifest"
echo "check-windows: Footnote.exe: icon, manifest, version $version"

# The frontend, embedded with go:embed: each built file's bytes are in the program.
python3 - "$dir/Footnote.exe" frontend/dist <<'EOF' || fail "the frontend is not embedded in Footnote.exe"
import os, sys
exe = open(sys.argv[1], "rb").read()
files = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[2]) for f in fs if f != ".keep"]
missing = [f for f in files if open(f, "rb").read() not in exe]
if not files or missing:
    print("check-windows: not in the program:", missing or "no frontend files built", file=sys.stderr)
    sys.exit(1)
print(f"check-windows: Footnote.exe embeds all {len(files)} frontend files ({sum(os.path.getsize(f) for f in files)} bytes)")
EOF

# The installer's contents, listed and unpacked by 7-Zip.
listing=$("$sevenzip" l -ba -slt "$setup" | sed -n 's/^Path = //p' | tr '\\' '/' | sort)
want=$(LC_ALL=C sort <<'EOF'
$PLUGINSDIR/MicrosoftEdgeWebview2Setup.exe
$PLUGINSDIR/System.dll
$PLUGINSDIR/modern-wizard.bmp
$PLUGINSDIR/nsDialogs.dll
CHANGELOG.md
COPYRIGHT.txt
Footnote.exe
bin/footnote.exe
uninstall.exe
EOF
)
listing=$(LC_ALL=C sort <<<"$listing")
[ "$listing" = "$want" ] || fail "the installer holds other files than it should:
$(diff <(echo "$want") <(echo "$listing"))"
clash=$(tr '[:upper:]' '[:lower:]' <<<"$listing" | sort | uniq -d)
[ -z "$clash" ] || fail "the installer holds names that differ only in case: $clash"
"$sevenzip" x -y -o"$res/unpacked" "$setup" >/dev/null
cmp -s "$res/unpacked/Footnote.exe" "$dir/Footnote.exe" || fail "the installer's Footnote.exe is not the one built"
cmp -s "$res/unpacked/bin/footnote.exe" "$dir/bin/footnote.exe" || fail "the installer's bin/footnote.exe is not the one built"
# NSIS installers are 32-bit x86 programs; Windows x64 runs them.
$objdump -p "$setup" | grep -qE 'file format pei-(i386|x86-64)' || fail "$setup is not a Windows program"
echo "check-windows: installer holds: $(tr '\n' ' ' <<<"$listing")"
