# Sourced by run.sh: unmodified programs on skopsd through the LD_PRELOAD
# shim (skops-run) against the same programs on the kernel. skopsd
# busy-polls (--eal "-l N"), so it gets a core to itself where it can: on
# the af_packet veth, skopsd on C1 and the programs under the shim on C2;
# the kernel's own server runs on C1. The kernel peer stands in for another
# host: for bulk and the apps it runs on C2 beside the program, for RR and
# CRR on C1 beside skopsd, where skopsd's sends wake it on the CPU that sent
# them (on this VM a wake-up sent to another CPU that is running costs
# about 22 us, to an idle one 9, docs/bench.md "Shim RR"); the full run also
# records RR and CRR with the peer on the program's core (*_app_core). A
# program sharing the core of a busy-polling skopsd waits for the
# scheduler's tick to run (p99 of milliseconds): over memif both cores hold
# a skopsd, and each side's programs share their daemon's core (iperf3 the
# other side's, shim_shim).
#   shim_shim: iperf3 and krr under skops-run on two skopsd over memif;
#   port_cap: the af_packet port alone (portcap), the cap of what follows;
#   shim_kernel: the same against the kernel's iperf3 and krr over the
#     af_packet veth, both ways;
#   apps: nginx serving a 64-byte file to wrk --latency (one connection for
#     the latency, 32 for requests/s) and redis-server to redis-benchmark
#     (GET and SET, 32 clients), on the kernel and under the shim.
SKOPSD=$BUILD/apps/skopsd/skopsd
RUN=$BUILD/apps/skops-run
for f in "$SKOPSD" "$RUN" "$BUILD/apps/preload/libskops_preload.so"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
need_root_and_tools nginx wrk redis-server redis-cli redis-benchmark

# shimd_start NAME CORE SOCK SKOPSD-ARGS...: skopsd NAME on CORE serving
# SOCK, in the netns SHIMD_NS if set
shimd_start() {
	local name=$1 core=$2 sock=$3
	shift 3
	bg "$name" timeout 900 ${SHIMD_NS:+ip netns exec "$SHIMD_NS"} "$SKOPSD" --eal "-l $core" --sock "$sock" "$@"
	wait_for 20 grep -q "serving on" "$TMP/$name.err" || fail "skopsd $name: $(cat "$TMP/$name.err")"
}
shimd_stop() { # NAME
	local p
	eval "p=\$PID_$1"
	kill "$p" 2>/dev/null
	wait_pid 20 "$p" || fail "skopsd $1 did not drain and stop: $(tail -3 "$TMP/$1.err")"
}
# shim SOCK CORE: the command prefix running a program under the shim on
# skopsd SOCK, pinned to CORE; prefixes are external commands, never shell
# functions, so that the pid bg records is the one a kill reaches
shim() { echo "timeout 90 $RUN --sock $1 -- taskset -c $2"; }
# shim_up SOCK HOST PORT: a connection to HOST:PORT opens through skopsd SOCK
# (a listener under the shim lives in skopsd: ss does not see it)
shim_up() {
	wait_for 20 timeout 2 "$RUN" --sock "$1" -- bash -c "exec 3<>/dev/tcp/$2/$3" ||
		fail "nothing listens on $2:$3 through skopsd $1"
}

# rr_crr CONFIG SERVER-PREFIX CLIENT-PREFIX HOST: krr -s under SERVER-PREFIX
# (a command prefix: "$(shim SOCK CORE)" or "ip netns exec NS taskset -c C"),
# krr -c under CLIENT-PREFIX, UP (the caller's) waits for the listener; RR64
# and CRR64 into rr50/rr99/rr999/crr (the caller's)
rr_crr() {
	local cfg=$1 host=$4
	local -a srv cli
	read -ra srv <<<"$2"
	read -ra cli <<<"$3"
	port=$((port + 1))
	bg kr "${srv[@]}" "$KRR" -s $port
	"${UP[@]}" "$host" $port
	"${cli[@]}" "$KRR" -c "$host" $port rr 64 "$SECS" >"$TMP/r.json" 2>"$TMP/r.err" ||
		fail "$cfg: krr rr: $(cat "$TMP/r.err")"
	rr_figures "$cfg" "$TMP/r.json" 'd'
	"${cli[@]}" "$KRR" -c "$host" $port crr 64 "$SECS" >"$TMP/r.json" 2>"$TMP/r.err" ||
		fail "$cfg: krr crr: $(cat "$TMP/r.err")"
	crr+=("$(jq_py "$TMP/r.json" 'd["per_s"]')")
	kill "$PID_kr" 2>/dev/null
	wait_pid 20 "$PID_kr"
}

