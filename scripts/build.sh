#!/usr/bin/env bash
# build.sh DIR [meson options...]: configure (once) and build one build directory.
# With SKOPS_BUILD_SUITES="suite ..." only what those suites' tests need is
# built (scripts/test_targets.py): the sanitizer and fuzz configurations of
# test/run.sh, which run just some suites.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1; shift
if [ -f "$dir/build.ninja" ]; then
  cmd=(meson configure "$dir" "$@")
else
  cmd=(meson setup "$dir" "$@")
fi
if ! out=$("${cmd[@]}" 2>&1); then
  printf '%s\n' "$out" >&2
  exit 1
fi
if [ -n "${SKOPS_BUILD_SUITES:-}" ]; then
  # shellcheck disable=SC2086 # the suites are words
  mapfile -t targets < <(scripts/test_targets.py "$dir" $SKOPS_BUILD_SUITES)
  [ ${#targets[@]} -gt 0 ] || { echo "build.sh: no tests in suites $SKOPS_BUILD_SUITES" >&2; exit 1; }
  ninja -C "$dir" "${targets[@]}"
else
  ninja -C "$dir"
fi
