#!/usr/bin/env bash
# The main job, live: skopsd on an af_packet veth in one netns, the Linux
# kernel in another; two example sock_ops programs attached to two cgroups;
# two unmodified servers (socat) under skops-run, one in each cgroup; the
# kernel connects to each. Printed per connection: what the hooks did
# (skopsd's log: the programs' trace lines, cb_flags, the SYN-ACK window,
# RTO, cwnd and CC) next to the same connection as the kernel sees it
# (ss -ti). Root; about 15 s; everything is removed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${SKOPS_BUILD:-build}
P=$B/hooks/progs
for f in "$B/apps/skopsd/skopsd" "$B/apps/skops-run" "$B/apps/preload/libskops_preload.so" \
	"$P/rwnd_init.o" "$P/syn_rto.o" "$P/cb_logger.o"; do
	[ -e "$f" ] || { echo "demo: $f not built (make build)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "demo: needs root (netns, veth, af_packet, cgroups)" >&2; exit 1; }
for t in ip ss socat ethtool; do
	command -v $t >/dev/null || { echo "demo: missing $t (scripts/install-deps.sh)" >&2; exit 1; }
done
# the cgroup v2 hierarchy: /sys/fs/cgroup on a unified host, .../unified on a hybrid one
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -f $CGROOT/cgroup.procs ] || { echo "demo: no cgroup v2 hierarchy mounted (${CGROOT:-none in /proc/mounts})" >&2; exit 1; }
A=skops-demo-a-$$ K=skops-demo-k-$$ VA=skd-a-$$ VK=skd-k-$$
CGA=skops-demo-far-$$ CGB=skops-demo-near-$$
TMP=$(mktemp -d /tmp/skops-demo-XXXXXX)
PIDS=()
done_() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	sleep 0.3
	for c in $CGA $CGB; do
		for p in $(cat $CGROOT/$c/cgroup.procs 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	done
	sleep 0.2
	rmdir $CGROOT/$CGA $CGROOT/$CGB 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $K 2>/dev/null
	rm -rf "$TMP"
}
trap done_ EXIT
step() { printf '\n== %s\n' "$*"; }

step "two netns: $A (skopsd on af_packet, no kernel address) and $K (the Linux kernel)"
ip netns add $A && ip netns add $K || exit 1
ip link add $VA type veth peer name $VK
ip link set $VA netns $A
ip link set $VK netns $K
ip netns exec $A sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec $A ip link set $VA up
ip netns exec $A ip link set lo up
ip netns exec $K ip -6 addr add fd00:1::1/64 dev $VK nodad
ip netns exec $K ip -6 addr add fd00:2::1/16 dev $VK nodad
ip netns exec $K ip link set $VK up
for n in "$A $VA" "$K $VK"; do
	set -- $n
	ip netns exec "$1" ethtool -K "$2" tx off rx off tso off gso off gro off >/dev/null 2>&1
done
mkdir $CGROOT/$CGA $CGROOT/$CGB
step "skopsd: cb_logger.o then rwnd_init.o on /$CGA (far peers: a 40-segment window)," \
	"cb_logger.o then syn_rto.o on /$CGB (near peers: a 10 ms SYN-ACK timeout);" \
	"the last program's reply is the one that counts, as in the kernel"
ip netns exec $A "$B/apps/skopsd/skopsd" --vdev "net_af_packet0,iface=$VA" \
	--addr fd00:1::2/16 --addr fd00:1::3/16 --sock "$TMP/skopsd.sock" -v \
	--attach "/$CGA=$P/cb_logger.o:multi" --attach "/$CGA=$P/rwnd_init.o:multi" \
	--attach "/$CGB=$P/cb_logger.o:multi" --attach "/$CGB=$P/syn_rto.o:multi" \
	2>"$TMP/skopsd.log" &
PIDS+=($!)
for i in $(seq 100); do grep -q "serving on" "$TMP/skopsd.log" && break; sleep 0.1; done
grep "attached\|serving" "$TMP/skopsd.log" | sed 's/^/  /'

step "two unmodified servers under skops-run, one per cgroup (socat, port 55601)"
srv() { # CGROUP ADDR
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROOT/$1" ip netns exec $A timeout 30 \
		"$B/apps/skops-run" --sock "$TMP/skopsd.sock" -- \
		socat TCP6-LISTEN:55601,bind=[$2],fork SYSTEM:'echo hello from skops; sleep 2' &
	PIDS+=($!)
	echo "  cgroup /$1: skops-run -- socat TCP6-LISTEN:55601,bind=[$2],fork ..."
}
srv $CGA fd00:1::2
srv $CGB fd00:1::3
sleep 1

conn() { # LABEL SERVER CLIENT_SRC
	step "$1: the kernel at [$3] connects to [$2]:55601"
	# the kernel keeps its side open 1.5 s, so ss sees the connection
	{ sleep 1.5 | ip netns exec $K socat -t3 - "TCP6:[$2]:55601,bind=[$3]" >"$TMP/c.out"; } &
	local c=$!
	sleep 0.7
	echo "  kernel side (ss -ti):"
	ip netns exec $K ss -tinH "dport = :55601" | sed 's/^/    /'
	wait $c
	echo "  got: $(head -1 "$TMP/c.out")"
}
conn "far peer, cgroup /$CGA" fd00:1::2 fd00:2::1
conn "near peer, cgroup /$CGB" fd00:1::3 fd00:1::1
sleep 2.5

step "skops side: what the hooks did per connection (skopsd -v)"
grep -E "conn |trace:" "$TMP/skopsd.log" | sed 's/^skopsd: /  /'
cat <<'TXT'

  Read the "established" lines: rwnd_init answered RWND_INIT with 40 segments for the
  far peer only (syn_wnd: the window of skops's SYN-ACK), syn_rto answered TIMEOUT_INIT
  with 10 ms for the near peer only (syn_rto_ms), cb_logger turned on the RTO,
  retransmit and state callbacks for both (cb_flags 7, the "cb op 10" state-change
  traces). Each connection carries the cgroup of the process that accepted it.
TXT