# iperf3 -s under PREFIX (a shim) until it says it listens
shim_iperf_s() {
	local -a pre
	read -ra pre <<<"$1"
	port=$((port + 1))
	bg is "${pre[@]}" iperf3 -s -1 -p $port --forceflush
	wait_for 20 grep -q "listening" "$TMP/is.out" || fail "iperf3 -s under the shim: $(cat "$TMP/is.err")"
}
mbits() { jq_py "$1" 'd["end"]["sum_received"]["bits_per_second"]/1e6'; }

shim_shim() {
	local P b1=() b4=() rr50=() rr99=() rr999=() crr=() sa=$TMP/shim-a.sock sb=$TMP/shim-b.sock
	local h=198.18.4.1 mm=$TMP/shim-memif.sock
	shimd_start sda $C1 "$sa" --vdev "net_memif0,role=server,id=0,socket=$mm,socket-abstract=no" \
		--addr $h/24
	shimd_start sdb $C2 "$sb" --vdev "net_memif0,role=client,id=0,socket=$mm,socket-abstract=no" \
		--addr 198.18.4.2/24
	UP=(shim_up "$sb")
	for ((r = 0; r < REPS; r++)); do
		# bulk pipelines only with each iperf3 on the other side's
		# daemon's core: on its own daemon's, a program and the daemon
		# that drains or fills its ring take turns (1.5-2.0 Gbit/s
		# against 8.1-9.0, docs/bench.md); rr and crr keep the shared core
		for P in $FLOWS; do
			shim_iperf_s "$(shim "$sa" $C2)"
			$(shim "$sb" $C1) iperf3 -c $h -p $port -t "$SECS" -P $P -J >"$TMP/k.json" 2>"$TMP/k.err" ||
				fail "shim iperf3 -c over memif: $(head -c 600 "$TMP/k.json") $(cat "$TMP/k.err")"
			wait_pid 20 "$PID_is"
			v=$(mbits "$TMP/k.json")
			[ $P = 1 ] && b1+=("$v") || b4+=("$v")
		done
		rr_crr shim_shim_memif "$(shim "$sa" $C1)" "$(shim "$sb" $C2)" $h
	done
	shimd_stop sda
	shimd_stop sdb
	record shim_shim_memif bulk_1 Mbit/s "${b1[@]}"
	record shim_shim_memif bulk_4 Mbit/s "${b4[@]}"
	record_rr shim_shim_memif
	record shim_shim_memif crr64 per_s "${crr[@]}"
}

# rr_crr_reps CONFIG SERVER-PREFIX CLIENT-PREFIX HOST: rr_crr REPS times,
# its figures recorded as CONFIG's
rr_crr_reps() {
	local r rr50=() rr99=() rr999=() crr=()
	for ((r = 0; r < REPS; r++)); do
		rr_crr "$@"
	done
	record_rr "$1"
	record "$1" crr64 per_s "${crr[@]}"
}
# shim_kernel_rr SUFFIX PEER-PREFIX: RR and CRR both ways against the kernel
# peer under PEER-PREFIX, as shim_to_kernel$SUFFIX and kernel_to_shim$SUFFIX
shim_kernel_rr() {
	UP=(kernel_up)
	rr_crr_reps shim_to_kernel$1 "timeout 90 $2" "timeout 90 $SHIM_A" $IP4_B
	rr_crr_reps kernel_to_shim$1 "timeout 90 $SHIM_A" "timeout 90 $2" $IP4_A
}

