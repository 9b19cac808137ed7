#!/usr/bin/env bash
# The benchmark suite (not a test; `make bench`): skops against the Linux
# kernel on this machine, each end pinned to its own core.
#   test/bench/run.sh [--quick] [BUILD_DIR]
# Configurations: kernel<->kernel over a veth with offloads on and off,
# skperf<->kernel iperf3 over af_packet both ways, skperf<->skperf over memif
# (two processes). Figures: bulk with 1 and 4 flows (iperf3 -J / skperf -J),
# 64-byte RR latency p50/p99/p99.9 and CRR per second (skperf --rr/--crr;
# test/bench/krr on the kernel), and the CRR and RR cost of 0, 1 and 8
# sock_ops programs (op_count.o, JIT). Each figure is the median of REPS
# runs (1 with --quick) with min and max, and its ratio to the kernel
# baseline of the same run. Writes bench-results/bench-DATE.json, .md, -bulk.png
# (OUT=DIR to change) and prints the Markdown table. Root.
set -uo pipefail
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1 && shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
export SKOPS_BUILD=$BUILD
. "$ROOT/test/interop/lib.sh"
need_root_and_tools iperf3 ss taskset /usr/bin/python3
SKPERF=$BUILD/apps/skperf/skperf
KRR=$BUILD/test/bench/krr
OPC=$BUILD/hooks/progs/op_count.o
for f in "$SKPERF" "$KRR" "$OPC"; do [ -e "$f" ] || fail "missing $f (build first)"; done
SECS=${SECS:-$([ $QUICK = 1 ] && echo 2 || echo 10)}
REPS=${REPS:-$([ $QUICK = 1 ] && echo 1 || echo 3)}
OUT=${OUT:-$ROOT/bench-results}
mkdir -p "$OUT"
C1=0
C2=$(($(nproc) > 1 ? 1 : 0))
RES=$TMP/results.jsonl
: >"$RES"
setup_netns
port=7000

