#!/usr/bin/env bash
# HAProxy 3.0 from Debian trixie into .tools/haproxy3 (see scripts/debian-haproxy.sh, which does
# the work for every major). Usage: bash scripts/haproxy3.sh [--force] [--print-path] [--quiet]
exec bash "$(dirname "${BASH_SOURCE[0]}")/debian-haproxy.sh" 3.0 "$@"
