#!/usr/bin/env bash
# Unmodified programs on skopsd through the LD_PRELOAD shim (skops-run):
# skopsd on an af_packet veth in one netns, the Linux kernel in another.
#  1. curl (client) fetches a file from python3 -m http.server (sha256);
#  2. socat as a server under the shim, the kernel's socat sends a file
#     (sha256), and as a client of a kernel echo server; loopback (connect and
#     bind) and unrouted destinations stay on the kernel; a Python asyncio
#     echo server under the shim;
#  3. two apps in two cgroup v2 groups, rwnd_init.o attached to one and
#     syn_rto.o to the other: only the first app's SYN-ACK has the 40-segment
#     window, only the second app's SYNs are retransmitted 10 ms apart;
#  4. one epoll set of a pipe, a timerfd and a skops socket; a blocking recv
#     interrupted by a signal (EINTR), neither spinning;
#  5. SIGKILL of an app closes its connection as the kernel closes a dead
#     process's fds (the kernel peer's socket leaves ESTABLISHED);
#  6. skopsd idle does not hold a core; SKOPS_FALLBACK without a daemon;
#     SIGTERM drains and exits 0;
#  7. skopsd from a config file, killed: its app's recv gives ECONNRESET and
#     its send EPIPE, without hanging.
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools socat curl tcpdump nft sha256sum /usr/bin/python3
B=${SKOPS_BUILD:?}
SKOPSD=$B/apps/skopsd/skopsd
RUN=$B/apps/skops-run
PROBE=${SKOPS_SHIM_PROBE:?}
PROGS=$B/hooks/progs
CHECK=$(dirname "$0")/../interop/pcap_check.py
for f in "$SKOPSD" "$RUN" "$B/apps/preload/libskops_preload.so" "$PROBE" "$PROGS/rwnd_init.o" \
	"$PROGS/syn_rto.o"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
