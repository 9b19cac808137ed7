#!/bin/sh
# run_corpus.sh MODE RUNNER OBJDIR SRCDIR SKOPSCTL: the verifier corpus.
# MODE corpus: runs RUNNER over the corpus objects in OBJDIR (accept_*.o,
# reject_*.o, strict_reject_*.o with SRCDIR/progs/*.expect) and checks
# skopsctl's exit codes and output on a few of them; needs nothing else.
# MODE seeds: extracts every samples/bpf/tcp_*_kern.c the seed patches
# ($SKOPS_SEEDS) add, compiles it with the SDK's clang command and runs RUNNER
# over them; exit 77 (not run) with a message when the patches are absent.
set -eu
mode=$1
runner=$2
objdir=$3
srcdir=$4
ctl=$5

seed_samples() {
	seeds=${SKOPS_SEEDS:-${SKOPS_SEEDS_DEFAULT:-}}
	if [ -z "$seeds" ] || [ ! -d "$seeds" ]; then
		echo "verifier seeds: seed patches dir '$seeds' missing: the seed samples were not run"
		exit 77
	fi
	sdk=${SKOPS_SDK:?SKOPS_SDK not set}
	out="$objdir/seeds"
	rm -rf "$out"
	mkdir -p "$out"
	set --
	for p in "$seeds"/*.patch; do
		[ -f "$p" ] || continue
		for f in $(sed -n 's|^+++ b/\(samples/bpf/tcp_[a-z0-9_]*_kern\.c\)$|\1|p' "$p"); do
			src="$out/$(basename "$f")"
			# the new file's added lines, up to the next file of the patch
			awk -v want="+++ b/$f" '
				$0 == want { on = 1; next }
				on && /^diff --git / { on = 0 }
				on && /^@@ / { next }
				on && /^\+/ { print substr($0, 2) }
			' "$p" >"$src"
			clang -O2 -target bpf -I "$sdk" -c "$src" -o "${src%.c}.o"
			set -- "$@" "seed:${src%.c}.o"
		done
	done
	if [ $# -eq 0 ]; then
		echo "verifier seeds: no samples/bpf/tcp_*_kern.c in $seeds" >&2
		exit 1
	fi
	"$runner" "$@"
}

case $mode in
seeds)
	seed_samples
	exit 0
	;;
corpus) ;;
*)
	echo "run_corpus.sh: mode '$mode': want corpus or seeds" >&2
	exit 1
	;;
esac
set --
for o in "$objdir"/accept_*.o; do
	set -- "$@" "accept:$o"
done
for o in "$objdir"/reject_*.o "$objdir"/strict_reject_*.o; do
	b=$(basename "$o" .o)
	case $b in strict_*) m=strict-reject ;; *) m=reject ;; esac
	set -- "$@" "$m:$o:$srcdir/progs/$b.expect"
done
for o in "$objdir"/priv_*.o; do
	set -- "$@" "priv:$o:$srcdir/progs/$(basename "$o" .o).expect"
done
"$runner" "$@"
# skopsctl: 0 accepted, 1 rejected, 2 unreadable / bad usage
expect_rc() { # rc command...
	want=$1
	shift
	set +e
	"$@" >"$objdir/ctl.out" 2>&1
	rc=$?
	set -e
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: '$*' exited $rc, want $want"
		cat "$objdir/ctl.out"
		exit 1
	fi
}
need() { # grep options and pattern, on the last command's output
	grep -q "$@" "$objdir/ctl.out" || {
		echo "FAIL: skopsctl output lacks $*"
		cat "$objdir/ctl.out"
		exit 1
	}
}
expect_rc 0 "$ctl" prog verify "$objdir/accept_map.o"
need "section 'sockops': accepted as sock_ops"
expect_rc 1 "$ctl" prog verify "$objdir/reject_null_deref.o"
need -xF "$(cat "$srcdir/progs/reject_null_deref.expect")"
need "^verifier: state: R"
expect_rc 1 "$ctl" prog verify --strict "$objdir/strict_reject_ret.o"
expect_rc 0 "$ctl" prog verify "$objdir/strict_reject_ret.o"
expect_rc 0 "$ctl" prog verify -v "$objdir/accept_loop.o"
need "^[0-9]*: (61) r[0-9] = \*(u32 \*)(r1 +0)$"
expect_rc 0 "$ctl" prog verify -j --section sockops "$objdir/accept_stack.o"
need '"accepted":true'
expect_rc 2 "$ctl" prog verify "$objdir/no-such-file.o"
expect_rc 2 "$ctl" prog verify
expect_rc 2 "$ctl" prog verify --section nope "$objdir/accept_map.o"
expect_rc 0 "$ctl" prog dump "$objdir/accept_map.o"
need "^ *[0-9]*: (85) call bpf_map_lookup_elem#1$"
need "r1 = map\[id:[0-9]*\]$"
expect_rc 1 "$ctl" prog dump "$objdir/reject_null_deref.o"
# the loader's privilege: --unprivileged refuses the pointer stored into a
# map value; by default skopsctl judges as the kernel would judge this
# process (CAP_PERFMON 38 or CAP_SYS_ADMIN 21 in the effective set)
expect_rc 1 "$ctl" prog verify --unprivileged "$objdir/priv_map_ctx.o"
need -xF "$(sed -n 's/^unprivileged: //p' "$srcdir/progs/priv_map_ctx.expect")"
need "rejected (Permission denied) for an unprivileged loader$"
expect_rc 1 "$ctl" prog dump --unprivileged "$objdir/priv_map_ctx.o"
capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
if [ $(((0x$capeff >> 38 | 0x$capeff >> 21) & 1)) -eq 1 ]; then
	expect_rc 0 "$ctl" prog verify "$objdir/priv_map_ctx.o"
	expect_rc 0 "$ctl" prog dump "$objdir/priv_map_ctx.o"
else
	expect_rc 1 "$ctl" prog verify "$objdir/priv_map_ctx.o"
	need "rejected (Permission denied) for an unprivileged loader$"
fi
echo "skopsctl: exit codes and output checked"
