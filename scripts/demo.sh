#!/usr/bin/env bash
# The demo. Default: the main job, live (scripts/demo_apps.sh): skopsd, two
# unmodified servers under skops-run in two cgroups with their own sock_ops
# programs, the kernel connecting to each, the hooks' work next to ss -ti.
# --memory: the sock_ops programs (ours and, when the seed patches are there
# (SKOPS_SEEDS), the Linux seed samples) on in-memory sockets, then the kernel
# equivalence reports of the last `make test` run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != --memory ]; then
  exec scripts/demo_apps.sh "$@"
fi
shift
export SKOPS_SEEDS=${SKOPS_SEEDS:-$(cd .. && pwd)/shared/seeds}
if [ ! -x build/apps/skops-demo ]; then
  echo "demo: build/apps/skops-demo not built" >&2
  exit 1
fi
build/apps/skops-demo "$@"
echo
shown=0
for r in build/equivalence-report-progs.md build/equivalence-report-seeds.md; do
  if [ -f "$r" ]; then
    [ "$shown" = 0 ] || echo
    cat "$r"
    shown=1
  fi
done
if [ "$shown" = 0 ]; then
  echo "(no kernel equivalence report yet: 'make test' writes build/equivalence-report-*.md)"
fi
