#!/usr/bin/env bash
# Interop: the ports that give the kernel peer its own fast path, each with a
# short skperf -> kernel iperf3 -s transfer whose byte counts both ends'
# -J documents must agree on: net_af_xdp on the veth (copy mode, one queue)
# and net_virtio_user over /dev/vhost-net (a tap moved into the kernel's
# namespace). Fails, naming what is missing, when the kernel has no
# vhost-net; never skips.
. "$(dirname "$0")/lib.sh"
need_root_and_tools iperf3 ss /usr/bin/python3
SKPERF=${SKOPS_BUILD:?}/apps/skperf/skperf
[ -x "$SKPERF" ] || fail "no skperf at $SKPERF"
CHECK="/usr/bin/python3 $(dirname "$0")/skperf_check.py"
N=$((2 << 20))
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
grep -q "port ready" "$TMP/skc.err" || fail "af_xdp: no 'port ready'"

need_vhost_net
transfer "virtio_user: skperf -c -> kernel iperf3 -s" $IP4_VU_B "$VU_VDEV" "$IP4_VU_A/24" vu_tap_to_b
echo "PASS: skperf -> kernel iperf3 over net_af_xdp and net_virtio_user"
