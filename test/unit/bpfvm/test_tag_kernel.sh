#!/bin/sh
# test_tag_kernel.sh TAGTOOL OBJ...: load each sock_ops object into the running
# kernel with bpftool and compare the kernel's program tag with the one bpfvm
# computes for the same object. Linux 6.18's bpf_prog_calc_tag hashes the
# instructions (map-reference imms of ld_imm64 zeroed, after libbpf's sub-program
# and callback linking) with SHA-256 and reports the digest's first 8 bytes, so
# the kernel must match bpfvm_prog_tag_sha256; the SHA-1 tag of Linux 4.13
# (bpfvm_prog_tag) must differ from it. Needs root and bpftool.
set -u
fail() { echo "test_tag_kernel: $*"; exit 1; }
[ $# -ge 2 ] || fail "usage: $0 TAGTOOL OBJ..."
tagtool=$1
shift
[ "$(id -u)" = 0 ] || fail "needs root to load programs with bpftool"
command -v bpftool >/dev/null 2>&1 || fail "bpftool not found (apt-get install bpftool)"
command -v python3 >/dev/null 2>&1 || fail "python3 not found (reads bpftool -j)"
[ -d /sys/fs/bpf ] || fail "/sys/fs/bpf is not mounted"
# per-process pin name: build/ and build-asan/ may run this at the same time
pin=/sys/fs/bpf/skops_tag_test_$$ # bpffs names take no dots
trap 'rm -f "$pin"' EXIT INT TERM
rm -f "$pin"
n=0
for obj in "$@"; do
	ours=$("$tagtool" --tag "$obj" sockops) || fail "$obj: tagtool failed"
	sha256=$(echo "$ours" | sed -n 's/^sha256 //p')
	sha1=$(echo "$ours" | sed -n 's/^sha1 //p')
	out=$(bpftool prog load "$obj" "$pin" type sockops 2>&1) ||
		fail "$obj: bpftool prog load failed: $out"
	ktag=$(bpftool prog show pinned "$pin" -j |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["tag"])') ||
		fail "$obj: cannot read the kernel's tag"
	rm -f "$pin"
	[ "$ktag" = "$sha256" ] || fail "$obj: kernel tag $ktag, bpfvm SHA-256 tag $sha256"
	[ "$ktag" != "$sha1" ] || fail "$obj: kernel tag equals the SHA-1 tag $sha1"
	echo "$obj: kernel $ktag = bpfvm sha256 (sha1 $sha1)"
	n=$((n + 1))
done
echo "test_tag_kernel: $n objects match"
