#!/usr/bin/env bash
# build.sh DIR [meson options...]: configure (once) and build one build directory.
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
ninja -C "$dir"
