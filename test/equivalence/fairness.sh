#!/usr/bin/env bash
# fairness: one skops flow and one kernel flow with the same congestion
# control share a bottleneck (issue 29: 40-60 % each over 20 s). Not a gate
# test (a 2-vCPU machine shared with other work moves it); root.
#   test/equivalence/fairness.sh [--cc cubic,bbr] [--secs 20] [--rate 100]
#       [--rtt 20] [--queue BYTES] [--json FILE] [--control] [--skops-second]
#       [--gap SECS] [--steady SETTLE] [--kernel-gso-segs N]
#       [--slot-gso-segs N] [--red PCT]
# --control: skperf's flow is a second kernel iperf3 instead, the topology's
# own split to read skops's against. --skops-second: the kernel's flow starts
# first and skperf's (or the control's) GAP seconds later (default 1: about
# what skperf's own start-up takes); without it skperf's flow starts first
# and the kernel's GAP seconds after skperf's port is up (default 0). The
# flow that starts first takes more in 20 s with either stack (CUBIC's
# flows converge slowly at this BDP), so compare like orders. FAIR_KEEP=DIR
# keeps both flows' JSON (skperf's has the stack's counters and tcp_info)
# and linkem's counters (linkem.json: the queue's drops);
# FAIR_PCAP=DIR also keeps 96-byte-snap captures (linkem's end a1
# for both senders' data, A's end for their ACKs). FAIR_NICE=N runs the
# slot's process (skperf, or the control's iperf3) at nice N: the kernel's
# TCP runs in softirq ahead of any process, skperf's in a process that
# other work on the machine delays (even at -10 it stalled for seconds on a
# core with busy-polling programs); FAIR_LCORE=N pins skperf to core N
# (default 0): other DPDK programs pinned to core 0 beside it starved it.
# Each run prints how many seconds after the kernel's flow the slot's began
# and flags a run whose flows began too far apart to be a split.
# --steady SETTLE: the split once both flows are past their start, not the
# race of their starts: the second flow starts GAP seconds after the first
# (default 5) and runs SECS - GAP so both end together, and the share is
# counted from SETTLE seconds after the second flow's start to the earlier
# end, from both documents' per-interval bytes (fair_steady.py). The whole
# run's share is printed beside it.
# --kernel-gso-segs N: A's veth's gso_max_segs, which caps the kernel's
# TCP super-packets (the kernel's TCP always builds GSO skbs, sized by
# tcp_tso_autosize to about 1 ms at its pacing rate, and segments them in
# software when the device cannot: the veths' offloads being off does not
# stop them). 1 makes the kernel's sender emit one segment per skb, as
# skops on af_packet does; skops's frames do not pass the kernel's GSO.
# --slot-gso-segs N (with --control): the same cap for the slot's iperf3
# alone: it sends from 198.18.5.4 on a macvlan over A's veth (its own
# gso_max_segs, a source rule routing it there), the other kernel flow
# keeps the veth's, so the two kernel flows differ only in their trains.
# --red PCT: linkem drops early past half the queue, with a chance rising
# to PCT at its limit (linkem --red): drops by the flows' share of the
# arrivals instead of by which frames reach a full queue.
# Topology (test/linkem/linkem_net.sh): netns A holds both senders on one
# veth (the kernel at 198.18.5.1, skperf through af_packet at 198.18.5.3,
# the same MAC; each ignores the other's address), linkem relays A <-> B
# with RTT/2 each way and a RATE Mbit/s drop-tail queue of QUEUE bytes
# (default one BDP) on A -> B, netns B runs two kernel iperf3 servers.
# Both flows run SECS; the share is each one's bytes received over
# the two's. The kernel sender's CC is set with iperf3 -C,
# skperf's with -C (the same name); the kernel's default here is bbr.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${SKOPS_BUILD:-$ROOT/build}
LINKEM=$BUILD/test/linkem/linkem
SKPERF=$BUILD/apps/skperf/skperf
CCS=cubic,bbr SECS=20 RATE=100 RTT=20 QUEUE='' OUTJ='' CONTROL=0 SECOND=0 GAP='' STEADY='' KGSO='' SGSO='' RED=''
while [ $# -gt 0 ]; do
	case $1 in
	--cc) CCS=$2 ;;
	--secs) SECS=$2 ;;
	--rate) RATE=$2 ;;
	--rtt) RTT=$2 ;;
	--queue) QUEUE=$2 ;;
	--json) OUTJ=$2 ;;
	--gap) GAP=$2 ;;
	--steady) STEADY=$2 ;;
	--kernel-gso-segs) KGSO=$2 ;;
	--slot-gso-segs) SGSO=$2 ;;
	--red) RED=$2 ;;
	--control) CONTROL=1 && shift && continue ;;
	--skops-second) SECOND=1 && shift && continue ;;
	*) echo "usage: fairness.sh [--cc LIST] [--secs N] [--rate MBIT] [--rtt MS] [--queue BYTES] [--json FILE] [--control] [--skops-second] [--gap SECS] [--steady SETTLE] [--kernel-gso-segs N] [--slot-gso-segs N] [--red PCT]" >&2
	   exit 2 ;;
	esac
	shift 2
