#!/bin/sh
# build_seeds.sh SEEDS_DIR SDK_DIR OUT_DIR: extract every samples/bpf/tcp_*_kern.c
# a seed patch adds and compile it with the SDK's one documented clang command.
# Prints one line per object built; exit 77 when SEEDS_DIR is missing.
set -eu
seeds=$1
sdk=$2
out=$3
if [ ! -d "$seeds" ]; then
	echo "seeds: $seeds not found: seed sample tests not run"
	exit 77
fi
mkdir -p "$out"
for p in "$seeds"/*.patch; do
	[ -f "$p" ] || continue
	for f in $(sed -n 's|^+++ b/\(samples/bpf/tcp_[a-z0-9_]*_kern\.c\)$|\1|p' "$p"); do
		src="$out/$(basename "$f")"
		# the added file's lines: after its "+++ b/FILE" header, the hunk
		# lines starting with "+", up to the next file's "diff --git"
		awk -v want="+++ b/$f" '
			$0 == want { on = 1; next }
			on && /^diff --git / { on = 0 }
			on && /^@@ / { next }
			on && /^\+/ { print substr($0, 2) }
		' "$p" >"$src"
		clang -O2 -g -target bpf -I "$sdk" -c "$src" -o "${src%.c}.o"
		# BPF objects must not see glibc: every header must come from the
		# SDK or the kernel's uapi/libbpf directories
		bad=$(clang -O2 -target bpf -I "$sdk" -M "$src" | tr ' \\' '\n\n' |
			grep -v -e '^$' -e '\.o:$' -e "^$src\$" -e "^$sdk/" \
				-e '^/usr/include/linux/' -e '^/usr/include/asm-generic/' \
				-e '^/usr/include/bpf/' || true)
		if [ -n "$bad" ]; then
			echo "seeds: $src includes headers outside the SDK: $bad" >&2
			exit 1
		fi
		echo "${src%.c}.o"
	done
done
