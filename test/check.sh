#!/usr/bin/env bash
# `make check`: the quick tier for a developer's own loop (no root, a few
# minutes). It builds the plain configuration, checks formatting, and runs the
# unit and verifier suites without the tests that need root (suite 'root':
# the kernel's verifier and bpftool) in quick mode (SKOPS_TEST_QUICK=1: the
# long simulations run fewer seeds and steps). `make test` runs everything,
# full size, in three builds.
set -uo pipefail
cd "$(dirname "$0")/.."
export SKOPS_SEEDS=${SKOPS_SEEDS:-$(cd .. && pwd)/shared/seeds}
export SKOPS_TEST_QUICK=1

if ! scripts/install-deps.sh --check; then
	echo "check: install the packages above (as root: make deps)" >&2
	exit 1
fi
fail=0
if ! scripts/build.sh build >/tmp/skops-check-build.log 2>&1; then
	cat /tmp/skops-check-build.log
	echo "check: build failed"
	exit 1
fi
rm -f build/meson-logs/testlog.json
meson test -C build --no-rebuild --num-processes "$(nproc)" --print-errorlogs \
	--suite format --suite unit --suite verifier --no-suite root >build/check-output.txt 2>&1
grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' build/check-output.txt
read -r p f s < <(/usr/bin/python3 test/testlog.py build/meson-logs/testlog.json)
f=$((f + fail))
echo "skops check: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
