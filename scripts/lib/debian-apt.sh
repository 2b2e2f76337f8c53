# shellcheck shell=bash
# Sourced by the set-up scripts: fetches Debian packages with a private apt state (apt options
# only: its own source list, lists and cache under a folder of ours), so that nothing is installed
# system-wide and no root is needed. The caller defines `say` and `die`.
#
# Environment: HAPTIC_DEBIAN_MIRROR  Debian archive URL (default: the machine's own Debian source)

DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# The machine's release codename (e.g. bookworm).
host_codename() { (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}"); }

# The machine's own Debian archive: the source serving the host's release, so no host name is
# hard-coded. --no-release-info lists sources even before any `apt-get update`.
find_mirror() {
  if [ -n "${HAPTIC_DEBIAN_MIRROR:-}" ]; then echo "$HAPTIC_DEBIAN_MIRROR"; return; fi
  local codename
  codename="$(host_codename)"
  apt-get indextargets --no-release-info --format '$(REPO_URI)|$(RELEASE)|$(IDENTIFIER)' 2>/dev/null |
    awk -F'|' -v c="$codename" '!found && $2 == c && $3 == "Packages" { print $1; found = 1 }'
}

# apt_private <state-dir> <suite>: reads the suite's index into <state-dir>; sets APT_OPTS.
APT_OPTS=()
apt_private() {
  local apt="$1" suite="$2" mirror
  mirror="$(find_mirror)"
  [ -n "$mirror" ] || die "no Debian source in this machine's apt configuration: set HAPTIC_DEBIAN_MIRROR" 3
  [ -f "$DEBIAN_KEYRING" ] || die "$DEBIAN_KEYRING is missing (package debian-archive-keyring)" 3
  rm -rf "$apt" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
  : >"$apt/status" # an empty dpkg status: what the machine has installed does not matter
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
    "$mirror" "$suite" "$DEBIAN_KEYRING" >"$apt/private.sources"
  APT_OPTS=(-o "Dir::Etc::SourceList=$apt/private.sources" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
    -o "Dir::State::status=$apt/status" -o APT::Sandbox::User="$(id -un)"
    -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -o APT::Update::Error-Mode=any)
  say "reading the $suite index from $mirror"
  apt-get "${APT_OPTS[@]}" update >"$apt/apt.log" 2>&1 ||
    die "cannot reach the Debian archive at $mirror (suite $suite): $(grep -E '^(E|W):' "$apt/apt.log" | head -3 | tr '\n' ' ')
  Set HAPTIC_DEBIAN_MIRROR to a reachable Debian mirror." 3
}

# apt_candidate <package>: the version the private index offers.
apt_candidate() { apt-cache "${APT_OPTS[@]}" policy "$1" | awk '/Candidate:/ { print $2 }'; }

# apt_fetch <state-dir> <debs-dir> <package>...: downloads the packages (after apt_private).
apt_fetch() {
  local apt="$1" debs="$2"
  shift 2
  mkdir -p "$debs"
  (cd "$debs" && apt-get "${APT_OPTS[@]}" download "$@" >>"$apt/apt.log" 2>&1) ||
    die "download of $* failed: $(grep -E '^(E|W):' "$apt/apt.log" | head -3 | tr '\n' ' ')" 3
}

# unpack <debs-dir> <root>: every package unpacked with dpkg -x into a fresh <root>.
unpack() {
  local debs="$1" root="$2" deb
  rm -rf "$root" && mkdir -p "$root"
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$root"; done
}