# record CONFIG FIGURE UNIT VALUE...: one line per figure, every repetition
record() {
	local cfg=$1 fig=$2 unit=$3
	shift 3
	printf '{"config":"%s","figure":"%s","unit":"%s","values":[%s]}\n' "$cfg" "$fig" "$unit" \
		"$(IFS=,; echo "$*")" >>"$RES"
	echo "  $cfg $fig: $* $unit" >&2
}
jq_py() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# kernel <-> kernel over the veth: a gets its address back for these
kernel_kernel() {
	local tag=$1 off=$2 p v1=() v4=() rr50=() rr99=() rr999=() crr=()
	if [ "$off" = 1 ]; then
		in_a ethtool -K "$VETH_A" tx off rx off tso off gso off gro off >/dev/null 2>&1
		in_b ethtool -K "$VETH_B" tx off rx off tso off gso off gro off >/dev/null 2>&1
	else
		in_a ethtool -K "$VETH_A" tx on rx on tso on gso on gro on >/dev/null 2>&1
		in_b ethtool -K "$VETH_B" tx on rx on tso on gso on gro on >/dev/null 2>&1
	fi
	in_a ip addr add "$IP4_A/24" dev "$VETH_A" 2>/dev/null
	for ((r = 0; r < REPS; r++)); do
		for P in 1 4; do
			port=$((port + 1))
			bg ks timeout 60 ip netns exec "$NS_A" taskset -c $C1 iperf3 -s -1 -p $port
			wait_for 10 sh -c "ip netns exec $NS_A ss -ltn 'sport = :$port' | grep -q LISTEN"
			timeout 60 ip netns exec "$NS_B" taskset -c $C2 iperf3 -c $IP4_A -p $port -t "$SECS" -P $P -J \
				>"$TMP/k.json" || fail "kernel iperf3 $tag"
			wait_pid 20 "$PID_ks"
			v=$(jq_py "$TMP/k.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
			[ $P = 1 ] && v1+=("$v") || v4+=("$v")
		done
		port=$((port + 1))
		bg kr timeout 60 ip netns exec "$NS_A" taskset -c $C1 "$KRR" -s $port
		wait_for 10 sh -c "ip netns exec $NS_A ss -ltn 'sport = :$port' | grep -q LISTEN"
		timeout 60 ip netns exec "$NS_B" taskset -c $C2 "$KRR" -c $IP4_A $port rr 64 "$SECS" >"$TMP/r.json" ||
			fail "krr rr $tag"
		rr50+=("$(jq_py "$TMP/r.json" 'd["rtt_us"]["p50"]')")
		rr99+=("$(jq_py "$TMP/r.json" 'd["rtt_us"]["p99"]')")
		rr999+=("$(jq_py "$TMP/r.json" 'd["rtt_us"]["p999"]')")
		timeout 60 ip netns exec "$NS_B" taskset -c $C2 "$KRR" -c $IP4_A $port crr 64 "$SECS" >"$TMP/r.json" ||
			fail "krr crr $tag"
		crr+=("$(jq_py "$TMP/r.json" 'd["per_s"]')")
		kill "$PID_kr" 2>/dev/null
	done
	in_a ip addr del "$IP4_A/24" dev "$VETH_A"
	in_a ethtool -K "$VETH_A" tx off rx off tso off gso off gro off >/dev/null 2>&1
	in_b ethtool -K "$VETH_B" tx off rx off tso off gso off gro off >/dev/null 2>&1
	record "$tag" bulk_1 Mbit/s "${v1[@]}"
	record "$tag" bulk_4 Mbit/s "${v4[@]}"
	record "$tag" rr64_p50 us "${rr50[@]}"
	record "$tag" rr64_p99 us "${rr99[@]}"
	record "$tag" rr64_p999 us "${rr999[@]}"
	record "$tag" crr64 per_s "${crr[@]}"
}

SK=(--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --eal "-l $C1")
skops_kernel() {
	local tx1=() tx4=() rx1=() rx4=()
	for ((r = 0; r < REPS; r++)); do
		for P in 1 4; do
			port=$((port + 1))
			bg ks timeout 60 ip netns exec "$NS_B" taskset -c $C2 iperf3 -s -1 -p $port
			wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :$port' | grep -q LISTEN"
			timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -c $IP4_B -p $port -t "$SECS" -P $P -J \
				>"$TMP/s.json" 2>"$TMP/s.err" || fail "skperf -c: $(cat "$TMP/s.err")"
			wait_pid 20 "$PID_ks"
			v=$(jq_py "$TMP/s.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
			[ $P = 1 ] && tx1+=("$v") || tx4+=("$v")
			port=$((port + 1))
			bg ss timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -s -1 -p $port
			wait_for 20 grep -q "port ready" "$TMP/ss.err" || fail "skperf -s did not start"
			sleep 0.3
			timeout 60 ip netns exec "$NS_B" taskset -c $C2 iperf3 -c $IP4_A -p $port -t "$SECS" -P $P -J \
				>"$TMP/k.json" || fail "iperf3 -c to skperf"
			wait_pid 20 "$PID_ss"
			v=$(jq_py "$TMP/k.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
			[ $P = 1 ] && rx1+=("$v") || rx4+=("$v")
		done
	done
	record skops_to_kernel bulk_1 Mbit/s "${tx1[@]}"
	record skops_to_kernel bulk_4 Mbit/s "${tx4[@]}"
	record kernel_to_skops bulk_1 Mbit/s "${rx1[@]}"
	record kernel_to_skops bulk_4 Mbit/s "${rx4[@]}"
}

# skperf <-> skperf over memif: server on core C1, client on core C2
mm_run() { # OUTFILE SERVER-EXTRA -- CLIENT ARGS...
	local out=$1 sx=$2
	shift 3
	local sock=$TMP/memif-$port.sock
	port=$((port + 1))
	bg mm timeout 90 "$SKPERF" --vdev "net_memif0,role=server,id=0,socket=$sock,socket-abstract=no" \
		--addr 198.18.3.1/24 --eal "-l $C1" -s -1 -p $port $sx
	wait_for 20 grep -q "port ready" "$TMP/mm.err" || fail "memif skperf -s: $(cat "$TMP/mm.err")"
	sleep 0.5 # the listener opens after the port, the memif link comes up meanwhile
	timeout 90 "$SKPERF" --vdev "net_memif0,role=client,id=0,socket=$sock,socket-abstract=no" \
		--addr 198.18.3.2/24 --eal "-l $C2" -c 198.18.3.1 -p $port -J "$@" >"$out" 2>"$TMP/mc.err" ||
		fail "memif skperf -c $*: $(cat "$TMP/mc.err")"
	wait_pid 20 "$PID_mm" || fail "memif skperf -s: $(cat "$TMP/mm.err")"
}

skops_skops() {
	local b1=() b4=() rr50=() rr99=() rr999=() crr=()
	local -A hk
	for ((r = 0; r < REPS; r++)); do
		mm_run "$TMP/m.json" "" -- -t "$SECS"
		b1+=("$(jq_py "$TMP/m.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')")
		mm_run "$TMP/m.json" "" -- -t "$SECS" -P 4
		b4+=("$(jq_py "$TMP/m.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')")
		mm_run "$TMP/m.json" "" -- -t "$SECS" --rr 64
		rr50+=("$(jq_py "$TMP/m.json" 'd["end"]["rr"]["rtt_us"]["p50"]')")
		rr99+=("$(jq_py "$TMP/m.json" 'd["end"]["rr"]["rtt_us"]["p99"]')")
		rr999+=("$(jq_py "$TMP/m.json" 'd["end"]["rr"]["rtt_us"]["p999"]')")
		mm_run "$TMP/m.json" "" -- -t "$SECS" --crr
		crr+=("$(jq_py "$TMP/m.json" 'd["end"]["crr"]["per_s"]')")
		# hook overhead: the same program attached 1 and 8 times on both ends
		for n in 1 8; do
			local so=""
			for ((i = 0; i < n; i++)); do so="$so --sockops $OPC"; done
			mm_run "$TMP/m.json" "$so" -- -t "$SECS" --crr $so
			hk[crr_$n]="${hk[crr_$n]:-}${hk[crr_$n]:+ }$(jq_py "$TMP/m.json" 'd["end"]["crr"]["per_s"]')"
			mm_run "$TMP/m.json" "$so" -- -t "$SECS" --rr 64 $so
			hk[rr_$n]="${hk[rr_$n]:-}${hk[rr_$n]:+ }$(jq_py "$TMP/m.json" 'd["end"]["rr"]["rtt_us"]["p50"]')"
		done
	done
	record skops_skops_memif bulk_1 Mbit/s "${b1[@]}"
	record skops_skops_memif bulk_4 Mbit/s "${b4[@]}"
	record skops_skops_memif rr64_p50 us "${rr50[@]}"
	record skops_skops_memif rr64_p99 us "${rr99[@]}"
	record skops_skops_memif rr64_p999 us "${rr999[@]}"
	record skops_skops_memif crr64 per_s "${crr[@]}"
	for n in 1 8; do
		record skops_skops_memif "crr64_progs_$n" per_s ${hk[crr_$n]}
		record skops_skops_memif "rr64_p50_progs_$n" us ${hk[rr_$n]}
	done
}

echo "bench: ${SECS}s a figure, $REPS repetition(s), cores $C1 and $C2" >&2
kernel_kernel kernel_kernel_veth_offload 0
kernel_kernel kernel_kernel_veth_nooffload 1
skops_kernel
skops_skops
stamp=$(date -u +%Y%m%dT%H%M%SZ)
/usr/bin/python3 "$ROOT/test/bench/report.py" "$RES" "$OUT/bench-$stamp" "$QUICK" "$SECS" "$REPS" \
	"$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" "$BUILD" || fail "report"
