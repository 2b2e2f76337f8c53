#!/usr/bin/env bash
# Makes sure every system tool the tests use is present, fetching what the machine lacks from its
# own Debian release into .tools/ (ignored by git) without root and without installing anything
# system-wide (private apt state, `apt-get download`, `dpkg -x`; see scripts/lib/debian-apt.sh):
#   patchelf   to build the HAProxy copies (.tools/bin/patchelf)
#   promtool   checks Prometheus rules and metrics (.tools/bin/promtool, from package prometheus)
#   openssl    test certificates and kube-sim's TLS (.tools/bin/openssl, with its own libssl)
#   gnu-time   GNU time (/usr/bin/time), the memory bench's peak of `haproxy -c` (.tools/bin/gnu-time)
#   haproxy26  HAProxy 2.6 when the machine has no 2.6 (.tools/haproxy26, via debian-haproxy.sh)
# A tool the machine has is used as is; the tests find .tools/bin first on their PATH.
#
# Usage: bash scripts/system-tools.sh [all|patchelf|promtool|openssl|gnu-time|haproxy26] [--quiet]
#   prints the path of the named tool (nothing for `all`) on stdout; progress on stderr.
# Environment:
#   HAPTIC_IGNORE_SYSTEM_TOOLS=1  act as if none of these tools were installed on the machine
#                                 (tries the fresh-machine path; the HAProxy resolver honours it)
#   HAPTIC_DEBIAN_MIRROR          Debian archive URL (default: the machine's own source)
# Exit codes: 0 ready, 1 usage or local failure, 3 the archive could not be reached.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/debian-apt.sh
. "$REPO_ROOT/scripts/lib/debian-apt.sh"
BIN_DIR="$REPO_ROOT/.tools/bin"
WORK="$REPO_ROOT/.tools/debian"

WHAT=all QUIET=0
for arg in "$@"; do
  case "$arg" in
    all | patchelf | promtool | openssl | gnu-time | haproxy26) WHAT="$arg" ;;
    --quiet) QUIET=1 ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "system-tools: unknown argument '$arg' (try --help)" >&2; exit 1 ;;
  esac
done

say() { [ "$QUIET" = 1 ] || echo "system-tools: $*" >&2; }
die() { echo "system-tools: $1" >&2; exit "${2:-1}"; }

# The machine's own copy of a tool (PATH, then the sbin folders an ordinary user's PATH lacks).
system_tool() {
  [ "${HAPTIC_IGNORE_SYSTEM_TOOLS:-}" = 1 ] && return 1
  # `time` is a shell keyword: GNU time is looked for by its path
  if [ "$1" = gnu-time ]; then [ -x /usr/bin/time ] && { echo /usr/bin/time; return 0; }; return 1; fi
  command -v "$1" 2>/dev/null && return 0
  local dir
  for dir in /usr/local/sbin /usr/sbin /sbin; do
    [ -x "$dir/$1" ] && { echo "$dir/$1"; return 0; }
  done
  return 1
}

# The stamp names the release and the folder: a moved checkout or another release rebuilds.
stamp() { printf 'suite=%s\nroot=%s\n' "$(host_codename)" "$WORK/$1"; }
ready() { [ -x "$BIN_DIR/$1" ] && [ "$(cat "$WORK/$1/READY" 2>/dev/null)" = "$(stamp "$1")" ]; }

# Where a tool is, or nothing when it must be fetched.
locate() {
  if ready "$1"; then echo "$BIN_DIR/$1"; else system_tool "$1" || true; fi
}

packages_of() {
  case "$1" in
    patchelf) echo patchelf ;;
    promtool) echo prometheus ;;
    gnu-time) echo time ;;
    openssl) echo openssl "$(apt-cache "${APT_OPTS[@]}" depends openssl | awk '/Depends: libssl/ { print $2; exit }')" ;;
  esac
}

# Installs one unpacked tool into .tools/bin (a copy, or a wrapper naming its libraries).
install_tool() {
  local tool="$1" root="$WORK/$1/root"
  case "$tool" in
    patchelf | promtool) cp "$root/usr/bin/$tool" "$BIN_DIR/.$tool.tmp" ;;
    gnu-time) cp "$root/usr/bin/time" "$BIN_DIR/.$tool.tmp" ;;
    openssl)
      local libdir
      libdir="$(dirname "$(find "$root/usr/lib" -name 'libssl.so.3' -print -quit)")"
      cat >"$BIN_DIR/.$tool.tmp" <<WRAPPER
#!/bin/sh
# Made by scripts/system-tools.sh: Debian's openssl with its own libssl and configuration.
OPENSSL_CONF="\${OPENSSL_CONF:-$root/etc/ssl/openssl.cnf}" LD_LIBRARY_PATH="$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$root/usr/bin/openssl" "\$@"
WRAPPER
      chmod +x "$BIN_DIR/.$tool.tmp"
      ;;
  esac
  "$BIN_DIR/.$tool.tmp" --version >/dev/null 2>&1 || "$BIN_DIR/.$tool.tmp" version >/dev/null 2>&1 ||
    die "the fetched $tool does not run"
  mv "$BIN_DIR/.$tool.tmp" "$BIN_DIR/$tool"
  [ "$tool" = promtool ] && rm -rf "$root" # 100 MB of Prometheus server; only promtool is used
  stamp "$tool" >"$WORK/$tool/READY"
}

# Fetches the given tools from the machine's own release in one pass over its index.
fetch_tools() {
  local tool pkgs=()
  mkdir -p "$WORK" "$BIN_DIR"
  apt_private "$WORK/apt" "$(host_codename)"
  for tool in "$@"; do
    read -r -a pkgs <<<"$(packages_of "$tool")"
    say "fetching $tool (${pkgs[*]} $(apt_candidate "${pkgs[0]}"))"
    rm -rf "$WORK/$tool/debs"
    apt_fetch "$WORK/apt" "$WORK/$tool/debs" "${pkgs[@]}"
    unpack "$WORK/$tool/debs" "$WORK/$tool/root"
    rm -rf "$WORK/$tool/debs"
    install_tool "$tool"
  done
  rm -rf "$WORK/apt"
}

haproxy26() {
  local bin version
  if bin="$(system_tool haproxy)"; then
    version="$("$bin" -v 2>&1 || true)"
    if [[ "$version" == "HAProxy version 2.6."* ]]; then echo "$bin"; return; fi
  fi
  local args=(--print-path)
  [ "$QUIET" = 1 ] && args+=(--quiet)
  bash "$REPO_ROOT/scripts/debian-haproxy.sh" 2.6 "${args[@]}"
}

ensure() {
  local missing=() tool
  for tool in "$@"; do [ -n "$(locate "$tool")" ] || missing+=("$tool"); done
  [ ${#missing[@]} -eq 0 ] && return
  mkdir -p "$WORK"
  exec 9>"$WORK/.lock"
  flock 9 # one fetch at a time
  missing=()
  for tool in "$@"; do [ -n "$(locate "$tool")" ] || missing+=("$tool"); done
  [ ${#missing[@]} -eq 0 ] || fetch_tools "${missing[@]}"
  exec 9>&-
}

case "$WHAT" in
  all)
    ensure patchelf promtool openssl gnu-time
    haproxy26 >/dev/null
    ;;
  haproxy26) haproxy26 ;;
  *) ensure "$WHAT" && locate "$WHAT" ;;
esac
