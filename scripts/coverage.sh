#!/usr/bin/env bash
# `make coverage`: line coverage per directory from gcov/gcovr. Builds the
# configuration build-cov (-Db_coverage=true), runs the suites below in it
# and writes build-cov/coverage.txt (the table it prints), coverage.json
# (gcovr's per-file summary) and coverage.html (per-line detail).
#   scripts/coverage.sh                 the quick tier's suites: unit verifier sim
#   scripts/coverage.sh --all           every suite but fuzz (root; ~20 min)
#   scripts/coverage.sh SUITE...        those suites
set -euo pipefail
cd "$(dirname "$0")/.."
suites=(unit verifier sim)
if [ "${1:-}" = --all ]; then
	suites=(unit verifier sim interop equivalence compat apps)
elif [ $# -gt 0 ]; then
	suites=("$@")
fi
scripts/install-deps.sh
export SKOPS_SEEDS=${SKOPS_SEEDS:-$(cd .. && pwd)/shared/seeds}
SKOPS_BUILD_SUITES="${suites[*]}" scripts/build.sh build-cov -Db_coverage=true >/dev/null
find build-cov -name '*.gcda' -delete
args=()
for s in "${suites[@]}"; do args+=(--suite "$s"); done
[ "$(id -u)" = 0 ] || args+=(--no-suite root)
# failures are the test command's business; the figure is still written
meson test -C build-cov --no-rebuild --num-processes "$(nproc)" "${args[@]}" \
	>build-cov/coverage-tests.txt 2>&1 || echo "coverage: some tests failed (build-cov/coverage-tests.txt)"
filter=(--filter 'apps/' --filter 'stack/' --filter 'hooks/' --filter 'bpfvm/' --filter 'cgroup/'
	--exclude 'hooks/progs/' --exclude 'hooks/sdk/')
gcovr -r . "${filter[@]}" --gcov-ignore-parse-errors -j "$(nproc)" \
	--json-summary build-cov/coverage.json --html-details build-cov/coverage.html build-cov >/dev/null
python3 - "${suites[*]}" <<'PY' | tee build-cov/coverage.txt
import json, sys
files = json.load(open('build-cov/coverage.json'))['files']
dirs = {}
for f in files:
    d = f['filename'].rsplit('/', 1)[0] if '/' in f['filename'] else '.'
    t = dirs.setdefault(d, [0, 0, 0, 0])
    t[0] += f['line_covered']; t[1] += f['line_total']
    t[2] += f['function_covered']; t[3] += f['function_total']
print(f'coverage of suites: {sys.argv[1]}')
print(f'{"directory":<22} {"lines":>15} {"%":>6} {"functions":>11} {"%":>6}')
tot = [0, 0, 0, 0]
for d in sorted(dirs):
    c, n, fc, fn = dirs[d]
    tot = [a + b for a, b in zip(tot, dirs[d])]
    print(f'{d:<22} {c:>7}/{n:<7} {100 * c / max(n, 1):>5.1f} {fc:>5}/{fn:<5} {100 * fc / max(fn, 1):>5.1f}')
c, n, fc, fn = tot
print(f'{"total":<22} {c:>7}/{n:<7} {100 * c / max(n, 1):>5.1f} {fc:>5}/{fn:<5} {100 * fc / max(fn, 1):>5.1f}')
PY
