#!/usr/bin/env bash
# The README's test command: installs what is missing, builds the plain, the
# ASan+UBSan and the libFuzzer configurations, runs every suite, and closes with
# one "skops: N passed, N failed, N skipped" line summed over all of them from
# meson's machine-readable logs (test/testlog.py), not its human summary.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1
export SKOPS_SEEDS=${SKOPS_SEEDS:-$(cd .. && pwd)/shared/seeds}

ok=0 fail=0 skip=0 broken=0
summarise() { # build-dir: counts from meson's machine-readable log of its last run
  local p f s
  read -r p f s < <(/usr/bin/python3 test/testlog.py "$1/meson-logs/testlog.json")
  ok=$((ok + ${p:-0})); fail=$((fail + ${f:-1})); skip=$((skip + ${s:-0}))
}
run_suites() { # build-dir suite...
  local dir=$1; shift
  local args=()
  for s in "$@"; do
    [ -n "$(meson test -C "$dir" --list --suite "$s" 2>/dev/null | grep -v '^ninja')" ] &&
      args+=(--suite "$s")
  done
  [ ${#args[@]} -gt 0 ] || return 0
  echo "=== $dir: ${*}"
  rm -f "$dir/meson-logs/testlog.json" # a run that writes none counts as failed
  meson test -C "$dir" --no-rebuild --num-processes 2 --print-errorlogs -v ${TIMEOUT_MULT:+--timeout-multiplier "$TIMEOUT_MULT"} "${args[@]}" \
    >"$dir/test-output.txt" 2>&1
  cat "$dir/test-output.txt"
  summarise "$dir"
}
build() { # dir [meson options]
  echo "=== building $1"
  if ! scripts/build.sh "$@" >"/tmp/skops-$1-build.log" 2>&1; then
    cat "/tmp/skops-$1-build.log"
    echo "build of $1 failed"
    broken=$((broken + 1))
    return 1
  fi
}

build build && run_suites build format unit verifier sim interop equivalence apps
# Under the sanitizers Check runs a binary's tests in one process
# (CK_FORK=no): LeakSanitizer's pass at every forked test's exit took most of
# the run (test_jit_isa: 108 s forked, 2 s not), and one pass at the end finds
# the same leaks. SKOPS_TEST_QUICK: the long simulations and the differential
# run a shorter course (their full size ran in the plain build above).
SKOPS_BUILD_SUITES="unit verifier" build build-asan -Db_sanitize=address,undefined -Db_lundef=false &&
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  CK_FORK=no SKOPS_TEST_QUICK=1 TIMEOUT_MULT=4 run_suites build-asan unit verifier
CC=clang SKOPS_BUILD_SUITES=fuzz build build-fuzz -Dfuzz=true -Dbuildtype=debugoptimized &&
  run_suites build-fuzz fuzz

fail=$((fail + broken))
echo "skops: $ok passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$ok" -gt 0 ]