SHIM_SOCK=$TMP/shim.sock
# skopsd on the af_packet veth in a, on core C1
shimd_veth() { SHIMD_NS=$NS_A shimd_start sdv $C1 "$SHIM_SOCK" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24"; }
SHIM_A="ip netns exec $NS_A $RUN --sock $SHIM_SOCK -- taskset -c $C2"
KERN_B="ip netns exec $NS_B taskset -c $C2"
KERN_B1="ip netns exec $NS_B taskset -c $C1"
shim_client_a() { timeout 60 $SHIM_A iperf3 "$@"; }
kernel_up() { wait_for 20 in_b timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" || fail "nothing listens on $1:$2"; }

shim_kernel() {
	local P tx1=() tx4=() rx1=() rx4=() txs=() rxs=()
	shimd_veth
	for ((r = 0; r < REPS; r++)); do
		for P in $FLOWS; do
			FRAMES=$((P == 1)) frames_mark
			bulk_to_b shim_client_a -P $P
			FRAMES=$((P == 1)) frames_share txs "$PORT_CAP_1514"
			[ $P = 1 ] && tx1+=("$BULK") || tx4+=("$BULK")
			shim_iperf_s "timeout 90 $SHIM_A"
			FRAMES=$((P == 1)) frames_mark
			in_b taskset -c $C2 timeout 60 iperf3 -c $IP4_A -p $port -t "$SECS" -P $P -J >"$TMP/k.json" ||
				fail "iperf3 -c to the shim: $(head -c 600 "$TMP/k.json")"
			FRAMES=$((P == 1)) frames_share rxs "$PORT_CAP_1514"
			wait_pid 20 "$PID_is"
			v=$(mbits "$TMP/k.json")
			[ $P = 1 ] && rx1+=("$v") || rx4+=("$v")
		done
	done
	record shim_to_kernel bulk_1 Mbit/s "${tx1[@]}"
	record shim_to_kernel bulk_4 Mbit/s "${tx4[@]}"
	record kernel_to_shim bulk_1 Mbit/s "${rx1[@]}"
	record kernel_to_shim bulk_4 Mbit/s "${rx4[@]}"
	record shim_to_kernel bulk_1_port_cap_share % "${txs[@]}"
	record kernel_to_shim bulk_1_port_cap_share % "${rxs[@]}"
	# RR/CRR both ways: "shim → kernel" is the shim the client
	shim_kernel_rr "" "$KERN_B1"
	[ $QUICK = 1 ] || shim_kernel_rr _app_core "$KERN_B"
	shimd_stop sdv
}

# ---- nginx + wrk, redis-server + redis-benchmark
NGX=$TMP/ngx
mkdir -p "$NGX/www" "$NGX/tmp"
head -c 64 /dev/urandom | base64 -w0 | head -c 64 >"$NGX/www/r64"
nginx_conf "$NGX" 1 1024 "keepalive_requests 1000000;"
# us VALUE: wrk's "123.45us" / "1.20ms" / "1.00s" in microseconds
us() { /usr/bin/python3 -c 'import sys; v=sys.argv[1]; u={"us":1,"ms":1e3,"s":1e6}
n=v.rstrip("usm"); print(float(n)*u[v[len(n):]])' "$1"; }
# wrk_to CONNS OUT: wrk from b (core C2) for SECS against a's 64-byte file
wrk_to() {
	local t=$((${1} > 1 ? 2 : 1))
	in_b taskset -c $C2 timeout 60 wrk -t$t -c"$1" -d"${SECS}s" --latency "http://$IP4_A:8081/r64" \
		>"$2" 2>&1 || fail "wrk -c$1: $(cat "$2")"
	grep -q "Socket errors\|Non-2xx" "$2" && fail "wrk -c$1 saw errors: $(cat "$2")"
}
# The af_packet port's cap (issue 28: where the port caps a figure, show
# the cap): portcap reflecting every frame on the veth skopsd uses, one
# core receiving and sending as skopsd's loop does, fed by a portcap
# generator on the other end, with 60-byte and with 1514-byte frames.
# PORT_CAP, PORT_CAP_1514: the median frames a second each way.
PORTCAP=$BUILD/test/bench/portcap
PORT_CAP=
PORT_CAP_1514=
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
port_cap() {
	local v=() vb=() size f
	[ -x "$PORTCAP" ] || fail "missing $PORTCAP (build first)"
	for ((r = 0; r < REPS; r++)); do
		for size in 60 1514; do
			# the reflector (ip netns exec becomes it) runs until the
			# generator is done; its rate counts only the frames it saw
			bg pc ip netns exec "$NS_A" "$PORTCAP" --vdev "$AF_PACKET_VDEV" --eal "-l $C1" \
				reflect 60
			wait_for 10 grep -q "port ready" "$TMP/pc.err" ||
				fail "portcap reflect: $(cat "$TMP/pc.err")"
			in_b "$PORTCAP" --vdev "net_af_packet1,iface=$VETH_B" --eal "-l $C2" gen "$SECS" \
				$size >"$TMP/pcg.json" 2>"$TMP/pcg.err" || fail "portcap gen: $(cat "$TMP/pcg.err")"
			kill -TERM "$PID_pc"
			wait_pid 20 "$PID_pc" || fail "portcap reflect: $(cat "$TMP/pc.err")"
			f=$(jq_py "$TMP/pc.out" 'd["tx_per_s"]')
			[ "${f:-0}" != 0 ] || fail "portcap: no frame reflected: $(cat "$TMP/pc.out" "$TMP/pcg.json")"
			[ $size = 60 ] && v+=("$f") || vb+=("$f")
		done
	done
	record port_af_packet reflect_frames_s per_s "${v[@]}"
	record port_af_packet reflect_1514_frames_s per_s "${vb[@]}"
	PORT_CAP=$(median "${v[@]}")
	PORT_CAP_1514=$(median "${vb[@]}")
}
# port_frames: skopsd sdv's frames in and out so far ("RX TX")
port_frames() {
	"$BUILD/apps/skopsctl" net stats "$SHIM_SOCK" -j >"$TMP/ns.json" 2>"$TMP/ns.err" &&
		jq_py "$TMP/ns.json" 'str(d["rx_frames"]) + " " + str(d["tx_frames"])'
}
# frames_mark, then frames_share ARRAY CAP (with FRAMES=1): the busier
# direction's frames a second through skopsd's port between the two, as a
# percentage of CAP (frames a second), onto ARRAY
frames_mark() {
	[ "${FRAMES:-0}" = 1 ] || return 0
	F0=$(port_frames) || fail "skopsctl net stats: $(cat "$TMP/ns.err")"
	T0=$(/usr/bin/python3 -c 'import time; print(time.monotonic())')
}
frames_share() {
	local -n into=$1
	local f1 cap=$2
	[ "${FRAMES:-0}" = 1 ] && [ -n "$cap" ] || return 0
	f1=$(port_frames) || fail "skopsctl net stats: $(cat "$TMP/ns.err")"
	into+=("$(/usr/bin/python3 -c 'import sys, time
b, a = [list(map(int, x.split())) for x in sys.argv[1:3]]
secs = time.monotonic() - float(sys.argv[3])
print(round(100 * max(a[0] - b[0], a[1] - b[1]) / secs / float(sys.argv[4]), 1))' "$F0" "$f1" "$T0" "$cap")")
}
# app_figures CONFIG PREFIX...: nginx and redis started under PREFIX (a
# command prefix running in a on core C1), measured from b; with FRAMES=1
# (skopsd sdv) also the share of the port's cap each load took
app_figures() {
	local cfg=$1 n50=() n99=() nrps=() g50=() g99=() grps=() srps=() nshare=() rshare=()
	shift
	for ((r = 0; r < REPS; r++)); do
		rm -f "$NGX/error.log"
		bg nginx "$@" nginx -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/error.log"
		kernel_up $IP4_A 8081
		wrk_to 1 "$TMP/wrk1.out"
		n50+=("$(us "$(awk '$1 == "50%" {print $2}' "$TMP/wrk1.out")")")
		n99+=("$(us "$(awk '$1 == "99%" {print $2}' "$TMP/wrk1.out")")")
		frames_mark
		wrk_to 32 "$TMP/wrk32.out"
		frames_share nshare "$PORT_CAP"
		nrps+=("$(awk '/Requests\/sec/ {print $2}' "$TMP/wrk32.out")")
		kill -QUIT "$PID_nginx"
		wait_pid 20 "$PID_nginx" || fail "$cfg: nginx did not stop: $(tail -3 "$NGX/error.log")"
		bg redis "$@" redis-server --port 6379 --bind 0.0.0.0 --save "" --appendonly no \
			--protected-mode no --dir "$TMP"
		wait_for 20 sh -c "ip netns exec $NS_B redis-cli -h $IP4_A -p 6379 ping | grep -q PONG" ||
			fail "$cfg: redis-server did not answer: $(tail -3 "$TMP/redis.out")"
		frames_mark
		in_b taskset -c $C2 timeout 120 redis-benchmark -h $IP4_A -p 6379 -c 32 -n $((SECS * 20000)) \
			-t get,set --csv >"$TMP/rb.csv" 2>"$TMP/rb.err" || fail "$cfg: redis-benchmark: $(cat "$TMP/rb.err")"
		frames_share rshare "$PORT_CAP"
		# "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",...
		grps+=("$(awk -F'"' '$2 == "GET" {print $4}' "$TMP/rb.csv")")
		g50+=("$(awk -F'"' '$2 == "GET" {print $10 * 1000}' "$TMP/rb.csv")")
		g99+=("$(awk -F'"' '$2 == "GET" {print $14 * 1000}' "$TMP/rb.csv")")
		srps+=("$(awk -F'"' '$2 == "SET" {print $4}' "$TMP/rb.csv")")
		kill "$PID_redis"
		wait_pid 20 "$PID_redis" || fail "$cfg: redis-server did not stop"
	done
	record "$cfg" nginx64_p50 us "${n50[@]}"
	record "$cfg" nginx64_p99 us "${n99[@]}"
	record "$cfg" nginx64_req_s per_s "${nrps[@]}"
	record "$cfg" redis_get_p50_c32 us "${g50[@]}"
	record "$cfg" redis_get_p99_c32 us "${g99[@]}"
	record "$cfg" redis_get_req_s per_s "${grps[@]}"
	record "$cfg" redis_set_req_s per_s "${srps[@]}"
	record "$cfg" nginx64_c32_port_cap_share % "${nshare[@]}"
	record "$cfg" redis_c32_port_cap_share % "${rshare[@]}"
}

apps() {
	in_a ip addr add "$IP4_A/24" dev "$VETH_A"
	app_figures kernel_apps timeout 300 ip netns exec "$NS_A" taskset -c $C1
	in_a ip addr del "$IP4_A/24" dev "$VETH_A"
	shimd_veth
	FRAMES=1 app_figures shim_apps timeout 300 $SHIM_A
	shimd_stop sdv
}
