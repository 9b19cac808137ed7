#!/usr/bin/env bash
# Interop: pacing against the Linux kernel (docs/tcp.md "Pacing"). skcat
# --max-pacing-rate 2000000 sends 6 MiB to a kernel socat: the kernel's
# file grows at the cap (90 % to 105 %, between its 1 MiB and 5 MiB marks,
# sampled every 10 ms), the data arrives whole, and skcat
# --info reports max_pacing_rate 2000000 and a pacing_rate not above it.
# skcat --pacing (the CC-driven rate, no cap) reports a finite pacing_rate
# and max_pacing_rate ~0UL, and moves its data intact.
. "$(dirname "$0")/lib.sh"
need_root_and_tools socat sha256sum /usr/bin/python3
SKCAT=${SKOPS_BUILD:?}/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
setup_netns
RATE=2000000
MIB=6
head -c $((MIB << 20)) /dev/urandom >"$TMP/in"
args=(--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --info --timeout 120)

# info FILE KEY: KEY of the last --info JSON line skcat wrote to FILE
info() {
	/usr/bin/python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("{\"state\"")]
print(json.loads(lines[-1])[sys.argv[2]])' "$1" "$2" || fail "no --info line in $1: $(tail -3 "$1")"
}

run() { # name port skcat-options...
	local name=$1 port=$2
	shift 2
	rm -f "$TMP/out"
	bg "k$port" timeout 130 ip netns exec "$NS_B" socat -u "TCP4-LISTEN:$port,reuseaddr" \
		"CREATE:$TMP/out"
	wait_for 10 sh -c "ip netns exec $NS_B ss -ltnH 'sport = :$port' | grep -q ." ||
		fail "$name: kernel listener did not start"
	# the kernel's file grows at the rate skops sends: its size every 10 ms
	# from 1 MiB to 5 MiB (EAL start-up and TIME_WAIT's linger left out)
	bg "w$port" /usr/bin/python3 -c '
import os, sys, time
p, lo, hi = sys.argv[1], 1 << 20, 5 << 20
t0 = None
end = time.time() + 120
while time.time() < end:
    n = os.path.getsize(p) if os.path.exists(p) else 0
    if t0 is None and n >= lo:
        t0, n0 = time.time(), n
    if t0 is not None and n >= hi:
        print("%.0f" % ((n - n0) / (time.time() - t0)))
        break
    time.sleep(0.01)' "$TMP/out"
	timeout 130 ip netns exec "$NS_A" "$SKCAT" "${args[@]}" "$@" "$IP4_B" "$port" \
		<"$TMP/in" >/dev/null 2>"$TMP/$name.err" || fail "$name: skcat exit $?: $(tail -3 "$TMP/$name.err")"
	eval "wait_pid 30 \$PID_k$port" || fail "$name: socat did not finish"
	eval "wait_pid 10 \$PID_w$port" || fail "$name: no rate measured"
	rate=$(cat "$TMP/w$port.out")
	[ "$(sha256sum <"$TMP/in" | cut -d' ' -f1)" = "$(sha256sum <"$TMP/out" | cut -d' ' -f1)" ] ||
		fail "$name: data differs ($(stat -c %s "$TMP/out") bytes arrived)"
}

run capped 5101 --max-pacing-rate $RATE
echo "capped: the kernel received $rate B/s from 1 to 5 MiB at SO_MAX_PACING_RATE $RATE"
awk -v r="$rate" -v c=$RATE 'BEGIN{exit !(r >= 0.9*c && r <= 1.05*c)}' ||
	fail "capped: $rate B/s, want the cap $RATE (90 % to 105 %)"
[ "$(info "$TMP/capped.err" max_pacing_rate)" = $RATE ] ||
	fail "capped: --info max_pacing_rate $(info "$TMP/capped.err" max_pacing_rate), want $RATE"
pr=$(info "$TMP/capped.err" pacing_rate)
[ "$pr" -le $RATE ] || fail "capped: --info pacing_rate $pr above the cap $RATE"

run cc 5102 --pacing
pr=$(info "$TMP/cc.err" pacing_rate)
mr=$(info "$TMP/cc.err" max_pacing_rate)
echo "cc: the kernel received $rate B/s, pacing_rate $pr at the end"
[ "$mr" = 18446744073709551615 ] || fail "cc: max_pacing_rate $mr, want ~0UL (no cap)"
[ "$pr" -gt 0 ] && [ "$pr" != 18446744073709551615 ] ||
	fail "cc: pacing_rate $pr, want the CC's finite rate"
echo "PASS: SO_MAX_PACING_RATE caps skops against the kernel; --pacing paces at the CC rate"