. "$(dirname "$0")/apps_lib.sh"
CG_A=skops-app-a-$$
CG_B=skops-app-b-$$
mkdir "$CGROOT/$CG_A" "$CGROOT/$CG_B" || fail "mkdir cgroups"
apps_cleanup() {
	# every process left in the namespaces (a kernel server's child holding a
	# connection skops never closed) goes too: it would hold the root lock
	for n in "$NS_A" "$NS_B"; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9; done
	cleanup
	for c in "$CGROOT/$CG_A" "$CGROOT/$CG_B"; do
		for p in $(cat "$c/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		sleep 0.2
		rmdir "$c" 2>/dev/null
	done
}
trap apps_cleanup EXIT

setup_netns
IP6_A2=fd00:1::3
FAR_B=fd00:2::1
in_b ip -6 addr add "$FAR_B/16" dev "$VETH_B" nodad
SOCK=$TMP/skopsd.sock
PORT=55601 # the example programs' test port (hooks/progs/policy.h)

# ---- 6a: no daemon: one line and the kernel's socket, or a failing socket()
out=$(SKOPS_SOCK=$TMP/none.sock in_a "$RUN" -- socat -T1 - TCP:127.0.0.1:9 2>&1 </dev/null)
grep -q "skopsd not reachable at $TMP/none.sock" <<<"$out" || fail "no fallback line: $out"
[ "$(grep -c skopsd <<<"$out")" = 1 ] || fail "fallback line not once: $out"
out=$(SKOPS_FALLBACK=fail SKOPS_SOCK=$TMP/none.sock in_a "$RUN" -- socat -T1 - TCP:$IP4_B:9 2>&1 </dev/null)
grep -q "Address family not supported" <<<"$out" || fail "SKOPS_FALLBACK=fail: socket() did not fail: $out"

bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --addr "$IP6_A/16" \
	--addr "$IP6_A2/16" --sock "$SOCK" -v \
	--attach "/$CG_A=$PROGS/rwnd_init.o:multi" --attach "/$CG_B=$PROGS/syn_rto.o:multi"
wait_for 20 grep -q "serving on" "$TMP/skopsd.err" || fail "skopsd did not start: $(cat "$TMP/skopsd.err")"
# a second daemon on the same socket path fails clearly, before the port
if in_a "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --sock "$SOCK" 2>"$TMP/second.err"; then
	fail "a second skopsd on $SOCK started"
fi
grep -q "in use" "$TMP/second.err" || fail "second skopsd: $(cat "$TMP/second.err")"
listening() { in_b ss -Hltn "sport = :$1" | grep -q LISTEN; }

# ---- 6b: idle cost
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
DPID=$PID_skopsd # ip netns exec execs: the daemon's own pid
t0=$(ticks "$DPID")
sleep 2
t1=$(ticks "$DPID")
idle_pct=$(((t1 - t0) * 100 / (2 * $(getconf CLK_TCK))))
echo "skopsd idle: ${idle_pct}% of a core"
[ "$idle_pct" -lt 30 ] || fail "skopsd idle uses ${idle_pct}% of a core"

# ---- 1: curl as a client of the kernel's http.server
head -c $((4 * 1024 * 1024 + 123)) /dev/urandom >"$TMP/file"
bg http ip netns exec "$NS_B" /usr/bin/python3 -m http.server --directory "$TMP" --bind "$IP4_B" 8080
wait_for 10 listening 8080 || fail "http.server: $(cat "$TMP/http.err")"
in_a timeout 60 "$RUN" --sock "$SOCK" -- curl -sS -o "$TMP/curl.out" "http://$IP4_B:8080/file" ||
	fail "curl under skops-run: $(tail -3 "$TMP/skopsd.err")"
[ "$(sha256sum <"$TMP/file")" = "$(sha256sum <"$TMP/curl.out")" ] || fail "curl: sha256 differs"
echo "curl: 4 MiB over skops, sha256 ok"

# ---- 2: socat as a server and as a client
BG_IN= bg srv ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- socat -u TCP4-LISTEN:7000,bind=$IP4_A OPEN:"$TMP/srv.out",creat
sleep 1
in_b timeout 30 socat -u OPEN:"$TMP/file" TCP4:$IP4_A:7000 || fail "kernel client to socat under the shim"
wait_pid 30 "$PID_srv" || fail "socat server: $(cat "$TMP/srv.err")"
[ "$(sha256sum <"$TMP/file")" = "$(sha256sum <"$TMP/srv.out")" ] || fail "socat server: sha256 differs"
BG_IN= bg echo ip netns exec "$NS_B" socat TCP4-LISTEN:7001,fork,reuseaddr PIPE
wait_for 10 listening 7001 || fail "kernel echo server"
got=$(echo "hello skops" | in_a timeout 20 "$RUN" --sock "$SOCK" -- socat -t2 - TCP4:$IP4_B:7001)
[ "$got" = "hello skops" ] || fail "socat client: got '$got'"
echo "socat: server (sha256 ok) and client on skops"

# asyncio's echo server (epoll, non-blocking accept) under the shim
head -c 1000000 /dev/urandom >"$TMP/aio.in"
bg aio ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- /usr/bin/python3 \
	"$(dirname "$0")/aio_echo.py" 0.0.0.0 7200
wait_for 10 grep -q listening "$TMP/aio.out" || fail "asyncio server: $(cat "$TMP/aio.err")"
in_b timeout 20 socat -t3 TCP4:$IP4_A:7200 - <"$TMP/aio.in" >"$TMP/aio.echo" || fail "asyncio client"
[ "$(sha256sum <"$TMP/aio.in")" = "$(sha256sum <"$TMP/aio.echo")" ] || fail "asyncio echo: sha256 differs"
echo "asyncio echo server: 1 MB echoed"

# ---- 2b: loopback and unrouted destinations stay on the kernel
BG_IN= bg lo_echo ip netns exec "$NS_A" socat TCP4-LISTEN:7300,bind=127.0.0.1,reuseaddr PIPE
sleep 0.5
got=$(echo "via lo" | in_a timeout 10 "$RUN" --sock "$SOCK" -- socat -t2 - TCP4:127.0.0.1:7300)
[ "$got" = "via lo" ] || fail "connect to 127.0.0.1 under the shim: got '$got'"
BG_IN= bg lo_srv ip netns exec "$NS_A" timeout 20 "$RUN" --sock "$SOCK" -- \
	socat -t2 TCP4-LISTEN:7301,bind=127.0.0.1 PIPE
sleep 0.5
got=$(echo "lo server" | in_a timeout 10 socat -t2 - TCP4:127.0.0.1:7301)
[ "$got" = "lo server" ] || fail "bind to 127.0.0.1 under the shim: got '$got'"
# skopsd has no gateway: 203.0.113.1 is the kernel's to refuse (no route in NS_A)
out=$(in_a timeout 10 "$RUN" --sock "$SOCK" -- socat -T1 - TCP4:203.0.113.1:80 2>&1 </dev/null)
grep -q "Network is unreachable" <<<"$out" || fail "unrouted connect did not reach the kernel: $out"
echo "loopback and unrouted: on the kernel"

# ---- 3: two cgroups, two programs
capture() { # name
	BG_IN= bg "dump_$1" timeout 60 ip netns exec "$NS_B" tcpdump --immediate-mode -U -s 128 \
		-i "$VETH_B" -w "$TMP/$1.pcap" "ip6 and ip6[6] = 6 and ip6[53] & 2 != 0"
	wait_for 10 test -s "$TMP/$1.pcap"
	sleep 0.5
}
stop_capture() {
	sleep 0.5
	eval "kill \$PID_dump_$1"
	sleep 0.5
}
in_cg() { # CGROUP CMD...: CMD in that cgroup (before ip netns exec remounts /sys)
	local cg=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROOT/$cg" "$@"
}
capture cg
echo a >"$TMP/a.in"
echo b >"$TMP/b.in"
BG_IN=$TMP/a.in bg app_a in_cg "$CG_A" ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- \
	socat -t2 TCP6-LISTEN:$PORT,bind=[$IP6_A] -
BG_IN=$TMP/b.in bg app_b in_cg "$CG_B" ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- \
	socat -t2 TCP6-LISTEN:$PORT,bind=[$IP6_A2] -
sleep 1
for a in "$IP6_A" "$IP6_A2"; do
	echo from-kernel | in_b timeout 20 socat -t2 - "TCP6:[$a]:$PORT,bind=[$FAR_B]" >"$TMP/k_$a.out" ||
		fail "kernel client to [$a]:$PORT: $(tail -3 "$TMP/skopsd.err")"
done
wait_pid 20 "$PID_app_a" || fail "app a: $(cat "$TMP/app_a.err")"
wait_pid 20 "$PID_app_b" || fail "app b: $(cat "$TMP/app_b.err")"
stop_capture cg
grep -q from-kernel "$TMP/app_a.out" && grep -q from-kernel "$TMP/app_b.out" || fail "cgroup apps: data"
grep -q "cgroup /$CG_A connected" "$TMP/skopsd.err" || fail "skopsd did not see cgroup /$CG_A"
/usr/bin/python3 "$CHECK" "$TMP/cg.pcap" "$IP6_A" $PORT synack_window=$((40 * 1428)),$((40 * 1440)) ||
	fail "app a (rwnd_init.o): no 40-segment SYN-ACK window"
if /usr/bin/python3 "$CHECK" "$TMP/cg.pcap" "$IP6_A2" $PORT synack_window=$((40 * 1428)),$((40 * 1440)) \
	2>/dev/null; then
	fail "app b got app a's program (40-segment SYN-ACK window)"
fi
/usr/bin/python3 "$CHECK" "$TMP/cg.pcap" "$IP6_A2" $PORT || fail "app b's SYN-ACK"
# app b as a client, the kernel drops its first two SYNs: syn_rto.o's 10 ms
in_b nft -f - <<NFT || fail "nft"
table inet skops_apps {
	chain in {
		type filter hook input priority 0;
		ip6 nexthdr tcp tcp dport $PORT tcp flags & (syn | ack) == syn numgen inc mod 1000 < 2 counter drop
	}
}
NFT
capture rto
BG_IN=$TMP/b.in bg ksrv ip netns exec "$NS_B" socat -t2 TCP6-LISTEN:$PORT,reuseaddr -
wait_for 10 listening $PORT || fail "kernel server"
echo from-b | in_cg "$CG_B" ip netns exec "$NS_A" timeout 20 "$RUN" --sock "$SOCK" -- \
	socat -t2 - "TCP6:[$IP6_B]:$PORT,bind=[$IP6_A2]" >/dev/null || fail "app b client"
stop_capture rto
# grep reads all of it: with -q it could exit before nft has written the
# rest, and nft's EPIPE would fail the pipeline (pipefail) on a match
in_b nft list table inet skops_apps | grep "packets 2" >/dev/null ||
	fail "nft did not drop 2 SYNs: $(in_b nft list table inet skops_apps | grep counter)"
/usr/bin/python3 "$CHECK" "$TMP/rto.pcap" "$IP6_A2" $PORT min_syns=3 syn_gap_ms=5:80 ||
	fail "app b (syn_rto.o): SYN retransmissions not 10 ms apart"
echo "cgroups: rwnd_init.o tuned only app a, syn_rto.o only app b"

# ---- 4: epoll mix and EINTR
in_a timeout 30 "$RUN" --sock "$SOCK" -- "$PROBE" epoll $IP4_B 7001 || fail "epoll mix"
in_a timeout 30 "$RUN" --sock "$SOCK" -- "$PROBE" eintr $IP4_B 7001 || fail "EINTR"

# ---- 5: SIGKILL of an app closes its connection (a FIN: nothing was unread)
BG_IN= bg hold ip netns exec "$NS_A" "$RUN" --sock "$SOCK" -- "$PROBE" hold $IP4_B 7001
wait_for 10 grep -q connected "$TMP/hold.out" || fail "hold: $(cat "$TMP/hold.err")"
estab() { in_b ss -Htn state established "sport = :7001" | wc -l; }
[ "$(estab)" -ge 1 ] || fail "no kernel connection from the held app"
kill -9 "$PID_hold" || fail "kill"
no_estab() { [ "$(estab)" = 0 ]; }
wait_for 5 no_estab || fail "SIGKILLed app's connection not closed: $(in_b ss -tn); skopsd: $(tail -4 "$TMP/skopsd.err")"
grep -q "socket(s) closed" "$TMP/skopsd.err" || fail "skopsd did not close the dead app's sockets"
echo "SIGKILL: the app's connection was closed"

# ---- 6c: SIGTERM drains and exits 0
kill -TERM "$PID_skopsd"
wait_pid 10 "$PID_skopsd" || fail "skopsd exit status on SIGTERM: $? ($(tail -3 "$TMP/skopsd.err"))"
grep -q "stopped" "$TMP/skopsd.err" || fail "skopsd did not stop cleanly"

# ---- 7: a daemon from a config file; killed, its apps fail, never hang
cat >"$TMP/skopsd.conf" <<CONF
# test_shim's second daemon
vdev = $AF_PACKET_VDEV
addr = $IP4_A/24
sock = $SOCK
CONF
bg skopsd2 ip netns exec "$NS_A" "$SKOPSD" --config "$TMP/skopsd.conf"
wait_for 20 grep -q "serving on" "$TMP/skopsd2.err" || fail "skopsd --config: $(cat "$TMP/skopsd2.err")"
BG_IN= bg orphan ip netns exec "$NS_A" "$RUN" --sock "$SOCK" -- "$PROBE" orphan $IP4_B 7001
wait_for 10 grep -q connected "$TMP/orphan.out" || fail "orphan: $(cat "$TMP/orphan.err")"
kill -9 "$PID_skopsd2"
wait_pid 5 "$PID_orphan" || fail "app of a killed skopsd: $(cat "$TMP/orphan.err")"
echo "skopsd killed: the app's recv gave ECONNRESET, its send EPIPE, a later connect ECONNRESET"
echo "PASS: curl, socat, cgroups, epoll, EINTR, SIGKILL, idle, fallback, SIGTERM, daemon killed"
