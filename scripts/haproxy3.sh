#!/usr/bin/env bash
# Fetches HAProxy 3.0 and the libraries it needs from Debian's next release (trixie) into an
# ignored folder and makes a runnable binary beside the system's HAProxy 2.6, installing nothing
# system-wide: apt is pointed at a private source list through its options only, the packages
# are unpacked with `dpkg -x`, and a copy of the binary is patched to use the private loader and
# libraries (see docs in libs/haproxy-bin/README.md).
#
# Usage: bash scripts/haproxy3.sh [--force] [--print-path] [--quiet]
#   --force       re-download and rebuild even when a binary is present
#   --print-path  print only the binary's path on stdout (for scripts)
#   --quiet       no progress messages
# Environment:
#   HAPTIC_HAPROXY3_DIR    target folder (default: <repo>/.tools/haproxy3)
#   HAPTIC_DEBIAN_MIRROR   Debian archive URL (default: the machine's own Debian source)
#   HAPTIC_HAPROXY3_SUITE  Debian suite to take HAProxy from (default: trixie)
# Exit codes: 0 ready, 1 usage or local failure, 3 the archive could not be reached.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${HAPTIC_HAPROXY3_DIR:-$REPO_ROOT/.tools/haproxy3}"
SUITE="${HAPTIC_HAPROXY3_SUITE:-trixie}"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# haproxy plus every library its binary loads (transitively), so that nothing resolves to the
# host's older copies; the ld.so check below fails the build if this list ever falls short.
PACKAGES=(haproxy libc6 libssl3t64 liblua5.4-0 libpcre2-8-0 libcrypt1 libjemalloc2
  libopentracing-c-wrapper0t64 libopentracing1 libstdc++6 libgcc-s1 zlib1g libzstd1)
BIN="$TOOLS/bin/haproxy"
STAMP="$TOOLS/READY"

FORCE=0 PRINT_PATH=0 QUIET=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --print-path) PRINT_PATH=1 QUIET=1 ;;
    --quiet) QUIET=1 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "haproxy3: unknown argument '$arg' (try --help)" >&2; exit 1 ;;
  esac
done

say() { [ "$QUIET" = 1 ] || echo "haproxy3: $*" >&2; }
die() { echo "haproxy3: $1" >&2; exit "${2:-1}"; }

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

# The machine's own Debian archive: the source serving the host's release (e.g. bookworm), so no
# host name is hard-coded. --no-release-info lists sources even before any `apt-get update`.
find_mirror() {
  if [ -n "${HAPTIC_DEBIAN_MIRROR:-}" ]; then echo "$HAPTIC_DEBIAN_MIRROR"; return; fi
  local codename
  codename="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")"
  apt-get indextargets --no-release-info --format '$(REPO_URI)|$(RELEASE)|$(IDENTIFIER)' 2>/dev/null |
    awk -F'|' -v c="$codename" '!found && $2 == c && $3 == "Packages" { print $1; found = 1 }'
}

ensure_patchelf() {
  command -v patchelf >/dev/null && return
  [ "$(id -u)" = 0 ] || die "patchelf is missing: install it (apt-get install -y patchelf) and re-run"
  say "installing patchelf"
  apt-get install -y -qq patchelf >/dev/null 2>&1 || {
    apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq patchelf >/dev/null
  } || die "could not install patchelf with apt-get" 3
}

APT_OPTS=()
fetch_packages() {
  local mirror="$1" apt="$TOOLS/apt" debs="$2"
  rm -rf "$apt" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$debs"
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
    "$mirror" "$SUITE" "$KEYRING" >"$apt/haproxy3.sources"
  APT_OPTS=(-o "Dir::Etc::SourceList=$apt/haproxy3.sources" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root
    -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -o APT::Update::Error-Mode=any)
  say "reading the $SUITE index from $mirror"
  local log="$TOOLS/apt.log"
  apt-get "${APT_OPTS[@]}" update >"$log" 2>&1 ||
    die "cannot reach the Debian archive at $mirror (suite $SUITE): $(grep -E '^(E|W):' "$log" | head -3 | tr '\n' ' ')
  Set HAPTIC_DEBIAN_MIRROR to a reachable Debian mirror, or use HAPTIC_HAPROXY_BIN to point at another binary." 3
  local candidate
  candidate="$(apt-cache "${APT_OPTS[@]}" policy haproxy | awk '/Candidate:/ { print $2 }')"
  case "$candidate" in 3.*) ;; *) die "suite $SUITE offers haproxy '$candidate', not a 3.x" ;; esac
  say "downloading haproxy $candidate and ${#PACKAGES[@]} packages"
  (cd "$debs" && apt-get "${APT_OPTS[@]}" download "${PACKAGES[@]}" >>"$log" 2>&1) ||
    die "download from $mirror failed: $(grep -E '^(E|W):' "$log" | head -3 | tr '\n' ' ')" 3
}

unpack() {
  local debs="$1" root="$2"
  rm -rf "$root" && mkdir -p "$root"
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$root"; done
}

# A patched copy: trixie's loader as interpreter and its libraries as DT_RPATH. --force-rpath
# matters: DT_RPATH (unlike DT_RUNPATH) is also searched for the libraries' own dependencies.
patch_binary() {
  local root="$1" libdir loader
  libdir="$(dirname "$(find "$root/usr/lib" -maxdepth 2 -name 'libc.so.6' -print -quit)")"
  loader="$(find "$libdir" -maxdepth 1 -name 'ld-linux*.so.*' -print -quit)"
  [ -f "$loader" ] || die "no loader found under $root"
  mkdir -p "$TOOLS/bin"
  cp "$root/usr/sbin/haproxy" "$BIN.tmp"
  patchelf --force-rpath --set-interpreter "$loader" --set-rpath "$libdir" "$BIN.tmp"
  local stray
  stray="$("$loader" --list "$BIN.tmp" | grep '=>' | grep -v -F "$root/" || true)"
  [ -z "$stray" ] || die "libraries resolved outside $root (add their packages to the list):
$stray"
  # Output captured first: with pipefail, `| grep -q` could fail on the SIGPIPE it causes.
  local version
  version="$("$BIN.tmp" -v 2>&1 || true)"
  [[ "$version" == "HAProxy version 3."* ]] || die "the patched binary does not run: ${version:0:300}"
  mv "$BIN.tmp" "$BIN"
}

main() {
  ensure_patchelf
  local stamp_root=""
  [ -f "$STAMP" ] && stamp_root="$(cat "$STAMP")"
  rm -f "$STAMP"
  # Same packages, moved checkout: the unpacked tree is still good, only the paths need patching.
  if [ "$FORCE" = 1 ] || [ ! -x "$TOOLS/root/usr/sbin/haproxy" ] ||
    [ "$(echo "$stamp_root" | grep -v '^root=')" != "$(expected_stamp | grep -v '^root=')" ]; then
    local mirror
    mirror="$(find_mirror)"
    [ -n "$mirror" ] || die "no Debian source in this machine's apt configuration: set HAPTIC_DEBIAN_MIRROR" 3
    fetch_packages "$mirror" "$TOOLS/debs"
    unpack "$TOOLS/debs" "$TOOLS/root"
    rm -rf "$TOOLS/apt" "$TOOLS/debs" # 30 MB of indexes and archives, not needed any more
  fi
  patch_binary "$TOOLS/root"
  expected_stamp >"$STAMP"
  local line
  line="$("$BIN" -v)"
  say "${line%%$'\n'*}"
  done_ready
}

main
