#!/usr/bin/env bash
# ports.sh: the kernel peer's path through each port, side by side in one
# run (root; not a test). For net_af_packet, net_af_xdp (both on the interop
# veth) and net_virtio_user over /dev/vhost-net (a tap in the kernel's
# namespace): skperf -c -> kernel iperf3 -s, one flow for SECS seconds, the
# same with -R (the kernel sends), and skperf --plain --rr 64 ->
# test/bench/krr -s. Each figure is the median of
# REPS runs, ports interleaved within a repetition so load drift hits them
# alike; ratios are to af_packet. A port that cannot run here (no vhost-net)
# or a run that fails is reported as such, the others still measured.
# Usage: test/bench/ports.sh [OUT.json]   env: SKOPS_BUILD (build), SECS (3),
# REPS (3). Prints the JSON, then a Markdown table.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/test/interop/lib.sh"
need_root_and_tools iperf3 ss taskset /usr/bin/python3
B=${SKOPS_BUILD:-$ROOT/build}
SKPERF=$B/apps/skperf/skperf
KRR=$B/test/bench/krr
for f in "$SKPERF" "$KRR"; do [ -x "$f" ] || fail "missing $f (ninja -C $B)"; done
SECS=${SECS:-3}
REPS=${REPS:-3}
OUT=${1:-}
C1=0
C2=$(($(nproc) > 1 ? 1 : 0))
setup_netns
RES=$TMP/results
: >"$RES"
port=5500

listening() { wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :$1' | grep -q LISTEN"; }
# note PORT METRIC VALUE|error:WHY (the rest of the line)
note() { printf '%s %s %s\n' "$1" "$2" "$3" >>"$RES"; }
# why NAME: skperf's last word on a failed run (the PMD's close messages follow)
why() { grep 'skperf:' "$TMP/$1.err" | tail -1 || echo "exit without a message"; }

# sk NAME VDEV ADDR SETUP ARGS...: skperf in NS_A on core C1, -J to $TMP/NAME.out;
# SETUP runs once it started (virtio_user's tap appears then)
sk() {
	local name=$1 vdev=$2 addr=$3 setup=$4
	shift 4
	bg "$name" timeout $((SECS + 30)) ip netns exec "$NS_A" taskset -c $C1 "$SKPERF" \
		--vdev "$vdev" --addr "$addr" --eal "-l $C1" "$@" -J
	[ "$setup" = - ] || $setup
	local pid
	eval "pid=\$PID_$name"
	wait_pid $((SECS + 30)) "$pid"
}

# measure PORT VDEV ADDR PEER SETUP
measure() {
	local p=$1 vdev=$2 addr=$3 peer=$4 setup=$5 v
	port=$((port + 1))
	bg ks timeout $((SECS + 40)) ip netns exec "$NS_B" taskset -c $C2 iperf3 -s -1 -p $port
	listening $port || fail "iperf3 -s did not listen"
	if sk bulk "$vdev" "$addr" "$setup" -c "$peer" -p $port -t "$SECS" &&
		v=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_sent"]["bits_per_second"]/1e9)' "$TMP/bulk.out"); then
		note "$p" bulk_gbps "$v"
	else
		note "$p" bulk_gbps "error:$(why bulk)"
	fi
	kill "$PID_ks" 2>/dev/null
	[ "$setup" = - ] || in_b ip link del "$VU_TAP" 2>/dev/null
	port=$((port + 1))
	bg ks timeout $((SECS + 40)) ip netns exec "$NS_B" taskset -c $C2 iperf3 -s -1 -p $port
	listening $port || fail "iperf3 -s did not listen"
	if sk rev "$vdev" "$addr" "$setup" -c "$peer" -p $port -t "$SECS" -R &&
		v=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]/1e9)' "$TMP/rev.out"); then
		note "$p" rev_gbps "$v"
	else
		note "$p" rev_gbps "error:$(why rev)"
	fi
	kill "$PID_ks" 2>/dev/null
	[ "$setup" = - ] || in_b ip link del "$VU_TAP" 2>/dev/null
	port=$((port + 1))
	bg kr timeout $((SECS + 40)) ip netns exec "$NS_B" taskset -c $C2 "$KRR" -s $port
	listening $port || fail "krr -s did not listen"
	if sk rr "$vdev" "$addr" "$setup" --plain -c "$peer" -p $port --rr 64 -t "$SECS" &&
		v=$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["end"]["rr"]; print(r["rtt_us"]["p50"], r["rtt_us"]["p99"])' "$TMP/rr.out"); then
		note "$p" rr64_p50_us "${v% *}"
		note "$p" rr64_p99_us "${v#* }"
	else
		note "$p" rr64_p50_us "error:$(why rr)"
	fi
	kill "$PID_kr" 2>/dev/null
	[ "$setup" = - ] || in_b ip link del "$VU_TAP" 2>/dev/null
	sleep 0.3
}