done
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || fail "fairness needs root (network namespaces, AF_PACKET)"
for t in ip ethtool iperf3 python3 timeout; do
	command -v "$t" >/dev/null || fail "missing tool '$t' (scripts/install-deps.sh)"
done
for f in "$LINKEM" "$SKPERF"; do [ -x "$f" ] || fail "missing $f (build first)"; done
: "${QUEUE:=$((RATE * 1000000 / 8 * RTT / 1000))}"
if [ -n "$STEADY" ]; then
	[ -n "$GAP" ] || GAP=5
else
	[ -n "$GAP" ] || GAP=$SECOND
fi
# the flow started second runs the time left to the first's end
SECS2=$SECS
[ -n "$STEADY" ] && SECS2=$(python3 -c "print(max(10, round($SECS - $GAP)))")
now() { date +%s.%N; }
TMP=$(mktemp -d /tmp/skops-fair-XXXXXX)
# shellcheck source=../linkem/linkem_net.sh
. "$ROOT/test/linkem/linkem_net.sh"
trap 'lem_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
lem_setup || fail "netns/veth set-up"
A=(ip netns exec "$LEM_NS_A")
B=(ip netns exec "$LEM_NS_B")
"${A[@]}" ip addr add 198.18.5.1/24 dev "$LEM_IF_A"
"${B[@]}" ip addr add 198.18.5.2/24 dev "$LEM_IF_B"
if [ -n "$KGSO" ]; then
	"${A[@]}" ip link set dev "$LEM_IF_A" gso_max_segs "$KGSO" || fail "gso_max_segs $KGSO on $LEM_IF_A"
fi
SLOT_BIND=()
if [ -n "$SGSO" ]; then
	[ "$CONTROL" = 1 ] || fail "--slot-gso-segs is for --control (skperf has no GSO)"
	"${A[@]}" ip link add link "$LEM_IF_A" name slot0 type macvlan mode bridge &&
		"${A[@]}" ip link set dev slot0 gso_max_segs "$SGSO" up &&
		"${A[@]}" ip addr add 198.18.5.4/32 dev slot0 &&
		"${A[@]}" ip rule add from 198.18.5.4 table 105 &&
		"${A[@]}" ip route add 198.18.5.0/24 dev slot0 table 105 || fail "slot's macvlan"
	SLOT_BIND=(-B 198.18.5.4)
fi
half=$(python3 -c "print($RTT / 2)")
red=()
[ -n "$RED" ] && red=(--red "$RED")
lem_start "$TMP/lem.json" --delay "$half" --a2b --rate "$RATE" --queue "$QUEUE" "${red[@]}" ||
	fail "linkem: $(cat "$TMP/lem.json.log")"
