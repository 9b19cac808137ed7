#!/usr/bin/env bash
# Interop: the ports that give the kernel peer its own fast path, each with
# an skperf -> kernel iperf3 -s transfer whose byte counts both ends' -J
# documents must agree on: net_af_xdp on the veth (copy mode, one queue),
# 64 MiB, more frames than the port's pool has mbufs (a pool whose memory
# ran past what DPDK 22.11's af_xdp registers stalled sending for good after
# some 10-20 thousand frames: dev_ethdev.c "packed"); af_xdp with the peer's
# checksum offload on must name the fix.
# net_virtio_user over /dev/vhost-net is not tested: the kernels this project
# runs on have no vhost-net (CONFIG_VHOST_NET unset), so it is documented in
# the README ("Ports") from DPDK's code; `need_vhost_net` and `vu_tap_to_b`
# in lib.sh run it by hand where vhost-net exists.
. "$(dirname "$0")/lib.sh"
need_root_and_tools iperf3 ss /usr/bin/python3
SKPERF=${SKOPS_BUILD:?}/apps/skperf/skperf
[ -x "$SKPERF" ] || fail "no skperf at $SKPERF"
CHECK="/usr/bin/python3 $(dirname "$0")/skperf_check.py"
N=$((64 << 20))
setup_netns

port=5400
k_server() {
	port=$((port + 1))
	bg ksrv timeout 30 ip netns exec "$NS_B" iperf3 -s -1 -J -p $port
	wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :$port' | grep -q LISTEN" ||
		fail "iperf3 -s did not listen"
}
# transfer WHAT PEER VDEV ADDR [SETUP]: skperf -c -n N in NS_A against the
# kernel's iperf3 -s; SETUP runs once skperf is started (the tap appears then)
transfer() {
	local what=$1 peer=$2 vdev=$3 addr=$4 setup=${5:-}
	k_server
	bg skc timeout 20 ip netns exec "$NS_A" "$SKPERF" --vdev "$vdev" --addr "$addr" --eal "-l 0" \
		-c "$peer" -p $port -n $N -J
	[ -n "$setup" ] && $setup
	wait_pid 20 "$PID_skc" || { cat "$TMP/skc.err"; fail "$what: skperf -c failed"; }
	wait_pid 10 "$PID_ksrv" || { cat "$TMP/ksrv.err"; fail "$what: iperf3 -s failed"; }
	$CHECK bulk "$TMP/skc.out" "$TMP/ksrv.out" $N >"$TMP/check" || fail "$what"
	echo "ok: $what: $(cat "$TMP/check")"
}

transfer "af_xdp: skperf -c -> kernel iperf3 -s" $IP4_B "$AF_XDP_VDEV" "$IP4_A/24"

# af_xdp hands over the peer's skbs as they are: with the peer's transmit
# checksum offload on, the SYN-ACK comes unsummed, and skops, counting
# af_xdp as a host port, names the fix instead of timing out silently
in_b ethtool -K "$VETH_B" tx on >/dev/null 2>&1 || fail "ethtool -K $VETH_B tx on"
k_server
timeout 20 ip netns exec "$NS_A" "$SKPERF" --vdev "$AF_XDP_VDEV" --addr "$IP4_A/24" --eal "-l 0" \
	-c $IP4_B -p $port -t 1 >/dev/null 2>"$TMP/csum.err" && fail "af_xdp: connected through unsummed segments"
grep -q "ethtool -K PEER tx off" "$TMP/csum.err" ||
	{ cat "$TMP/csum.err"; fail "af_xdp: no bad-checksum hint with the peer's tx offload on"; }
echo "ok: af_xdp: the peer's unsummed segments named: $(grep -o '[0-9]* TCP/UDP segment(s) dropped' "$TMP/csum.err")"
in_b ethtool -K "$VETH_B" tx off >/dev/null 2>&1
kill "$PID_ksrv" 2>/dev/null

echo "PASS: skperf -> kernel iperf3 over net_af_xdp"
