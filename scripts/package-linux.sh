#!/usr/bin/env bash
# Packages the binaries `make app cli` built (`make package`):
#   build/package/footnote_VERSION_amd64.deb     for Debian and Ubuntu
#   build/package/footnote-VERSION-linux-amd64.tar.gz   for other distributions
# and checks them: the binaries carry the version, the desktop entry
# validates, the .deb declares WebKitGTK 4.1 and GTK 3, and lintian reports
# nothing but the tags build/linux/lintian-overrides explains.
#
# No AppImage: building one needs appimagetool and its runtime, which no
# Debian package provides; the archive serves other distributions instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
app=build/bin/Footnote cli=build/bin/footnote out=build/package
version=$(scripts/version.sh)
debversion=$(scripts/version.sh deb)
maintainer=${DEB_MAINTAINER:-Footnote developers <maintainers@footnote-app.invalid>}
arch=$(dpkg --print-architecture)
# Dates inside the packages come from the commit, so a rebuild of the same
# commit gives the same files.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

fail() { echo "package: $*" >&2; exit 1; }
for b in "$app" "$cli"; do
  [ -x "$b" ] || fail "$b is missing: run make app cli (make package does)"
done
# Stale binaries from another commit would ship under the wrong version.
"$cli" --version | grep -qF "footnote $version (" || fail "$cli says '$("$cli" --version)', not $version: rebuild it (make cli)"
"$app" --version | grep -qF "footnote-desktop $version (" || fail "$app says '$("$app" --version)', not $version: rebuild it (make app)"

mkdir -p "$out"
rm -rf "$out/deb" "$out"/footnote_*.deb "$out"/footnote-*-linux-*.tar.gz
stage=$out/deb/footnote
install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/applications" "$stage/usr/share/doc/footnote" \
  "$stage/usr/share/man/man1" "$stage/usr/share/lintian/overrides"
install -m 755 "$cli" "$stage/usr/bin/footnote"
install -m 755 "$app" "$stage/usr/bin/footnote-desktop"
# The C compiler's version notes, which Debian's own builds strip too.
objcopy --remove-section=.comment "$stage/usr/bin/footnote"
objcopy --remove-section=.comment "$stage/usr/bin/footnote-desktop"
install -m 644 build/linux/footnote.desktop "$stage/usr/share/applications/footnote.desktop"
desktop-file-validate "$stage/usr/share/applications/footnote.desktop" || fail "the desktop entry does not validate"
for size in 48 64 128 256 512; do
  dir=$stage/usr/share/icons/hicolor/${size}x${size}/apps
  install -d "$dir"
  convert build/appicon.png -resize "${size}x${size}" -strip -define png:exclude-chunks=date,time "$dir/footnote.png"
done
install -m 644 build/linux/lintian-overrides "$stage/usr/share/lintian/overrides/footnote"

# Manual pages from the binaries' own --help and --version.
help2man --no-info --no-discard-stderr --section 1 --name "answer questions about your documents, offline, with citations" \
  --output "$stage/usr/share/man/man1/footnote.1" "$cli"
help2man --no-info --no-discard-stderr --section 1 --name "Footnote's desktop window" \
  --output "$stage/usr/share/man/man1/footnote-desktop.1" "$app"
