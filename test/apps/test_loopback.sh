#!/usr/bin/env bash
# loopback-listen: a server under the shim listening on the wildcard is
# reached over skops from the kernel's netns and over the kernel's loopback
# from its own (skopsd's setting), as a kernel listener on 0.0.0.0 or [::]
# is; without the setting loopback is refused.
#  1. skopsd --config with "loopback-listen = yes"; a bad value is an error
#     naming the file and line;
#  2. loop_srv.py (forks after listen; both processes accept from an epoll
#     wait) on 0.0.0.0 and on a dual-stack [::]: connections from the kernel
#     peer (IPv4, IPv6) and from 127.0.0.1 and ::1 inside the server's netns,
#     each answered with the names the kernel would give (getsockname, the
#     accepted peer: ::ffff:127.0.0.1 on the dual-stack socket), by both
#     processes; idle, the servers use no CPU (the listener's readiness is
#     both listeners', no spinning);
#  3. the server killed: loopback is refused (its kernel listeners closed
#     with it), and a server on skopsd without the setting is not reached
#     on loopback.
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools socat /usr/bin/python3
B=${SKOPS_BUILD:?}
SKOPSD=$B/apps/skopsd/skopsd
RUN=$B/apps/skops-run
for f in "$SKOPSD" "$RUN" "$B/apps/preload/libskops_preload.so"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
D=$(dirname "$0")
setup_netns
# the servers' forked children are no bg job: everything in the netns goes
trap 'for n in "$NS_A" "$NS_B"; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9; done; cleanup' EXIT
# ::1 in the server's netns (its IPv6 is off elsewhere: skops owns the veth)
in_a sysctl -qw net.ipv6.conf.lo.disable_ipv6=0
SOCK=$TMP/skopsd.sock
LOG=$TMP/skopsd.err
app() { ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- "$@"; }

# ---- 1: the config key
printf 'vdev = %s\naddr = %s/24\naddr = %s/64\nloopback-listen = maybe\n' \
	"$AF_PACKET_VDEV" "$IP4_A" "$IP6_A" >"$TMP/bad.conf"
out=$(in_a timeout 10 "$SKOPSD" --config "$TMP/bad.conf" --sock "$SOCK" 2>&1) &&
	fail "skopsd took loopback-listen = maybe"
[[ "$out" == *"bad.conf:4:"*"yes or no"* ]] || fail "bad loopback-listen: '$out'"
echo "config: '$out'"
sed 's/maybe/yes/' "$TMP/bad.conf" >"$TMP/skopsd.conf"
bg skopsd ip netns exec "$NS_A" "$SKOPSD" --config "$TMP/skopsd.conf" --sock "$SOCK" -v
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"

# ask HOST PORT [NS]: one line to the server, its answer
ask() {
	local ns=${3:-$NS_B} to="TCP4:$1:$2"
	[[ "$1" == *:* ]] && to="TCP6:[$1]:$2"
	echo "hello" | ip netns exec "$ns" timeout 5 socat -t3 - "$to" 2>&1
}
# expect HOST PORT NS LOCAL PEER: the answer names LOCAL and PEER
expect() {
	local got
	got=$(ask "$1" "$2" "$3")
	[[ "$got" =~ ^([0-9]+)\ $4\ $5\ hello$ ]] || fail "$1 port $2: answered '$got', want 'PID $4 $5 hello'"
	echo "${BASH_REMATCH[1]}" >>"$TMP/pids.$2"
}
# cpu PID...: their CPU ticks (utime + stime)
cpu() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo $t; }

# ---- 2: servers on the wildcard
both_listening() { [ "$(grep -c listening "$1")" = 2 ]; }
no_listener() { ! in_a ss -Hltn "sport = :$1" | grep -q .; }
check_server() { # FAMILY PORT
	local fam=$1 port=$2 m=
	[ "$fam" = 6 ] && m="::ffff:"
	bg "srv$port" app /usr/bin/python3 "$D/loop_srv.py" "$fam" "$port"
	wait_for 10 both_listening "$TMP/srv$port.out" ||
		fail "loop_srv $fam: $(cat "$TMP/srv$port.out" "$TMP/srv$port.err")"
	local pids
	pids=$(awk '{print $2}' "$TMP/srv$port.out" | tr '\n' ' ')
	in_a ss -Hltn "sport = :$port" | grep -qE "127\.0\.0\.1\]?:$port" ||
		fail "port $port: no kernel listener on loopback: $(in_a ss -Hltn)"
	local c0
	c0=$(cpu $pids)
	sleep 2
	local idle=$(($(cpu $pids) - c0))
	[ "$idle" -le 20 ] || fail "loop_srv $fam idle: $idle ticks of CPU in 2 s (spinning)"
	for i in 1 2 3; do
		expect "$IP4_A" "$port" "$NS_B" "$m$IP4_A" "$m$IP4_B"
		expect 127.0.0.1 "$port" "$NS_A" "${m}127.0.0.1" "${m}127.0.0.1"
		if [ "$fam" = 6 ]; then
			expect "$IP6_A" "$port" "$NS_B" "$IP6_A" "$IP6_B"
			expect ::1 "$port" "$NS_A" ::1 ::1
		fi
	done
	local n
	n=$(sort -u "$TMP/pids.$port" | wc -l)
	echo "  [$fam]:$port: skops and loopback answered ($(sort "$TMP/pids.$port" | uniq -c | tr -s ' \n' ' ')), idle CPU $idle ticks"
	[ "$n" = 2 ] || echo "  (one process took every connection)"
	kill $pids
	wait_for 5 no_listener "$port" ||
		fail "port $port: a kernel listener outlived the server: $(in_a ss -Hltn "sport = :$port")"
	got=$(ask 127.0.0.1 "$port" "$NS_A")
	[[ "$got" == *"Connection refused"* ]] || fail "127.0.0.1:$port after the server: '$got'"
}
check_server 4 7300
check_server 6 7301

# ---- 3: the setting off
kill "$PID_skopsd"
wait_pid 10 "$PID_skopsd" || fail "skopsd did not stop at SIGTERM"
bg skopsd2 ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --sock "$SOCK" -v \
	--loopback-listen no
wait_for 20 grep -q "serving on" "$TMP/skopsd2.err" || fail "skopsd: $(cat "$TMP/skopsd2.err")"
bg off app /usr/bin/python3 "$D/loop_srv.py" 4 7302
wait_for 10 grep -q listening "$TMP/off.out" || fail "loop_srv: $(cat "$TMP/off.err")"
expect "$IP4_A" 7302 "$NS_B" "$IP4_A" "$IP4_B"
got=$(ask 127.0.0.1 7302 "$NS_A")
[[ "$got" == *"Connection refused"* ]] || fail "loopback-listen no: 127.0.0.1 answered '$got'"
echo "PASS: wildcard listeners on skops and on loopback (IPv4, dual-stack IPv6, forked), refused without loopback-listen"
