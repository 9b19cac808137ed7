#!/usr/bin/env bash
# Interop: skperf on af_packet against the kernel's iperf3 in both roles and
# both directions (-n SKOPS_SKPERF_MIB MiB, default 16: byte counts equal on
# both ends, from both ends' -J documents; then a -t run each way, -P 4,
# --bidir); then two skperf processes on the two ends of a second veth pair,
# each busy-polling on its own core, for --rr and --crr percentiles;
# skperf --plain against the kernel's echo (krr) both ways, --no-jit.
. "$(dirname "$0")/lib.sh"
need_root_and_tools iperf3 ss /usr/bin/python3
SKPERF=${SKOPS_BUILD:?}/apps/skperf/skperf
[ -x "$SKPERF" ] || fail "no skperf at $SKPERF"
CHECK="/usr/bin/python3 $(dirname "$0")/skperf_check.py"
MIB=${SKOPS_SKPERF_MIB:-16}
N=$((MIB << 20))
setup_netns
SK=(--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24")

# bad arguments: usage and status 2, before any port opens
"$SKPERF" -c 198.18.0.1 -s --addr "$IP4_A/24" 2>"$TMP/usage.err"
[ $? = 2 ] && grep -q usage "$TMP/usage.err" || fail "bad arguments: want usage and exit 2"
"$SKPERF" -c 198.18.0.1 --addr "$IP4_A/24" -P 0 2>/dev/null
[ $? = 2 ] || fail "-P 0: want exit 2"

port=5300
# sk_server NAME ARGS...: skperf -s -1 -J in the skops namespace
sk_server() {
	local name=$1
	shift
	port=$((port + 1))
	bg "$name" timeout 90 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -s -1 -J -p $port "$@"
	wait_for 20 grep -q "port ready" "$TMP/$name.err" || {
		cat "$TMP/$name.err"
		fail "$name: skperf server did not start"
	}
	sleep 0.3
}
k_server() {
	local name=$1
	port=$((port + 1))
	bg "$name" timeout 90 ip netns exec "$NS_B" iperf3 -s -1 -J -p $port
	wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :$port' | grep -q LISTEN" ||
		fail "$name: iperf3 -s did not listen"
}
finish() { # name pid-var: waits for a background end, shows its errors
	local pid
	eval "pid=\$PID_$1"
	wait_pid 60 "$pid" || {
		cat "$TMP/$1.err"
		fail "$2: $1 failed"
	}
}

for dir in "" -R; do
	what="kernel iperf3 -c ${dir:-(forward)} -> skperf -s"
	sk_server sksrv
	timeout 60 ip netns exec "$NS_B" iperf3 -c $IP4_A -p $port -n $N $dir -J >"$TMP/c.json" ||
		{ cat "$TMP/c.json" "$TMP/sksrv.err"; fail "$what: iperf3 -c failed"; }
	finish sksrv "$what"
	$CHECK bulk "$TMP/c.json" "$TMP/sksrv.out" $N >"$TMP/check" || fail "$what"
	echo "ok: $what: $(cat "$TMP/check")"

	what="skperf -c ${dir:-(forward)} -> kernel iperf3 -s"
	k_server ksrv
	timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -c $IP4_B -p $port -n $N $dir -J \
		>"$TMP/c.json" 2>"$TMP/skc.err" || { cat "$TMP/skc.err"; fail "$what: skperf -c failed"; }
	finish ksrv "$what"
	$CHECK bulk "$TMP/c.json" "$TMP/ksrv.out" $N >"$TMP/check" || fail "$what"
	echo "ok: $what: $(cat "$TMP/check")"
done

# time-bounded runs: bytes still equal (the receiving skperf reads what the
# sender reported; the sending skperf lets every byte be acknowledged first)
what="kernel iperf3 -c -t 2 -> skperf -s"
sk_server sksrv
timeout 60 ip netns exec "$NS_B" iperf3 -c $IP4_A -p $port -t 2 -J >"$TMP/c.json" ||
	fail "$what: iperf3 -c failed"
finish sksrv "$what"
$CHECK bulk "$TMP/c.json" "$TMP/sksrv.out" 0 >"$TMP/check" || fail "$what"
echo "ok: $what: $(cat "$TMP/check")"

what="skperf -c -t 2 -P 4 -> kernel iperf3 -s"
k_server ksrv
timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -c $IP4_B -p $port -t 2 -P 4 -J \
	>"$TMP/c.json" 2>"$TMP/skc.err" || { cat "$TMP/skc.err"; fail "$what: skperf -c failed"; }
finish ksrv "$what"
$CHECK bulk "$TMP/c.json" "$TMP/ksrv.out" 0 >"$TMP/check" || fail "$what"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["end"]["streams"]) == 4, "want 4 streams"' "$TMP/c.json" ||
	fail "$what: -P 4"
echo "ok: $what: $(cat "$TMP/check")"

what="kernel iperf3 -c --bidir -> skperf -s"
sk_server sksrv
timeout 60 ip netns exec "$NS_B" iperf3 -c $IP4_A -p $port -n $N --bidir -J >"$TMP/c.json" ||
	fail "$what: iperf3 -c failed"
