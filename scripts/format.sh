#!/usr/bin/env bash
# format.sh [--check|--fix]: the project's C sources against its .clang-format.
# --check (default) lists the files that differ and fails; --fix rewrites them.
# One clang-format process for all files: one per file took most of a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---check}
mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^hooks/sdk/include/uapi/')
case $mode in
--fix) clang-format -i "${files[@]}" ;;
--check)
	if ! out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1); then
		printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/format: \1 differs from .clang-format/p' |
			sort -u >&2
		echo "format: run scripts/format.sh --fix (make format)" >&2
		exit 1
	fi
	;;
*) echo "usage: format.sh [--check|--fix]" >&2; exit 2 ;;
esac