vu_ok=1
[ -c /dev/vhost-net ] || vu_ok=0
for ((r = 0; r < REPS; r++)); do
	measure af_packet "$AF_PACKET_VDEV" "$IP4_A/24" $IP4_B -
	measure af_xdp "$AF_XDP_VDEV" "$IP4_A/24" $IP4_B -
	if [ $vu_ok = 1 ]; then
		measure virtio_user "$VU_VDEV" "$IP4_VU_A/24" $IP4_VU_B vu_tap_to_b
	else
		for m in bulk_gbps rev_gbps rr64_p50_us; do
			note virtio_user $m "error:no /dev/vhost-net (a kernel without CONFIG_VHOST_NET)"
		done
	fi
done

/usr/bin/python3 - "$RES" "$SECS" "$REPS" "$OUT" <<'PY'
import json, statistics, sys
res, secs, reps, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ports = ["af_packet", "af_xdp", "virtio_user"]
metrics = ["bulk_gbps", "rev_gbps", "rr64_p50_us", "rr64_p99_us"]
vals = {p: {m: [] for m in metrics} for p in ports}
errs = {p: [] for p in ports}
for line in open(res):
    p, m, v = line.rstrip("\n").split(" ", 2)
    if v.startswith("error:"):
        errs[p].append(f"{m}: {v[6:]}")
    else:
        vals[p][m].append(float(v))
doc = {"secs": secs, "reps": reps, "ports": {}}
for p in ports:
    d = {m: {"median": statistics.median(vals[p][m]), "runs": vals[p][m]}
         for m in metrics if vals[p][m]}
    if errs[p]:
        d["failed_runs"] = len(errs[p])
        d["errors"] = sorted(set(errs[p]))
    doc["ports"][p] = d
base = doc["ports"]["af_packet"]
for p in ports:
    d = doc["ports"][p]
    d["ratio_to_af_packet"] = {m: round(d[m]["median"] / base[m]["median"], 3)
                               for m in metrics if m in d and m in base and base[m]["median"]}
text = json.dumps(doc, indent=1)
print(text)
if out:
    open(out, "w").write(text + "\n")
print(f"\n| port | skperf -> iperf3 -s, Gbit/s (x af_packet) | -R: iperf3 -s -> skperf, Gbit/s (x) "
      f"| rr 64 p50 us (x) | rr 64 p99 us (x) | failed runs |")
print("| --- | --- | --- | --- | --- | --- |")
for p in ports:
    d = doc["ports"][p]
    cell = lambda m, f: (f"{d[m]['median']:{f}} ({d['ratio_to_af_packet'].get(m, float('nan')):.2f})"
                         if m in d else "-")
    print(f"| {p} | {cell('bulk_gbps', '.3f')} | {cell('rev_gbps', '.3f')} | {cell('rr64_p50_us', '.0f')} | "
          f"{cell('rr64_p99_us', '.0f')} | {d.get('failed_runs', 0)} of {3 * reps}: "
          f"{'; '.join(d.get('errors', [])) or 'none'} |")
PY