"${A[@]}" ping -c 2 -W 2 198.18.5.2 >/dev/null || fail "no path A -> B"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
rows=()
IFS=, read -ra cclist <<<"$CCS"
for cc in "${cclist[@]}"; do
	"${B[@]}" timeout $((SECS + 30)) iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
	"${B[@]}" timeout $((SECS + 30)) iperf3 -s -1 -p 5302 >/dev/null 2>&1 &
	sleep 0.5
	if [ -n "${FAIR_PCAP:-}" ]; then
		# skperf's frames leave past the taps of A's end (af_packet's
		# qdisc bypass): linkem's end a1 sees both senders' data, A's
		# end the ACKs both get
		"${A[@]}" tcpdump -i "$LEM_IF_A" -s 96 -w "$FAIR_PCAP/$cc-a.pcap" >/dev/null 2>&1 &
		tdp=$!
		ip netns exec "$LEM_NS_L" tcpdump -i a1 -s 96 -w "$FAIR_PCAP/$cc-l.pcap" >/dev/null 2>&1 &
		tdp="$tdp $!"
		sleep 0.5
	fi
	# each flow's start as seen from here (for --steady): the kernel's
	# iperf3 connects at once, skperf once its port is up
	kernel_flow() {
		now >"$TMP/k.t0"
		"${A[@]}" timeout $((SECS + 30)) iperf3 -c 198.18.5.2 -p 5302 -t "$1" -C "$cc" -J \
			>"$TMP/k.json" 2>"$TMP/k.err"
	}
	slot_secs=$SECS
	if [ "$SECOND" = 1 ]; then
		kernel_flow "$SECS" &
		kp=$!
		sleep "$GAP"
		slot_secs=$SECS2
	fi
	if [ "$CONTROL" = 1 ]; then
		now >"$TMP/sk.t0"
		"${A[@]}" nice -n "${FAIR_NICE:-0}" timeout $((SECS + 30)) iperf3 -c 198.18.5.2 -p 5301 "${SLOT_BIND[@]}" -t "$slot_secs" -C "$cc" -J \
			>"$TMP/sk.json" 2>"$TMP/sk.err" &
	else
		"${A[@]}" nice -n "${FAIR_NICE:-0}" timeout $((SECS + 30)) "$SKPERF" --vdev "net_af_packet0,iface=$LEM_IF_A" \
			--addr 198.18.5.3/24 --eal "-l ${FAIR_LCORE:-0}" -c 198.18.5.2 -p 5301 -t "$slot_secs" -C "$cc" -J \
			>"$TMP/sk.json" 2>"$TMP/sk.err" &
		# skperf's port comes up in about a second
		for _ in $(seq 1 100); do grep -qs "port ready" "$TMP/sk.err" && break; sleep 0.05; done
		now >"$TMP/sk.t0"
	fi
	skp=$!
	if [ "$SECOND" = 0 ]; then
		# the kernel's flow starts GAP seconds after skperf's port is up
		sleep "$GAP"
		kernel_flow "$SECS2" &
		kp=$!
	fi
	wait "$kp" || fail "kernel iperf3 ($cc): $(tail -3 "$TMP/k.json")"
	wait "$skp" || fail "skperf ($cc): $(tail -3 "$TMP/sk.err")"
	# shellcheck disable=SC2086 # two pids
	[ -n "${tdp:-}" ] && kill $tdp && wait $tdp
	[ -n "${FAIR_KEEP:-}" ] && cp "$TMP/sk.json" "$FAIR_KEEP/$cc-skops.json" && cp "$TMP/k.json" "$FAIR_KEEP/$cc-kernel.json" &&
		cp "$TMP/sk.t0" "$FAIR_KEEP/$cc-skops.t0" && cp "$TMP/k.t0" "$FAIR_KEEP/$cc-kernel.t0"
	s=$(json "$TMP/sk.json" "d['end']['sum_received']['bytes']")
	k=$(json "$TMP/k.json" "d['end']['sum_received']['bytes']")
	srt=$(json "$TMP/sk.json" "d['end']['sum_sent'].get('retransmits', 0)")
	krt=$(json "$TMP/k.json" "d['end']['sum_sent'].get('retransmits', 0)")
	share=$(python3 -c "print(round(100 * $s / ($s + $k), 1))")
	# the first second's Mbit/s of each: which flow had the path first
	s1=$(json "$TMP/sk.json" "round(d['intervals'][0]['sum']['bits_per_second'] / 1e6, 1)")
	k1=$(json "$TMP/k.json" "round(d['intervals'][0]['sum']['bits_per_second'] / 1e6, 1)")
	# how much later the slot's flow began than the kernel's (start.timestamp,
	# whole seconds): a handshake lost behind the other flow's slow start
	# can start a flow seconds late, and then the two overlap too little
	# for a split
	off=$(($(json "$TMP/sk.json" "d['start']['timestamp']['timesecs']") - $(json "$TMP/k.json" "d['start']['timestamp']['timesecs']")))
	note=
	[ "${off#-}" -gt $((${GAP%.*} + 2)) ] && note=" (flows started ${off#-} s apart: no split)"
	steady=null
	if [ -n "$STEADY" ]; then
		steady=$(python3 "$HERE/fair_steady.py" "$TMP/sk.json" "$(cat "$TMP/sk.t0")" \
			"$TMP/k.json" "$(cat "$TMP/k.t0")" "$STEADY") || fail "fair_steady ($cc)"
		echo "$cc steady: $steady"
	fi
	echo "$cc: skops $((s / 1000000)) MB ($srt retransmits, $s1 Mbit/s in its first second), kernel $((k / 1000000)) MB ($krt retransmits, $k1), skops started ${off} s after the kernel: skops share $share %$note"
	rows+=("{\"cc\":\"$cc\",\"skops_second\":$SECOND,\"control\":$CONTROL,\"start_offset_s\":$off,\"skops_first_s_mbit\":$s1,\"kernel_first_s_mbit\":$k1,\"skops_bytes\":$s,\"kernel_bytes\":$k,\"skops_retransmits\":$srt,\"kernel_retransmits\":$krt,\"skops_share_pct\":$share,\"steady\":$steady}")
	sleep 1
done
lem_stop
[ -n "${FAIR_KEEP:-}" ] && cp "$TMP/lem.json" "$FAIR_KEEP/linkem.json"
out="{\"rate_mbit\":$RATE,\"rtt_ms\":$RTT,\"queue_bytes\":$QUEUE,\"secs\":$SECS,\"runs\":[$(IFS=,; echo "${rows[*]}")]}"
echo "$out"
[ -n "$OUTJ" ] && echo "$out" >"$OUTJ"
exit 0
