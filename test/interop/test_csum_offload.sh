#!/usr/bin/env bash
# Interop: a veth whose kernel end keeps its default transmit checksum offload
# hands af_packet frames with the TCP checksum left unfilled; skops cannot
# accept them (DPDK 22.11's af_packet PMD does not pass on the kernel's
# TP_STATUS_CSUMNOTREADY) and must say so in one line naming the fix, once,
# whether skcat connects or listens. With the offload off it connects.
. "$(dirname "$0")/lib.sh"
need_root_and_tools socat
SKCAT=${SKOPS_BUILD:?}/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
FIX="ethtool -K PEER tx off"
setup_netns
# The kernel's default for a veth, which setup_netns turned off.
in_b ethtool -K "$VETH_B" tx on >/dev/null 2>&1 || fail "ethtool -K $VETH_B tx on"
in_b ethtool -k "$VETH_B" | grep -q '^tx-checksumming: on' ||
	fail "$VETH_B: tx checksum offload did not turn on: $(in_b ethtool -k "$VETH_B" | grep tx-checksumming)"
listening() { # port: the kernel peer listens on it
	wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :$1' | grep -q LISTEN" ||
		fail "socat did not listen on $1"
}
args=(--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24")

one_notice() { # name errfile
	local n
	n=$(grep -c -F "$FIX" "$2")
	[ "$n" = 1 ] || {
		cat "$2"
		fail "$1: want the checksum-offload line once, got it $n times"
	}
	grep -F "$FIX" "$2" | grep -q "^skcat: [0-9]* TCP/UDP segment(s) dropped for bad checksums" ||
		fail "$1: unexpected line: $(grep -F "$FIX" "$2")"
	echo "ok: $1: $(grep -F "$FIX" "$2")"
}

# skcat client: the kernel's SYN-ACKs arrive unfilled.
bg ksrv timeout 60 ip netns exec "$NS_B" socat -T 30 TCP4-LISTEN:6001,reuseaddr -
listening 6001
echo hello | timeout 60 ip netns exec "$NS_A" "$SKCAT" "${args[@]}" --timeout 8 "$IP4_B" 6001 \
	>"$TMP/c.out" 2>"$TMP/c.err" && {
	cat "$TMP/c.err"
	fail "client: skcat connected through unfilled checksums (expected the notice and a timeout)"
}
one_notice "skcat client, offloading kernel server" "$TMP/c.err"
kill "$PID_ksrv" 2>/dev/null

# skcat server: the kernel's SYNs arrive unfilled.
bg sksrv timeout 60 ip netns exec "$NS_A" env SKCAT_VERBOSE=1 "$SKCAT" "${args[@]}" --timeout 10 -l 6002
wait_for 20 grep -q "port 0:" "$TMP/sksrv.err" || fail "skcat server did not start"
echo hi | timeout 20 ip netns exec "$NS_B" socat -T 5 - "TCP4:$IP4_A:6002,connect-timeout=5" \
	>/dev/null 2>&1 && fail "server: the kernel client connected through unfilled checksums"
wait_pid 30 "$PID_sksrv" >/dev/null
one_notice "skcat server, offloading kernel client" "$TMP/sksrv.err"

# The fix the line names: now it connects, and says nothing about checksums.
in_b ethtool -K "$VETH_B" tx off >/dev/null 2>&1 || fail "ethtool -K $VETH_B tx off"
bg ksrv2 timeout 60 ip netns exec "$NS_B" socat -u -T 30 TCP4-LISTEN:6003,reuseaddr "CREATE:$TMP/k.out"
listening 6003
echo "after the fix" | timeout 60 ip netns exec "$NS_A" "$SKCAT" "${args[@]}" --timeout 20 \
	"$IP4_B" 6003 >/dev/null 2>"$TMP/f.err" || {
	cat "$TMP/f.err"
	fail "after ethtool -K tx off: skcat did not connect"
}
wait_pid 30 "$PID_ksrv2" || fail "after the fix: socat did not finish"
grep -qx "after the fix" "$TMP/k.out" || fail "after the fix: the kernel got '$(cat "$TMP/k.out")'"
grep -q -F "$FIX" "$TMP/f.err" && fail "after the fix: the checksum line was printed"
echo "ok: after $FIX: connected, data arrived, no checksum line"
echo "PASS: checksum offload on a veth peer: one clear line, and the fix works"
