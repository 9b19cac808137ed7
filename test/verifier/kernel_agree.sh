#!/bin/sh
# kernel_agree.sh SKOPSCTL OBJDIR: the issue 11 classes against the running
# kernel. Each kernel/k_*.c (BTF maps, libbpf headers) is loaded as sock_ops
# with bpftool and verified by skopsctl; both must give the verdict below,
# and a rejection's reason must name the same fault on both sides (the
# kernel's line, and ours with its insn). Loads and unpins only; needs root
# and bpftool, and fails (never skips) without them.
set -u
ctl=$1
objdir=$2
fail() {
	echo "kernel_agree: $*"
	exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root to load programs with bpftool"
command -v bpftool >/dev/null 2>&1 || fail "bpftool not found (apt-get install bpftool)"
[ -d /sys/fs/bpf ] || fail "/sys/fs/bpf is not mounted"
pin=/sys/fs/bpf/skops_vrf_agree_$$
trap 'rm -f "$pin"' EXIT INT TERM
n=0
# name|verdict|kernel's reason|ours
while IFS='|' read -r name verdict kwhy swhy; do
	[ -n "$name" ] || continue
	obj="$objdir/$name.o"
	kout=$(bpftool prog load "$obj" "$pin" type sockops 2>&1)
	krc=$?
	rm -f "$pin"
	sout=$("$ctl" prog verify "$obj" 2>&1)
	src=$?
	if [ "$verdict" = accept ]; then
		[ $krc -eq 0 ] || fail "$name: the kernel refused: $kout"
		[ $src -eq 0 ] || fail "$name: skops refused: $sout"
	else
		[ $krc -ne 0 ] || fail "$name: the kernel accepted"
		[ $src -eq 1 ] || fail "$name: skopsctl exited $src, want 1: $sout"
		echo "$kout" | grep -qF "$kwhy" || fail "$name: kernel log lacks '$kwhy': $kout"
		echo "$sout" | grep -qxF "$swhy" || fail "$name: skops log lacks '$swhy': $sout"
	fi
	n=$((n + 1))
done <<'TABLE'
k_replylong|reject|invalid bpf_context access off=8 size=4|verifier: insn 2: invalid bpf_context write off=8 size=4: sock_ops: ctx+8 (replylong): field is read-only
k_reply_ok|accept||
k_loop_zero|reject|invalid access to map value, value_size=16 off=65536 size=1|verifier: insn 21: invalid access to map value, value_size=16 off=65536 size=1
k_fmt_data|reject|R3 does not point to a readonly map|verifier: insn 11: R3 does not point to a readonly map
k_fmt_rodata_ok|accept||
k_spin_lock|reject|bpf_spin_unlock of different lock|verifier: insn 24: bpf_spin_unlock of different lock
k_tail_call_ref|reject|tail_call would lead to reference leak|verifier: insn 15: tail_call would lead to reference leak
k_end64|reject|R0 unbounded memory access|verifier: insn 13: R0 math between map_value pointer and register with unbounded value is not allowed
TABLE
echo "kernel_agree: $n programs, the kernel and skops agree"