finish sksrv "$what"
/usr/bin/python3 - "$TMP/c.json" "$TMP/sksrv.out" <<'PY' || fail "$what"
import json, sys
c, s = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("sum_sent", "sum_received", "sum_sent_bidir_reverse", "sum_received_bidir_reverse"):
    assert c["end"][k]["bytes"] > 0, f"client {k} empty"
    assert s["end"][k]["bytes"] == c["end"][k]["bytes"], f"{k}: {s['end'][k]['bytes']} != {c['end'][k]['bytes']}"
# iperf3 stops reading its reverse streams at TEST_END (3.12): only the
# forward direction, read to the last byte by skperf, must match exactly
assert c["end"]["sum_sent"]["bytes"] == c["end"]["sum_received"]["bytes"], "forward bytes differ"
PY
echo "ok: $what"

# skperf --plain against the kernel's echo server (test/bench/krr -s), with
# a program in the interpreter; then krr -c against skperf -s --plain
KRR=$SKOPS_BUILD/test/bench/krr
[ -x "$KRR" ] || fail "no $KRR (built with skops)"
OPC=$SKOPS_BUILD/hooks/progs/op_count.o
[ -f "$OPC" ] || fail "no $OPC (the example sock_ops programs are built with skops)"
port=$((port + 1))
bg kecho timeout 60 ip netns exec "$NS_B" "$KRR" -s $port
wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :$port' | grep -q LISTEN" || fail "krr -s"
for mode in "--rr 64" "--crr"; do
	timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" --plain -c $IP4_B -p $port -t 1 $mode \
		-J --sockops "$OPC" --no-jit >"$TMP/rr.json" 2>"$TMP/rr.err" ||
		{ cat "$TMP/rr.err"; fail "skperf --plain $mode against krr -s failed"; }
	$CHECK ${mode:2:3} "$TMP/rr.json" nojit >"$TMP/check" || fail "skperf --plain $mode"
	echo "ok: skperf --plain $mode -> kernel echo: $(cat "$TMP/check")"
done
kill "$PID_kecho"
port=$((port + 1))
bg skecho timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -s --plain -p $port
wait_for 20 grep -q "port ready" "$TMP/skecho.err" || fail "skperf -s --plain did not start"
sleep 0.3
for mode in rr crr; do
	timeout 30 ip netns exec "$NS_B" "$KRR" -c $IP4_A $port $mode 64 1 >"$TMP/k.json" ||
		{ cat "$TMP/skecho.err"; fail "krr -c $mode against skperf -s --plain failed"; }
	/usr/bin/python3 - "$TMP/k.json" <<'PY' || fail "krr -c $mode against skperf -s --plain"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["rtt_us"]
order = [p[k] for k in ("min", "p50", "p90", "p99", "p999", "max")]
assert d["count"] >= 10 and order == sorted(order) and order[0] > 0, d
assert d["cdf"]["us"] == sorted(d["cdf"]["us"]), d["cdf"]
PY
	echo "ok: kernel $mode -> skperf -s --plain: $(head -c 120 "$TMP/k.json")"
done
kill "$PID_skecho"
wait_pid 20 "$PID_skecho" || fail "skperf -s --plain did not end on SIGTERM: $(cat "$TMP/skecho.err")"
grep -q "echoed" "$TMP/skecho.err" || fail "skperf -s --plain: no count of echoed connections"

# skperf <-> skperf: a second veth pair, an skops stack on each end
VX=skp-x-$$
VY=skp-y-$$
in_a ip link add "$VX" type veth peer name "$VY" || fail "veth"
for v in "$VX" "$VY"; do
	in_a ip link set "$v" up
	in_a ethtool -K "$v" tx off rx off tso off gso off gro off >/dev/null 2>&1
done
# one core each when there are two: busy-polling ends must not share one
cores=$(nproc)
c1=0
c2=$((cores > 1 ? 1 : 0))
for mode in "--rr 64" "--crr"; do
	port=$((port + 1))
	bg skpp timeout 60 ip netns exec "$NS_A" "$SKPERF" --vdev "net_af_packet1,iface=$VX" \
		--eal "-l $c1" --addr 198.18.2.1/24 -s -1 -p $port
	wait_for 20 grep -q "port ready" "$TMP/skpp.err" || fail "skperf server on $VX did not start"
	sleep 0.3
	timeout 60 ip netns exec "$NS_A" "$SKPERF" --vdev "net_af_packet2,iface=$VY" \
		--eal "-l $c2" --addr 198.18.2.2/24 -c 198.18.2.1 -p $port -t 2 $mode -J --sockops "$OPC" \
		>"$TMP/rr.json" 2>"$TMP/rr.err" || { cat "$TMP/rr.err" "$TMP/skpp.err"; fail "skperf $mode failed"; }
	finish skpp "skperf $mode"
	$CHECK ${mode:2:3} "$TMP/rr.json" hooks >"$TMP/check" || fail "skperf $mode"
	echo "ok: skperf <-> skperf $mode: $(cat "$TMP/check")"
done
echo "PASS: skperf <-> iperf3 both roles and directions, skperf --plain <-> krr, skperf --rr and --crr"
