#!/usr/bin/env bash
# Idempotent project set-up beyond `npm ci`: tools the tests and the demo use, kept in ignored folders.
# Run by .ci/run and by `npm run demo`; fast when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."
# (each tool script added here is idempotent)
echo "project tools ready"
