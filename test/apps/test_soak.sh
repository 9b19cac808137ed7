#!/usr/bin/env bash
# Soak (issue 26): skopsd on an af_packet veth in one netns, the Linux kernel
# in the other, apps churned under skops-run for SECS seconds (the first
# argument, else SKOPS_SOAK_SECS, else 20; docs/skopsd.md "Soak" for the
# 10-minute run). Each round starts, at once:
#  - two root clients and one uid 65534 client (soak_app client: 3
#    connections each, one after another, to the kernel's echo, every byte of
#    the echo checked against what was sent, and its hash);
#  - a server under the shim (soak_app server: a forked child echoes each of
#    its 2 connections) and two kernel clients checking its echo the same way;
#  - a client SIGKILLed 0.1-0.4 s into a 64 MiB transfer, and every third
#    round a server SIGKILLed with a kernel client in a 64 MiB transfer.
# Every process that was not killed must end with its echo intact. After a
# warm-up round skopsd's RSS, open fds and stats (SIGUSR1: clients, sockets,
# fork tickets, quota use, mbufs out of the pool) are the baseline; once the
# churn stops and the last closes finish, they must come back to it: the
# same clients, sockets, tickets and quota use, fds within 2, mbufs within
# 64, the heap in use (less the stack's buffer cache) within 8 MiB. RSS is reported and only bounded
# loosely (64 MiB): it also counts the mbuf pool's pages once a load peak
# touched them, which stay resident without a leak (115-180 MB seen).
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools setpriv getent /usr/bin/python3
shim_bins
SOAK=${SKOPS_SOAK_APP:?}
[ -x "$SOAK" ] || fail "missing $SOAK (build first)"
SECS=${1:-${SKOPS_SOAK_SECS:-20}}
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 1 ] || fail "soak duration '$SECS': want seconds"
D=$(cd "$(dirname "$0")" && pwd)
setup_netns
trap 'for n in "$NS_A" "$NS_B"; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9; done; cleanup' EXIT
chmod 755 "$TMP"
SOCK=$TMP/skopsd.sock
LOG=$TMP/skopsd.err
NOBODY=(setpriv --reuid 65534 --regid 65534 --clear-groups)

bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --sock "$SOCK" \
	--group "$(getent group 65534 | cut -d: -f1)"
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"
DPID=$PID_skopsd # ip netns exec execs: the daemon's own pid
bg kecho in_b /usr/bin/python3 "$D/kecho.py" "$IP4_B" 7801
wait_for 10 grep -q listening "$TMP/kecho.out" || fail "kernel echo: $(cat "$TMP/kecho.err")"

rss() { awk '/^VmRSS/ {print $2}' "/proc/$DPID/status"; }
nfds() { ls "/proc/$DPID/fd" | wc -l; }
NSTATS=0
# stats: S is skopsd's next stats line, without its prefix
stats() {
	NSTATS=$((NSTATS + 1))
	kill -USR1 "$DPID"
	wait_for 5 grep -q "skopsd: stats $NSTATS:" "$LOG" || fail "skopsd gave no stats: $(tail -3 "$LOG")"
	S=$(grep "skopsd: stats $NSTATS:" "$LOG" | sed 's/.*stats [0-9]*: //')
}
# field NAME LINE: NAME's value in a stats line
field() { sed -n "s/.* $1 \([0-9]*\).*/\1/p; s/^$1 \([0-9]*\).*/\1/p" <<<"$2" | head -1; }

TRANSFERS=0 BYTES=0 KILLED=0
# round R: one round's apps; fails on any transfer not intact
round() {
	local r=$1 port=$((8100 + $1 % 400)) p n rc names=() pids=()
	local dir=$TMP/r$r
	mkdir "$dir"
	start() { # start NAME CMD...: in the background, output in $dir/NAME.*
		local name=$1
		shift
		"$@" </dev/null >"$dir/$name.out" 2>"$dir/$name.err" &
		names+=("$name")
		pids+=($!)
	}
	local sz=$((65536 + RANDOM * 16))
	start srv in_a timeout 60 "$RUN" --sock "$SOCK" -- "$SOAK" server "$port" 2
	wait_for 10 grep -q listening "$dir/srv.out" || fail "round $r: server: $(cat "$dir/srv.err")"
	start kc1 in_b timeout 60 "$SOAK" client "$IP4_A" "$port" "$sz" "$RANDOM" 1
	start kc2 in_b timeout 60 "$SOAK" client "$IP4_A" "$port" $((sz / 3)) "$RANDOM" 1
	start c1 in_a timeout 60 "$RUN" --sock "$SOCK" -- "$SOAK" client "$IP4_B" 7801 "$sz" "$RANDOM" 3
	start c2 in_a timeout 60 "$RUN" --sock "$SOCK" -- "$SOAK" client "$IP4_B" 7801 $((sz * 2)) "$RANDOM" 3
	start nobody in_a "${NOBODY[@]}" timeout 60 "$RUN" --sock "$SOCK" -- \
		"$SOAK" client "$IP4_B" 7801 "$sz" "$RANDOM" 3
	# killed mid-transfer (timeout signals its whole process group)
	in_a timeout -s KILL "0.$((RANDOM % 4 + 1))" "$RUN" --sock "$SOCK" -- \
		"$SOAK" client "$IP4_B" 7801 $((64 << 20)) "$RANDOM" 1 >/dev/null 2>&1 &
	local victim=$!
	local ksrv= kcl=
	if ((r % 3 == 0)); then
		in_a timeout -s KILL 2 "$RUN" --sock "$SOCK" -- "$SOAK" server $((port + 400)) 1 \
			>"$dir/ksrv.out" 2>&1 &
		ksrv=$!
		if wait_for 5 grep -q listening "$dir/ksrv.out"; then
			in_b timeout 10 "$SOAK" client "$IP4_A" $((port + 400)) $((64 << 20)) 1 1 \
				>/dev/null 2>&1 &
			kcl=$!
		fi
	fi
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}"
		rc=$?
		n=${names[$i]}
		[ "$rc" = 0 ] || fail "round $r: $n exited $rc: $(cat "$dir/$n.out" "$dir/$n.err" | tail -5)"
		case $n in
		srv) grep -q "served 2" "$dir/$n.out" || fail "round $r: server: $(cat "$dir/$n.out")" ;;
		*) grep -q "^ok " "$dir/$n.out" || fail "round $r: $n: $(cat "$dir/$n.out")"
			set -- $(cat "$dir/$n.out")
			TRANSFERS=$((TRANSFERS + $2))
			BYTES=$((BYTES + $2 * $3)) ;;
		esac
	done
	wait "$victim"
	[ $? = 137 ] && KILLED=$((KILLED + 1))
	if [ -n "$ksrv" ]; then
		wait "$ksrv"
		[ $? = 137 ] && KILLED=$((KILLED + 1))
	fi
	[ -z "$kcl" ] || wait "$kcl" # the kernel client of a killed server
	rm -rf "$dir"
}

