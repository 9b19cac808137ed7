#!/usr/bin/env bash
# The benchmark suite (not a test; `make bench`): skops against the Linux
# kernel on this machine, each end pinned to its own core.
#   test/bench/run.sh [--quick] [BUILD_DIR]
# Configurations: kernel<->kernel over a veth with offloads on and off,
# skperf<->kernel over af_packet both ways, skperf<->skperf over memif (two
# processes; bulk also at each MTU of JUMBO, default 9000 and 65000, the
# latter a frame the size of the kernel's 64 KiB GSO packets over its veth;
# 9000 alone with --quick); unmodified programs
# under the shim (shim.sh): iperf3 and krr shim<->shim over memif (two
# skopsd) and shim<->kernel over af_packet,
# nginx + wrk and redis-server + redis-benchmark on the shim and on the
# kernel. Figures: bulk with 1 and 4 flows (iperf3 -J / skperf -J);
# 64-byte RR latency p50/p99/p99.9 with its distribution and CRR per second
# (skperf --rr/--crr; against the kernel skperf --plain and test/bench/krr);
# bulk under 1% and 5% loss of the data segments the kernel side receives,
# with cubic (the kernel set to it too) and again with bbr on both sides
# (nft numgen, as test/interop/test_tcp_sack.sh); the CRR and RR cost of 0,
# 1 and 8 sock_ops programs (op_count.o) with the JIT and the interpreter;
# bulk through linkem at 1, 10 and 40 ms RTT with 1% loss, kernel and
# skperf as the sender with cubic (RTTS="..." to choose, LEM_KEEP=DIR keeps
# skperf's JSON); 10k and 100k idle connections: memory per connection end and set-up time
# (stack_bench on skops, kconns on the kernel). Each figure is the median of
# REPS runs (1 with --quick) with min and max, and its ratio to the kernel
# baseline of the same run. Writes bench-results/bench-DATE.json, .md and
# PNG plots (OUT=DIR to change) and prints the Markdown table. Root.
# STEPS="kernel_kernel shim_shim ..." runs only those sections (their
# function names; the kernel baselines are kernel_kernel and apps' own).
# --quick (the test command's test_bench_quick, < 90 s on an idle machine):
# one run of 1 s a figure, one flow count, one loss rate, CRR with 8 JIT
# programs only (test_skperf runs --no-jit), 10k connections; every tool
# and plot still runs.
set -uo pipefail
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1 && shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
export SKOPS_BUILD=$BUILD
. "$ROOT/test/interop/lib.sh"
need_root_and_tools iperf3 ss taskset nft gnuplot /usr/bin/python3
SKPERF=$BUILD/apps/skperf/skperf
KRR=$BUILD/test/bench/krr
KCONNS=$BUILD/test/bench/kconns
SBENCH=$BUILD/test/bench/stack_bench
OPC=$BUILD/hooks/progs/op_count.o
for f in "$SKPERF" "$KRR" "$KCONNS" "$SBENCH" "$OPC"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
SECS=${SECS:-$([ $QUICK = 1 ] && echo 1 || echo 10)}
REPS=${REPS:-$([ $QUICK = 1 ] && echo 1 || echo 3)}
FLOWS=$([ $QUICK = 1 ] && echo 1 || echo "1 4")
LOSS=$([ $QUICK = 1 ] && echo 50 || echo "10 50") # per mille
PROGS=$([ $QUICK = 1 ] && echo 8 || echo "1 8")
MODES=$([ $QUICK = 1 ] && echo jit || echo "jit interp") # test_skperf runs --no-jit
JUMBO=${JUMBO:-$([ $QUICK = 1 ] && echo 9000 || echo "9000 65000")} # memif's jumbo MTUs (up to 65393)
CONNS=$([ $QUICK = 1 ] && echo 10000 || echo "10000 100000")
OUT=${OUT:-$ROOT/bench-results}
mkdir -p "$OUT"
C1=0
C2=$(($(nproc) > 1 ? 1 : 0))
RES=$TMP/results.jsonl
: >"$RES"
setup_netns
# CRR from the kernel opens more connections than the ephemeral range holds
# within 2 MSL: reuse TIME_WAIT ports as a benchmark client would
in_a sysctl -qw net.ipv4.tcp_tw_reuse=1
in_b sysctl -qw net.ipv4.tcp_tw_reuse=1
# Kernel senders run skops's default CC, cubic (iperf3 -C, which root may
# ask for where a namespace's sysctl may not), whatever the host's default
# (bbr on some: against its bbr, cubic under loss looks 10-100x worse);
# the loss figures are taken with cubic and again with bbr on both sides.
LOSS_CCS="cubic bbr"
port=7000

