#!/usr/bin/env bash
# Fetches one HAProxy major from the Debian release that ships it — 3.0 from trixie, 2.6 from
# bookworm — with the libraries it loads, into an ignored folder, installing nothing system-wide:
# apt is pointed at a private source list through its options only, the packages are unpacked
# with `dpkg -x`, and a copy of the binary is patched to use the unpacked loader and libraries
# (see libs/haproxy-bin/README.md).
#
# Usage: bash scripts/debian-haproxy.sh <3.0|2.6> [--force] [--print-path] [--quiet]
#   --force       re-download and rebuild even when a binary is present
#   --print-path  print only the binary's path on stdout (for scripts)
#   --quiet       no progress messages
# Environment:
#   HAPTIC_HAPROXY3_DIR / HAPTIC_HAPROXY26_DIR  target folder (default: <repo>/.tools/haproxy3,
#                                               <repo>/.tools/haproxy26)
#   HAPTIC_HAPROXY3_SUITE                       Debian suite to take HAProxy 3 from (default: trixie)
#   HAPTIC_DEBIAN_MIRROR                        Debian archive URL (default: the machine's own source)
# Exit codes: 0 ready, 1 usage or local failure, 3 the archive could not be reached.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/debian-apt.sh
. "$REPO_ROOT/scripts/lib/debian-apt.sh"

MAJOR="${1:-}"
[ $# -gt 0 ] && shift
# Per major: the suite, the folder, and haproxy plus every library its binary loads
# (transitively), so that nothing resolves to the host's copies; the ld.so check below fails the
# build if a list ever falls short.
case "$MAJOR" in
  3.0)
    TOOLS="${HAPTIC_HAPROXY3_DIR:-$REPO_ROOT/.tools/haproxy3}"
    SUITE="${HAPTIC_HAPROXY3_SUITE:-trixie}"
    PACKAGES=(haproxy libc6 libssl3t64 liblua5.4-0 libpcre2-8-0 libcrypt1 libjemalloc2
      libopentracing-c-wrapper0t64 libopentracing1 libstdc++6 libgcc-s1 zlib1g libzstd1)
    ;;
  2.6)
    TOOLS="${HAPTIC_HAPROXY26_DIR:-$REPO_ROOT/.tools/haproxy26}"
    SUITE=bookworm
    PACKAGES=(haproxy libc6 libssl3 liblua5.3-0 libpcre2-8-0 libcrypt1 libsystemd0 libcap2
      libgcrypt20 libgpg-error0 liblzma5 libzstd1 liblz4-1 libopentracing-c-wrapper0
      libopentracing1 libstdc++6 libgcc-s1)
    ;;
  -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "debian-haproxy: the first argument is the major, 3.0 or 2.6 (try --help)" >&2; exit 1 ;;
esac
# The physical path: a checkout whose .tools is a link to another's shares one unpacked tree, and
# the binary's loader path must name it the same way from both (or each would re-patch it).
mkdir -p "$TOOLS" && TOOLS="$(cd "$TOOLS" && pwd -P)"
BIN="$TOOLS/bin/haproxy"
STAMP="$TOOLS/READY"

FORCE=0 PRINT_PATH=0 QUIET=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --print-path) PRINT_PATH=1 QUIET=1 ;;
    --quiet) QUIET=1 ;;
    *) echo "haproxy $MAJOR: unknown argument '$arg' (try --help)" >&2; exit 1 ;;
  esac
done

say() { [ "$QUIET" = 1 ] || echo "haproxy $MAJOR: $*" >&2; }
die() { echo "haproxy $MAJOR: $1" >&2; exit "${2:-1}"; }

# The stamp names everything the binary depends on: a moved checkout or a changed package list
# makes it stale. Comparing it is the whole fast path (no process is started).
expected_stamp() { printf 'suite=%s\nroot=%s\npackages=%s\n' "$SUITE" "$TOOLS/root" "${PACKAGES[*]}"; }