# settled: skopsd holds what it held at the baseline (closes finish, the
# stack's FINs and TIME_WAITs run their course): the last stats line in S
settled() {
	local i
	for ((i = 0; i < 60; i++)); do
		stats
		[ "$(field sockets "$S")" = "$(field sockets "$S0")" ] &&
			[ "$(field clients "$S")" = "$(field clients "$S0")" ] &&
			[ "$(field tickets "$S")" = "$(field tickets "$S0")" ] &&
			[ "$(field quota_socks "$S")" = "$(field quota_socks "$S0")" ] &&
			[ "$(field mbufs "$S")" -le $(($(field mbufs "$S0") + 64)) ] && return 0
		sleep 0.5
	done
	return 1
}

# warm-up: the pools and the heap take their working size. Two rounds, and
# the larger RSS after them is the baseline: which buffers the stack's ring
# cache keeps depends on where a round's kills fell, and one round has left
# a baseline 7 MiB under the working size.
stats
S0=$S
rss0=0
for w in 0 399; do # 399: a port of its own, far from round 1 on
	round "$w"
	settled || fail "after the warm-up round skopsd holds: $S (at start: $S0)"
	sleep 1.5 # the heap's trim (at most once a second after frees)
	r_w=$(rss)
	[ "$r_w" -gt "$rss0" ] && rss0=$r_w
done
S0=$S
fds0=$(nfds)
echo "baseline: RSS ${rss0} kB, ${fds0} fds, $S0"
t_end=$(($(date +%s) + SECS))
r=1
while [ "$(date +%s)" -lt "$t_end" ] && [ "$r" -lt 100000 ]; do
	round "$r"
	if ((r % 20 == 0)); then
		stats
		echo "round $r: $TRANSFERS transfers intact, RSS $(rss) kB, $(nfds) fds, $S"
	fi
	r=$((r + 1))
done
kill -0 "$DPID" 2>/dev/null || fail "skopsd died: $(tail -5 "$LOG")"
settled || fail "skopsd did not come back to its baseline: $S (baseline: $S0)"
sleep 1.5
rss1=$(rss) fds1=$(nfds)
echo "after $((r - 1)) rounds: RSS ${rss1} kB, ${fds1} fds, $S"
[ "$fds1" -le $((fds0 + 2)) ] || fail "skopsd's fds: $fds1, baseline $fds0: $(ls -l "/proc/$DPID/fd" | tail -5)"
for q in quota_clients quota_tickets quota_pending uids; do
	[ "$(field $q "$S")" = "$(field $q "$S0")" ] || fail "skopsd's $q: $S (baseline $S0)"
done
[ "$(field quota_buf_kb "$S")" -le "$(field quota_buf_kb "$S0")" ] || fail "buffer quota held: $S (baseline $S0)"
# the heap less the stack's cache of freed buffers (up to 16 of any size:
# which ones a round leaves depends on where its kills fell)
heap0=$(($(field heap_kb "$S0") - $(field ring_cache_kb "$S0")))
heap1=$(($(field heap_kb "$S") - $(field ring_cache_kb "$S")))
[ "$heap1" -le $((heap0 + 8192)) ] || fail "skopsd's heap grew from $heap0 kB to $heap1 kB"
[ "$rss1" -le $((rss0 + 65536)) ] || fail "skopsd's RSS grew from $rss0 kB to $rss1 kB"
grep -E "skopsd: .*(refused|bad ring)" "$LOG" | head -3
echo "PASS: $((r - 1)) rounds in ${SECS} s, $TRANSFERS transfers intact ($((BYTES / 1048576)) MiB echoed), $KILLED apps SIGKILLed mid-transfer; heap $heap0 -> $heap1 kB, RSS $rss0 -> $rss1 kB, fds $fds0 -> $fds1, mbufs $(field mbufs "$S0") -> $(field mbufs "$S")"
