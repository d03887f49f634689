#!/usr/bin/env bash
# Prints the version the Makefile stamps into Footnote's binaries.
#
#   VERSION            the release being prepared (X.Y.Z); a release commit is
#                      tagged vX.Y.Z and adds its section to CHANGELOG.md.
#   at tag vX.Y.Z      "X.Y.Z" when VERSION says X.Y.Z and no file is modified.
#   anywhere else      "X.Y.Z-dev.N+gHASH[.dirty]": a pre-release of VERSION,
#                      N commits after the last v* tag (or since the first
#                      commit), HASH from `git describe --tags --always
#                      --dirty`, ".dirty" when tracked files are modified.
#   no git             "X.Y.Z-dev+unknown".
#
# With "deb" as its argument it prints the Debian form of the same version:
# "~" instead of the pre-release "-" (so 0.1.0~dev.5 sorts before 0.1.0) and
# "." for any other "-".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=$(tr -d ' \n' <"$root/VERSION")
[[ $base =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "version.sh: VERSION holds '$base', not X.Y.Z" >&2; exit 1; }

version() {
  local desc n hash dirty=""
  if ! desc=$(git -C "$root" describe --tags --always --dirty --long --match 'v[0-9]*' 2>/dev/null); then
    echo "$base-dev+unknown"
    return
  fi
  [[ $desc == *-dirty ]] && dirty=.dirty
  desc=${desc%-dirty}
  if [[ $desc =~ ^v([0-9.]+)-([0-9]+)-g([0-9a-f]+)$ ]]; then
    n=${BASH_REMATCH[2]} hash=${BASH_REMATCH[3]}
    if [ "${BASH_REMATCH[1]}" = "$base" ] && [ "$n" = 0 ] && [ -z "$dirty" ]; then
      echo "$base"
      return
    fi
  else
    n=$(git -C "$root" rev-list --count HEAD) hash=$desc # no tag yet: describe gave the hash
  fi
  echo "$base-dev.$n+g$hash$dirty"
}

v=$(version)
case ${1:-} in
  "") echo "$v" ;;
  deb) v=${v/-dev/\~dev}; echo "${v//-/.}" ;;
  *) echo "usage: version.sh [deb]" >&2; exit 2 ;;
esac