done_ready() {
  if [ "$PRINT_PATH" = 1 ]; then echo "$BIN"; else say "ready: $BIN"; fi
  exit 0
}

if [ "$FORCE" = 0 ] && [ -x "$BIN" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(expected_stamp)" ]; then
  done_ready
fi

mkdir -p "$TOOLS"
exec 9>"$TOOLS/.lock"
flock 9 # one build at a time (CI and parallel test runs may call this together)
if [ "$FORCE" = 0 ] && [ -x "$BIN" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(expected_stamp)" ]; then
  done_ready
fi

fetch_packages() {
  local apt="$TOOLS/apt" debs="$1" candidate
  apt_private "$apt" "$SUITE"
  candidate="$(apt_candidate haproxy)"
  case "$candidate" in "$MAJOR".*) ;; *) die "suite $SUITE offers haproxy '$candidate', not a $MAJOR" ;; esac
  say "downloading haproxy $candidate and ${#PACKAGES[@]} packages"
  rm -rf "$debs"
  apt_fetch "$apt" "$debs" "${PACKAGES[@]}"
}

# A patched copy: the suite's loader as interpreter and its libraries as DT_RPATH. --force-rpath
# matters: DT_RPATH (unlike DT_RUNPATH) is also searched for the libraries' own dependencies.
patch_binary() {
  local root="$1" libdir loader patchelf
  patchelf="$(bash "$REPO_ROOT/scripts/system-tools.sh" patchelf)" || die "patchelf is not available"
  libdir="$(dirname "$(find "$root/usr/lib" "$root/lib" -maxdepth 2 -name 'libc.so.6' -print -quit 2>/dev/null)")"
  loader="$(find "$libdir" -maxdepth 1 -name 'ld-linux*.so.*' -print -quit)"
  [ -f "$loader" ] || die "no loader found under $root"
  mkdir -p "$TOOLS/bin"
  cp "$root/usr/sbin/haproxy" "$BIN.tmp"
  # Older releases (bookworm) ship some libraries in /lib, others in /usr/lib: search both.
  local triplet rpath="" dir
  triplet="$(basename "$libdir")"
  for dir in "$root/lib/$triplet" "$root/usr/lib/$triplet"; do
    [ -d "$dir" ] && rpath="${rpath:+$rpath:}$dir"
  done
  "$patchelf" --force-rpath --set-interpreter "$loader" --set-rpath "$rpath" "$BIN.tmp"
  local stray
  stray="$("$loader" --list "$BIN.tmp" | grep '=>' | grep -v -F "$root/" || true)"
  [ -z "$stray" ] || die "libraries resolved outside $root (add their packages to the list):
$stray"
  # Output captured first: with pipefail, `| grep -q` could fail on the SIGPIPE it causes.
  local version
  version="$("$BIN.tmp" -v 2>&1 || true)"
  [[ "$version" == "HAProxy version $MAJOR."* ]] || die "the patched binary does not run: ${version:0:300}"
  mv "$BIN.tmp" "$BIN"
}

main() {
  local stamp_root=""
  [ -f "$STAMP" ] && stamp_root="$(cat "$STAMP")"
  rm -f "$STAMP"
  # Same packages, moved checkout: the unpacked tree is still good, only the paths need patching.
  if [ "$FORCE" = 1 ] || [ ! -x "$TOOLS/root/usr/sbin/haproxy" ] ||
    [ "$(echo "$stamp_root" | grep -v '^root=')" != "$(expected_stamp | grep -v '^root=')" ]; then
    fetch_packages "$TOOLS/debs"
    unpack "$TOOLS/debs" "$TOOLS/root"
    rm -rf "$TOOLS/apt" "$TOOLS/debs" # indexes and archives, not needed any more
  fi
  patch_binary "$TOOLS/root"
  expected_stamp >"$STAMP"
  local line
  line="$("$BIN" -v)"
  say "${line%%$'\n'*}"
  done_ready
}

main
