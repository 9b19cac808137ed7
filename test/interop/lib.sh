# lib.sh: the interop harness. Sourced by each test: two network namespaces
# skops-a-$$ (the skops side: a veth without kernel addresses, driven through
# DPDK net_af_packet) and skops-b-$$ (the Linux kernel peer), addresses in
# 198.18.0.0/15 and fd00::/8, cleanup by trap, a timeout on everything.
set -uo pipefail

NS_A=skops-a-$$
NS_B=skops-b-$$
VETH_A=skv-a-$$
VETH_B=skv-b-$$
IP4_A=198.18.0.2
IP4_B=198.18.0.1
IP6_A=fd00:1::2
IP6_B=fd00:1::1
TMP=$(mktemp -d /tmp/skops-interop-XXXXXX)
PIDS=()

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

need_root_and_tools() {
	[ "$(id -u)" = 0 ] || fail "interop tests need root (netns, veth, af_packet)"
	for t in ip ethtool timeout "$@"; do
		command -v "$t" >/dev/null 2>&1 || fail "missing tool '$t' (scripts/install-deps.sh)"
	done
}

cleanup() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	sleep 0.2
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		echo "kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# setup_netns: the veth pair, kernel addresses on the b side only, every
# offload off on both ends (af_packet sees the frames as the wire would:
# no partial checksums, no GSO super-frames).
setup_netns() {
	ip netns add "$NS_A" || fail "ip netns add"
	ip netns add "$NS_B" || fail "ip netns add"
	ip link add "$VETH_A" type veth peer name "$VETH_B" || fail "veth"
	ip link set "$VETH_A" netns "$NS_A"
	ip link set "$VETH_B" netns "$NS_B"
	ip netns exec "$NS_A" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$NS_A" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip netns exec "$NS_A" ip link set lo up
	ip netns exec "$NS_A" ip link set "$VETH_A" up
	ip netns exec "$NS_B" ip link set lo up
	ip netns exec "$NS_B" ip addr add "$IP4_B/24" dev "$VETH_B"
	ip netns exec "$NS_B" ip -6 addr add "$IP6_B/64" dev "$VETH_B" nodad
	ip netns exec "$NS_B" ip link set "$VETH_B" up
	ip netns exec "$NS_A" ethtool -K "$VETH_A" tx off rx off tso off gso off gro off >/dev/null 2>&1
	ip netns exec "$NS_B" ethtool -K "$VETH_B" tx off rx off tso off gso off gro off >/dev/null 2>&1
}

# shim_bins: SKOPSD and RUN from $SKOPS_BUILD, with the shim beside them
shim_bins() {
	local b=${SKOPS_BUILD:?} f
	SKOPSD=$b/apps/skopsd/skopsd
	RUN=$b/apps/skops-run
	for f in "$SKOPSD" "$RUN" "$b/apps/preload/libskops_preload.so"; do
		[ -e "$f" ] || fail "missing $f (build first)"
	done
}

in_a() { ip netns exec "$NS_A" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }

# bg NAME CMD...: runs CMD in the background, output in $TMP/NAME.{out,err},
# input from $BG_IN (default /dev/null).
bg() {
	local name=$1
	shift
	"$@" <"${BG_IN:-/dev/null}" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PIDS+=($!)
	eval "PID_$name=$!"
}

# wait_for SECONDS CMD...: polls CMD every 0.1 s until it succeeds.
wait_for() {
	local t=$1
	shift
	local i
	for ((i = 0; i < t * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# wait_pid SECONDS PID: waits for PID to exit; returns its status, 124 on timeout.
wait_pid() {
	local t=$1 pid=$2 i
	for ((i = 0; i < t * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			return $?
		fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	return 124
}

AF_PACKET_VDEV="net_af_packet0,iface=$VETH_A"
# AF_XDP on the same veth: one queue (the veth's default is one channel;
# frames on another queue would miss the socket and go to the kernel)
AF_XDP_VDEV="net_af_xdp0,iface=$VETH_A,start_queue=0,queue_count=1"
# virtio_user over vhost-net: the PMD creates tap $VU_TAP in skops's
# namespace; vu_tap_to_b moves it to the kernel's with $IP4_VU_B
VU_TAP=skt-$$
IP4_VU_A=198.18.1.2
IP4_VU_B=198.18.1.1
VU_VDEV="net_virtio_user0,path=/dev/vhost-net,queue_size=1024,iface=$VU_TAP"

need_vhost_net() {
	[ -c /dev/vhost-net ] ||
		fail "no /dev/vhost-net: virtio_user needs the kernel's vhost-net (CONFIG_VHOST_NET, modprobe vhost_net)"
}

# vu_tap_to_b: waits for the tap the virtio_user PMD created in NS_A, moves
# it to NS_B with the kernel's address, offloads left on (the PMD asks for
# checksum offload through the virtio-net header)
vu_tap_to_b() {
	wait_for 20 in_a ip link show "$VU_TAP" || fail "virtio_user: no tap $VU_TAP appeared"
	in_a ip link set "$VU_TAP" netns "$NS_B" || fail "move $VU_TAP"
	in_b ip addr add "$IP4_VU_B/24" dev "$VU_TAP" || fail "address on $VU_TAP"
	in_b ip link set "$VU_TAP" up || fail "$VU_TAP up"
}

# nginx_conf DIR WORKERS CONNECTIONS ["HTTP DIRECTIVES;"]: DIR/nginx.conf
# for a foreground nginx serving DIR/www on port 8081, its pid, log and
# temporary files under DIR (DIR/tmp must exist)
nginx_conf() {
	local d=$1 workers=$2 conns=$3
	shift 3
	cat >"$d/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes $workers;
user root;
pid $d/nginx.pid;
error_log $d/error.log notice;
events { worker_connections $conns; }
http {
	access_log off;
	$*
	client_body_temp_path $d/tmp/body;
	proxy_temp_path $d/tmp/proxy;
	fastcgi_temp_path $d/tmp/fastcgi;
	uwsgi_temp_path $d/tmp/uwsgi;
	scgi_temp_path $d/tmp/scgi;
	server {
		listen 8081;
		root $d/www;
	}
}
CONF
}
