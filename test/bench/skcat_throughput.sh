#!/usr/bin/env bash
# Benchmark (not a test): skcat throughput against the kernel over af_packet
# on a veth (skcat -> kernel and kernel -> skcat), the kernel against itself
# over the same veth as a reference, and skcat <-> skcat over memif. Prints
# one JSON object. Root; MIB (default 64) per transfer.
#   test/bench/skcat_throughput.sh [BUILD_DIR]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
export SKOPS_BUILD=$BUILD
. "$ROOT/test/interop/lib.sh"
need_root_and_tools socat
SKCAT=$BUILD/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
MIB=${MIB:-64}
setup_netns
head -c $((MIB << 20)) /dev/urandom >"$TMP/in"

now() { date +%s.%N; }
mbps() { awk -v a="$1" -v b="$2" -v m="$MIB" 'BEGIN{printf "%.1f", m*8*1.048576/(b-a)}'; }

# skcat -> kernel
bg k1 timeout 200 ip netns exec "$NS_B" socat -u TCP4-LISTEN:6001,reuseaddr "CREATE:$TMP/o1"
wait_for 10 ip netns exec "$NS_B" ss -ltn "sport = :6001" | grep -q LISTEN
t0=$(now)
timeout 200 ip netns exec "$NS_A" "$SKCAT" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	--timeout 180 "$IP4_B" 6001 <"$TMP/in" >/dev/null 2>"$TMP/e1" || fail "skcat->kernel: $(cat "$TMP/e1")"
t1=$(now)
wait_pid 30 "$PID_k1"
tx=$(mbps "$t0" "$t1")

# kernel -> skcat
BG_IN=/dev/null bg s2 timeout 200 ip netns exec "$NS_A" env SKCAT_VERBOSE=1 "$SKCAT" \
	--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --timeout 180 -l 6002
wait_for 20 grep -q "port 0:" "$TMP/s2.err"
sleep 0.5
t0=$(now)
timeout 200 ip netns exec "$NS_B" socat -u "OPEN:$TMP/in" "TCP4:$IP4_A:6002" || fail "kernel->skcat"
wait_pid 60 "$PID_s2"
t1=$(now)
rx=$(mbps "$t0" "$t1")

# kernel -> kernel over the same veth (reference): give a its address back
ip netns exec "$NS_A" ip addr add "$IP4_A/24" dev "$VETH_A"
bg k3 timeout 200 ip netns exec "$NS_A" socat -u TCP4-LISTEN:6003,reuseaddr "CREATE:$TMP/o3"
wait_for 10 ip netns exec "$NS_A" ss -ltn "sport = :6003" | grep -q LISTEN
t0=$(now)
timeout 200 ip netns exec "$NS_B" socat -u "OPEN:$TMP/in" "TCP4:$IP4_A:6003"
wait_pid 60 "$PID_k3"
t1=$(now)
kk=$(mbps "$t0" "$t1")
ip netns exec "$NS_A" ip addr del "$IP4_A/24" dev "$VETH_A"

# skcat <-> skcat over memif (two processes, one lcore each)
SOCK=$TMP/memif.sock
BG_IN=/dev/null bg m1 timeout 200 env SKCAT_VERBOSE=1 "$SKCAT" \
	--vdev "net_memif0,role=server,id=0,socket=$SOCK,socket-abstract=no" \
	--addr 198.18.2.2/24 --eal "-l 0" --timeout 180 -l 6004
wait_for 20 grep -q "port 0:" "$TMP/m1.err"
t0=$(now)
timeout 200 "$SKCAT" --vdev "net_memif0,role=client,id=0,socket=$SOCK,socket-abstract=no" \
	--addr 198.18.2.1/24 --eal "-l 1" --timeout 180 198.18.2.2 6004 <"$TMP/in" >/dev/null 2>"$TMP/e4" ||
	fail "memif client: $(cat "$TMP/e4")"
wait_pid 60 "$PID_m1"
t1=$(now)
mm=$(mbps "$t0" "$t1")
printf '{"mib":%d,"af_packet_skcat_to_kernel_mbit_s":%s,"af_packet_kernel_to_skcat_mbit_s":%s,' "$MIB" "$tx" "$rx"
printf '"veth_kernel_to_kernel_mbit_s":%s,"memif_skcat_to_skcat_mbit_s":%s}\n' "$kk" "$mm"
