#!/usr/bin/env bash
# The demo: sock_ops programs (ours and, when ../shared/seeds is there, the
# Linux seed samples) run on in-memory sockets, then the kernel equivalence
# report of the last `make test` run.
set -euo pipefail
cd "$(dirname "$0")/.."
export SKOPS_SEEDS=${SKOPS_SEEDS:-$(cd .. && pwd)/shared/seeds}
if [ ! -x build/apps/skops-demo ]; then
  echo "demo: build/apps/skops-demo not built" >&2
  exit 1
fi
build/apps/skops-demo "$@"
echo
if [ -f build/equivalence-report.md ]; then
  cat build/equivalence-report.md
else
  echo "(no kernel equivalence report yet: 'make test' writes build/equivalence-report.md)"
fi