gzip -9n "$stage"/usr/share/man/man1/*.1

# The release notes, and the Debian changelog entry dpkg and lintian expect.
gzip -9n <CHANGELOG.md >"$stage/usr/share/doc/footnote/CHANGELOG.md.gz"
{
  echo "footnote ($debversion) unstable; urgency=medium"
  echo
  echo "  * Footnote $version; changes in CHANGELOG.md.gz."
  echo
  echo " -- $maintainer  $(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$stage/usr/share/doc/footnote/changelog.gz"
scripts/notices.sh --debian "$cli" "$app" >"$stage/usr/share/doc/footnote/copyright"

# Library dependencies from the binaries themselves (dpkg-shlibdeps wants a
# debian/control beside it; it reads nothing else from it).
shlib=$(mktemp -d)
trap 'rm -rf "$shlib"' EXIT
mkdir "$shlib/debian"
printf 'Source: footnote\n\nPackage: footnote\nArchitecture: any\n' >"$shlib/debian/control"
abs_stage=$(cd "$stage" && pwd)
depends=$(cd "$shlib" && dpkg-shlibdeps -O -e"$abs_stage/usr/bin/footnote" -e"$abs_stage/usr/bin/footnote-desktop" 2>/dev/null |
  sed -n 's/^shlibs:Depends=//p')
for need in libwebkit2gtk-4.1-0 libgtk-3-0 libc6; do
  [[ $depends == *"$need "* || $depends == *"$need," || $depends == *"$need" ]] ||
    fail "the package would not depend on $need (dpkg-shlibdeps found: $depends)"
done

cat >"$stage/DEBIAN/control" <<EOF
Package: footnote
Version: $debversion
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Recommends: tesseract-ocr, tesseract-ocr-eng, poppler-utils
Suggests: tesseract-ocr-kor
Section: text
Priority: optional
Description: answers questions about your own documents, offline, with citations
 Footnote indexes folders of notes, manuals, papers and reports on this
 computer and answers questions about them with a local language model
 (Ollama, or any OpenAI-compatible server), footnoting every claim with the
 passage it came from. Nothing leaves the computer.
 .
 This package installs the desktop app (footnote-desktop, in the Office
 menu) and the command-line tool (footnote). The index and settings live in
 ~/.local/share/footnote; removing the package leaves them there.
 .
 Tesseract and Poppler read scanned PDF pages by OCR.
EOF
(cd "$stage" && find usr -type f -printf '%P\n' | LC_ALL=C sort | sed 's#^#usr/#' | xargs md5sum) >"$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 755 {} +
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb=$out/footnote_${debversion}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
# lintian, down to pedantic tags: every tag it shows is explained in the
# overrides file (listed as "O:" with the reason) or fails the build.
lintian --display-level '>=pedantic' --show-overrides --fail-on none "$deb" >"$out/lintian.txt" 2>&1 ||
  { cat "$out/lintian.txt"; fail "lintian could not check $deb"; }
if grep -q '^[EWIPX]: ' "$out/lintian.txt"; then
  cat "$out/lintian.txt"
  fail "lintian reports tags that build/linux/lintian-overrides does not explain"
fi

# The portable archive: both binaries, a launcher that checks the libraries
# first and can add a menu entry, the icon and the desktop entry.
dir=footnote-$version-linux-$arch
tarstage=$out/tar/$dir
rm -rf "$out/tar"
install -d "$tarstage"
install -m 755 "$stage/usr/bin/footnote" "$tarstage/footnote"
install -m 755 "$stage/usr/bin/footnote-desktop" "$tarstage/footnote-desktop"
install -m 755 build/linux/start-footnote "$tarstage/start-footnote"
install -m 644 build/appicon.png "$tarstage/footnote.png"
install -m 644 build/linux/footnote.desktop CHANGELOG.md "$tarstage/"
scripts/notices.sh "$cli" "$app" >"$tarstage/COPYRIGHT"
glibc=$(objdump -T "$app" "$cli" | sed -n 's/.*GLIBC_\([0-9.]*\).*/\1/p' | sort -V | tail -1)
sed -e "s/@VERSION@/$version/g" -e "s/@GLIBC@/$glibc/g" build/linux/README-portable.txt >"$tarstage/README.txt"
tarball=$out/$dir.tar.gz
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -C "$out/tar" -cf - "$dir" |
  gzip -9n >"$tarball"
rm -rf "$out/tar" "$out/deb"

lintian_tags=$(grep -c '^O: ' "$out/lintian.txt" || true)
echo "package: $deb ($(du -h "$deb" | cut -f1); lintian: no tags, $lintian_tags explained in build/linux/lintian-overrides)"
echo "package: $tarball ($(du -h "$tarball" | cut -f1); needs glibc $glibc or newer, WebKitGTK 4.1, GTK 3)"