# record CONFIG FIGURE UNIT VALUE...: one line per figure, every repetition
record() {
	local cfg=$1 fig=$2 unit=$3
	shift 3
	[ $# -gt 0 ] || return 0
	printf '{"config":"%s","figure":"%s","unit":"%s","values":[%s]}\n' "$cfg" "$fig" "$unit" \
		"$(IFS=,; echo "$*")" >>"$RES"
	echo "  $cfg $fig: $* $unit" >&2
}
jq_py() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# record_cdf CONFIG FILE EXPR: the latency distribution EXPR of FILE (one run)
record_cdf() {
	printf '{"config":"%s","figure":"rr64_cdf","unit":"us","cdf":%s}\n' "$1" \
		"$(jq_py "$2" "json.dumps($3)")" >>"$RES"
}
# rr_figures CONFIG FILE PREFIX: p50/p99/p99.9 of FILE's rtt_us at PREFIX
# into the arrays rr50, rr99, rr999 (the caller's)
rr_figures() {
	rr50+=("$(jq_py "$2" "$3[\"rtt_us\"][\"p50\"]")")
	rr99+=("$(jq_py "$2" "$3[\"rtt_us\"][\"p99\"]")")
	rr999+=("$(jq_py "$2" "$3[\"rtt_us\"][\"p999\"]")")
	[ ${#rr50[@]} = 1 ] && record_cdf "$1" "$2" "$3[\"cdf\"]"
}
record_rr() {
	record "$1" rr64_p50 us "${rr50[@]}"
	record "$1" rr64_p99 us "${rr99[@]}"
	record "$1" rr64_p999 us "${rr999[@]}"
}
listening() { wait_for 10 sh -c "ip netns exec $1 ss -ltn 'sport = :$2' | grep -q LISTEN"; }
offloads() {
	in_a ethtool -K "$VETH_A" tx "$1" rx "$1" tso "$1" gso "$1" gro "$1" >/dev/null 2>&1
	in_b ethtool -K "$VETH_B" tx "$1" rx "$1" tso "$1" gso "$1" gro "$1" >/dev/null 2>&1
}
# loss_on PERMILLE PORT: the kernel side (b) drops that share of the data
# segments a sends to PORT; loss_off removes the rule
loss_on() {
	in_b nft -f - <<NFT || fail "nft: loss rule"
table inet skops_bench_loss {
	chain in {
		type filter hook input priority 0;
		ip saddr $IP4_A tcp dport $2 meta length > 100 numgen random mod 1000 < $1 drop
	}
}
NFT
}
loss_off() { in_b nft delete table inet skops_bench_loss 2>/dev/null; }

# iperf3 -s in b on C2; BULK: Mbit/s received from the client command "$@"
# (kernel_client_a or skops_client_a and its options) against it
bulk_to_b() {
	port=$((port + 1))
	bg kb timeout 60 ip netns exec "$NS_B" taskset -c $C2 iperf3 -s -1 -p $port
	listening "$NS_B" $port || fail "iperf3 -s in b did not listen"
	[ "$LOSS_PM" != 0 ] && loss_on "$LOSS_PM" $port
	"$@" -c $IP4_B -p $port -t "$SECS" -J >"$TMP/b.json" 2>"$TMP/b.err" ||
		fail "bulk to b ($*): $(cat "$TMP/b.err")"
	loss_off
	wait_pid 20 "$PID_kb"
	BULK=$(jq_py "$TMP/b.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
}
LOSS_PM=0
kernel_client_a() { timeout 60 ip netns exec "$NS_A" taskset -c $C1 iperf3 "$@"; }
skops_client_a() { timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" "$@"; }

# record_loss CONFIG: the caller's lo[PERMILLE CC] as bulk_1_lossNpct
# (cubic) and bulk_1_lossNpct_bbr
record_loss() {
	local pm cc
	for cc in $LOSS_CCS; do
		for pm in $LOSS; do
			record "$1" "bulk_1_loss$((pm / 10))pct$([ $cc = cubic ] || echo _$cc)" Mbit/s \
				${lo[$pm$cc]:-}
		done
	done
}

# kernel <-> kernel over the veth: a gets its address back for these
kernel_kernel() {
	local tag=$1 off=$2 P v1=() v4=() rr50=() rr99=() rr999=() crr=()
	local -A lo
	[ "$off" = 1 ] && offloads off || offloads on
	in_a ip addr add "$IP4_A/24" dev "$VETH_A" 2>/dev/null
	for ((r = 0; r < REPS; r++)); do
		for P in $FLOWS; do
			port=$((port + 1))
			bg ks timeout 60 ip netns exec "$NS_A" taskset -c $C1 iperf3 -s -1 -p $port
			listening "$NS_A" $port || fail "iperf3 -s in a did not listen"
			timeout 60 ip netns exec "$NS_B" taskset -c $C2 iperf3 -c $IP4_A -p $port -t "$SECS" -P $P -C cubic -J \
				>"$TMP/k.json" || fail "kernel iperf3 $tag"
			wait_pid 20 "$PID_ks"
			v=$(jq_py "$TMP/k.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
			[ $P = 1 ] && v1+=("$v") || v4+=("$v")
		done
		# loss on segments, so without offloads (a GSO frame is many)
		if [ "$off" = 1 ]; then
			for cc in $LOSS_CCS; do
				for LOSS_PM in $LOSS; do
					bulk_to_b kernel_client_a -C $cc
					lo[$LOSS_PM$cc]="${lo[$LOSS_PM$cc]:-} $BULK"
				done
			done
			LOSS_PM=0
		fi
		[ $QUICK = 1 ] && [ "$off" = 1 ] && continue
		port=$((port + 1))
		bg kr timeout 60 ip netns exec "$NS_A" taskset -c $C1 "$KRR" -s $port
		listening "$NS_A" $port || fail "krr -s did not listen"
		timeout 60 ip netns exec "$NS_B" taskset -c $C2 "$KRR" -c $IP4_A $port rr 64 "$SECS" >"$TMP/r.json" ||
			fail "krr rr $tag"
		rr_figures "$tag" "$TMP/r.json" 'd'
		timeout 60 ip netns exec "$NS_B" taskset -c $C2 "$KRR" -c $IP4_A $port crr 64 "$SECS" >"$TMP/r.json" ||
			fail "krr crr $tag"
		crr+=("$(jq_py "$TMP/r.json" 'd["per_s"]')")
		kill "$PID_kr" 2>/dev/null
	done
	in_a ip addr del "$IP4_A/24" dev "$VETH_A"
	offloads off
	record "$tag" bulk_1 Mbit/s "${v1[@]}"
	record "$tag" bulk_4 Mbit/s "${v4[@]}"
	record_loss "$tag"
	record_rr "$tag"
	record "$tag" crr64 per_s "${crr[@]}"
}

SK=(--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --eal "-l $C1")
skops_kernel() {
	local P tx1=() tx4=() rx1=() rx4=() rr50=() rr99=() rr999=() crr=()
	local -A lo
	for ((r = 0; r < REPS; r++)); do
		for P in $FLOWS; do
			bulk_to_b skops_client_a -P $P
			[ $P = 1 ] && tx1+=("$BULK") || tx4+=("$BULK")
			port=$((port + 1))
			bg ss timeout 60 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -s -1 -p $port
			wait_for 20 grep -q "port ready" "$TMP/ss.err" || fail "skperf -s did not start"
			sleep 0.3
			timeout 60 ip netns exec "$NS_B" taskset -c $C2 iperf3 -c $IP4_A -p $port -t "$SECS" -P $P -C cubic -J \
				>"$TMP/k.json" || fail "iperf3 -c to skperf"
			wait_pid 20 "$PID_ss"
			v=$(jq_py "$TMP/k.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
			[ $P = 1 ] && rx1+=("$v") || rx4+=("$v")
		done
		for cc in $LOSS_CCS; do
			for LOSS_PM in $LOSS; do
				bulk_to_b skops_client_a -C $cc
				lo[$LOSS_PM$cc]="${lo[$LOSS_PM$cc]:-} $BULK"
			done
		done
		LOSS_PM=0
	done
	record skops_to_kernel bulk_1 Mbit/s "${tx1[@]}"
	record skops_to_kernel bulk_4 Mbit/s "${tx4[@]}"
	record_loss skops_to_kernel
	record kernel_to_skops bulk_1 Mbit/s "${rx1[@]}"
	record kernel_to_skops bulk_4 Mbit/s "${rx4[@]}"
}

# RR and CRR between skops on af_packet and the kernel, both roles: skperf
# --plain against krr -s, and krr -c against skperf -s --plain
skops_kernel_rr() {
	local rr50=() rr99=() rr999=() crr=()
	for ((r = 0; r < REPS; r++)); do
		port=$((port + 1))
		bg kr timeout 120 ip netns exec "$NS_B" taskset -c $C2 "$KRR" -s $port
		listening "$NS_B" $port || fail "krr -s in b did not listen"
		skops_client_a --plain -c $IP4_B -p $port --rr 64 -t "$SECS" -J >"$TMP/s.json" 2>"$TMP/s.err" ||
			fail "skperf --plain --rr: $(cat "$TMP/s.err")"
		rr_figures skops_to_kernel "$TMP/s.json" 'd["end"]["rr"]'
		skops_client_a --plain -c $IP4_B -p $port --crr=64 -t "$SECS" -J >"$TMP/s.json" 2>"$TMP/s.err" ||
			fail "skperf --plain --crr: $(cat "$TMP/s.err")"
		crr+=("$(jq_py "$TMP/s.json" 'd["end"]["crr"]["per_s"]')")
		kill "$PID_kr" 2>/dev/null
	done
	record_rr skops_to_kernel
	record skops_to_kernel crr64 per_s "${crr[@]}"
	rr50=() rr99=() rr999=() crr=()
	for ((r = 0; r < REPS; r++)); do
		port=$((port + 1))
		bg se timeout 120 ip netns exec "$NS_A" "$SKPERF" "${SK[@]}" -s --plain -p $port
		wait_for 20 grep -q "port ready" "$TMP/se.err" || fail "skperf -s --plain did not start"
		sleep 0.3
		timeout 60 ip netns exec "$NS_B" taskset -c $C2 "$KRR" -c $IP4_A $port rr 64 "$SECS" >"$TMP/r.json" ||
			fail "krr rr to skperf: $(cat "$TMP/se.err")"
		rr_figures kernel_to_skops "$TMP/r.json" 'd'
		timeout 60 ip netns exec "$NS_B" taskset -c $C2 "$KRR" -c $IP4_A $port crr 64 "$SECS" >"$TMP/r.json" ||
			fail "krr crr to skperf: $(cat "$TMP/se.err")"
		crr+=("$(jq_py "$TMP/r.json" 'd["per_s"]')")
		kill "$PID_se" 2>/dev/null
		wait_pid 20 "$PID_se" || fail "skperf -s --plain: $(cat "$TMP/se.err")"
	done
	record_rr kernel_to_skops
	record kernel_to_skops crr64 per_s "${crr[@]}"
}

# skperf <-> skperf over memif: one server on core C1 (-s serves test after
# test) with the programs SERVER-EXTRA, clients on core C2
mm_start() { # SERVER-EXTRA
	port=$((port + 1))
	MM_SOCK=$TMP/memif-$port.sock
	bg mm timeout 600 "$SKPERF" --vdev "net_memif0,role=server,id=0,socket=$MM_SOCK,socket-abstract=no" \
		--addr 198.18.3.1/24 --eal "-l $C1" -s -p $port $1
	wait_for 20 grep -q "port ready" "$TMP/mm.err" || fail "memif skperf -s: $(cat "$TMP/mm.err")"
	sleep 0.5 # the listener opens after the port, the memif link comes up meanwhile
}
mm_run() { # OUTFILE CLIENT ARGS...
	local out=$1
	shift
	timeout 90 "$SKPERF" --vdev "net_memif0,role=client,id=0,socket=$MM_SOCK,socket-abstract=no" \
		--addr 198.18.3.2/24 --eal "-l $C2" -c 198.18.3.1 -p $port -J "$@" >"$out" 2>"$TMP/mc.err" ||
		fail "memif skperf -c $*: $(cat "$TMP/mc.err") / server: $(tail -3 "$TMP/mm.err")"
}
mm_stop() {
	kill "$PID_mm" 2>/dev/null
	wait_pid 20 "$PID_mm" || fail "memif skperf -s: $(cat "$TMP/mm.err")"
}

skops_skops() {
	local P mtu b1=() b4=() rr50=() rr99=() rr999=() crr=()
	local -A hk bj
	for ((r = 0; r < REPS; r++)); do
		# CRR and RR first, as on the servers with programs below
		mm_start ""
		mm_run "$TMP/m.json" -t "$SECS" --crr
		crr+=("$(jq_py "$TMP/m.json" 'd["end"]["crr"]["per_s"]')")
		mm_run "$TMP/m.json" -t "$SECS" --rr 64
		rr_figures skops_skops_memif "$TMP/m.json" 'd["end"]["rr"]'
		for P in $FLOWS; do
			mm_run "$TMP/m.json" -t "$SECS" -P $P
			v=$(jq_py "$TMP/m.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
			[ $P = 1 ] && b1+=("$v") || b4+=("$v")
		done
		mm_stop
		# jumbo frames: both ends at one MTU (memif has none of its own;
		# the mbufs and memif buffers follow it, test_memif_jumbo)
		for mtu in $JUMBO; do
			mm_start "--mtu $mtu"
			mm_run "$TMP/m.json" -t "$SECS" --mtu $mtu
			bj[$mtu]="${bj[$mtu]:-} $(jq_py "$TMP/m.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')"
			mm_stop
		done
		# hook overhead: the same program attached N times on both ends
		for n in $PROGS; do
			for mode in $MODES; do
				local so="" k=${n}_$mode
				for ((i = 0; i < n; i++)); do so="$so --sockops $OPC"; done
				[ $mode = interp ] && so="$so --no-jit"
				mm_start "$so"
				mm_run "$TMP/m.json" -t "$SECS" --crr $so
				hk[crr_$k]="${hk[crr_$k]:-} $(jq_py "$TMP/m.json" 'd["end"]["crr"]["per_s"]')"
				if [ $QUICK = 0 ]; then
					mm_run "$TMP/m.json" -t "$SECS" --rr 64 $so
					hk[rr_$k]="${hk[rr_$k]:-} $(jq_py "$TMP/m.json" 'd["end"]["rr"]["rtt_us"]["p50"]')"
				fi
				mm_stop
			done
		done
	done
	record skops_skops_memif bulk_1 Mbit/s "${b1[@]}"
	record skops_skops_memif bulk_4 Mbit/s "${b4[@]}"
	for mtu in $JUMBO; do
		record skops_skops_memif_mtu$mtu bulk_1 Mbit/s ${bj[$mtu]}
	done
	record_rr skops_skops_memif
	record skops_skops_memif crr64 per_s "${crr[@]}"
	for n in $PROGS; do
		for mode in $MODES; do
			record skops_skops_memif "crr64_progs_${n}_$mode" per_s ${hk[crr_${n}_$mode]}
			record skops_skops_memif "rr64_p50_progs_${n}_$mode" us ${hk[rr_${n}_$mode]:-}
		done
	done
}

# idle connections: memory per connection end and set-up time, the kernel
# over loopback in a, skops with two stacks on the in-memory wire
# Bulk at the RTTs users have (issue 29): through linkem (test/linkem) with
# half the RTT each way and 1 % random loss on the data direction, the
# kernel's iperf3 and then skperf (af_packet) as the sender from the same
# namespace, both with cubic, to a kernel iperf3; linkem on its own core.
# 1, 10 and 40 ms (10 ms with --quick).
RTTS=${RTTS:-$([ $QUICK = 1 ] && echo 10 || echo "1 10 40")}
# lem_bulk NAME CLIENT...: CLIENT (iperf3's options) sends for SECS with cubic
# to an iperf3 in B behind linkem; LEM_BULK: Mbit/s received, the JSON in l.json
lem_bulk() {
	local name=$1
	shift
	port=$((port + 1))
	bg lk timeout 90 ip netns exec "$LEM_NS_B" iperf3 -s -1 -p $port
	listening "$LEM_NS_B" $port || fail "iperf3 -s behind linkem did not listen"
	timeout 90 "$@" -c 198.18.6.2 -p $port -t "$SECS" -C cubic -J >"$TMP/l.json" 2>"$TMP/l.err" ||
		fail "$name at ${rtt} ms: $(tail -3 "$TMP/l.err")"
	wait_pid 20 "$PID_lk"
	LEM_BULK=$(jq_py "$TMP/l.json" 'd["end"]["sum_received"]["bits_per_second"]/1e6')
}
linkem_rtt() {
	local LINKEM=$BUILD/test/linkem/linkem rtt half k s
	[ -x "$LINKEM" ] || fail "missing $LINKEM (build first)"
	# shellcheck source=../linkem/linkem_net.sh
	. "$ROOT/test/linkem/linkem_net.sh"
	trap 'lem_cleanup; cleanup' EXIT # lib.sh's cleanup, and linkem's namespaces
	lem_setup || fail "linkem: netns/veth set-up"
	local A=(ip netns exec "$LEM_NS_A") B=(ip netns exec "$LEM_NS_B")
	"${A[@]}" ip addr add 198.18.6.1/24 dev "$LEM_IF_A"
	"${B[@]}" ip addr add 198.18.6.2/24 dev "$LEM_IF_B"
	for rtt in $RTTS; do
		half=$(/usr/bin/python3 -c "print($rtt / 2)")
		lem_start "$TMP/lem.json" --delay "$half" --a2b --loss 1 ||
			fail "linkem: $(cat "$TMP/lem.json.log")"
		taskset -pc $C2 "$LEM_PID" >/dev/null # ip netns exec became linkem
		k=() s=()
		for ((r = 0; r < REPS; r++)); do
			lem_bulk "kernel iperf3" "${A[@]}" taskset -c $C1 iperf3
			k+=("$LEM_BULK")
			lem_bulk skperf "${A[@]}" "$SKPERF" --vdev "net_af_packet0,iface=$LEM_IF_A" \
				--addr 198.18.6.3/24 --eal "-l $C1"
			s+=("$LEM_BULK")
			[ -n "${LEM_KEEP:-}" ] && cp "$TMP/l.json" "$LEM_KEEP/skperf-${rtt}ms-$r.json"
		done
		lem_stop
		record kernel_linkem "bulk_1_rtt${rtt}ms_loss1pct" Mbit/s "${k[@]}"
		record skops_linkem "bulk_1_rtt${rtt}ms_loss1pct" Mbit/s "${s[@]}"
	done
	lem_cleanup
	trap cleanup EXIT
}

conns() {
	for n in $CONNS; do
		local km=() kt=() sm=() st=()
		for ((r = 0; r < REPS; r++)); do
			in_a "$KCONNS" "$n" >"$TMP/c.json" 2>"$TMP/c.err" || fail "kconns $n: $(cat "$TMP/c.err")"
			km+=("$(jq_py "$TMP/c.json" 'd["bytes_per_end"]')")
			kt+=("$(jq_py "$TMP/c.json" 'd["setup_s"]')")
			taskset -c $C1 "$SBENCH" "$n" 1 >"$TMP/c.json" 2>"$TMP/c.err" ||
				fail "stack_bench $n: $(cat "$TMP/c.err")"
			sm+=("$(jq_py "$TMP/c.json" '(d["preallocated_heap_bytes"]+d["heap_growth_during_setup_per_connection"]*d["established_tcbs"])/d["established_tcbs"]')")
			st+=("$(jq_py "$TMP/c.json" 'd["connections"]/d["setup_rate_conns_per_s"]')")
		done
		record kernel_loopback "idle_${n}_bytes_per_end" B "${km[@]}"
		record kernel_loopback "idle_${n}_setup" s "${kt[@]}"
		record skops_sim_wire "idle_${n}_bytes_per_end" B "${sm[@]}"
		record skops_sim_wire "idle_${n}_setup" s "${st[@]}"
	done
}

. "$ROOT/test/bench/shim.sh"

t0=$SECONDS
section() { echo "bench: $1 at $((SECONDS - t0)) s" >&2; }
echo "bench: ${SECS}s a figure, $REPS repetition(s), cores $C1 and $C2" >&2
for step in "kernel_kernel kernel_kernel_veth_offload 0" "kernel_kernel kernel_kernel_veth_nooffload 1" \
	skops_kernel skops_kernel_rr skops_skops shim_shim port_cap shim_kernel apps linkem_rtt conns; do
	[ -n "${STEPS:-}" ] && [[ " $STEPS " != *" ${step%% *} "* ]] && continue
	section "${step%% *}"
	$step
done
stamp=$(date -u +%Y%m%dT%H%M%SZ)
/usr/bin/python3 "$ROOT/test/bench/report.py" "$RES" "$OUT/bench-$stamp" "$QUICK" "$SECS" "$REPS" \
	"$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" "$BUILD" || fail "report"
echo "bench: $((SECONDS - t0)) s" >&2
