#!/usr/bin/env bash
# format.sh [--check|--fix]: the project's C sources against its .clang-format.
# --check (default) lists the files that differ and fails; --fix rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---check}
mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^hooks/sdk/include/uapi/')
case $mode in
--fix) clang-format -i "${files[@]}" ;;
--check)
	bad=()
	for f in "${files[@]}"; do
		clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'format: %s differs from .clang-format\n' "${bad[@]}" >&2
		echo "format: run scripts/format.sh --fix" >&2
		exit 1
	fi
	;;
*) echo "usage: format.sh [--check|--fix]" >&2; exit 2 ;;
esac
