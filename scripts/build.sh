#!/usr/bin/env bash
# build.sh DIR [meson options...]: configure (once) and build one build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1; shift
if [ -f "$dir/build.ninja" ]; then
  meson configure "$dir" "$@" >/dev/null
else
  meson setup "$dir" "$@" >/dev/null
fi
ninja -C "$dir"
