#!/usr/bin/env bash
# The demo: grows with the project (see README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x build/apps/skops-demo ]; then
  exec build/apps/skops-demo "$@"
fi
echo "demo: build/apps/skops-demo not built" >&2
exit 1
