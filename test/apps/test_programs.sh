#!/usr/bin/env bash
# Real programs under skops-run, each in the cgroup skops-prog-$$ whose
# sock_ops program (cb_logger.o) turns on the RTO/retransmit/state callbacks
# of every connection it sees: skopsd -v logs each closed connection with its
# cgroup and cb_flags, so "cb_flags 7" on a program's connections shows that
# the program's own sock_ops ran for them. skopsd on an af_packet veth in one
# netns, the Linux kernel in the other.
#  1. iperf3 -s under the shim, the kernel's iperf3 -c: -P 4 in both
#     directions (-R), TCP_INFO seen by the server (its cwnd and rtt); the
#     same run kernel to kernel on a second veth pair for comparison;
#  2. curl and socat as clients of kernel servers (sha256); a Python client
#     with SO_LINGER 0 resetting its connection at close;
#  3. the Python asyncio echo server;
#  4. one epoll set of pipes, a timerfd and a skops socket (shim_probe);
#     recvmmsg's timeout, checked on a kernel socket and on a skops one;
#     O_NONBLOCK set after fork seen by the child and dups, both ways; a
#     client socket before and at connect (conn_probe), as on the kernel;
#  5. fork after listen: parent and child both accept; accept, fork, close
#     in the parent: the child still owns the connection;
#  6. exec keeps a socket (the new image uses it), not a close-on-exec one;
#     system(), popen(), raw fork, _Fork, posix_spawn and vfork children
#     (all but system("exit 3") using the inherited socket) leave the
#     parent's socket working;
#  7. a blocking recv and a signal: EINTR without SA_RESTART, restarted
#     with it (and EINTR again once SO_RCVTIMEO makes the wait a timed one).
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools socat curl iperf3 sha256sum /usr/bin/python3
B=${SKOPS_BUILD:?}
SKOPSD=$B/apps/skopsd/skopsd
RUN=$B/apps/skops-run
PROBE=${SKOPS_SHIM_PROBE:?}
CPROBE=${SKOPS_CONN_PROBE:?}
LOGGER=$B/hooks/progs/cb_logger.o
for f in "$SKOPSD" "$RUN" "$B/apps/preload/libskops_preload.so" "$PROBE" "$CPROBE" "$LOGGER"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
. "$(dirname "$0")/apps_lib.sh"
VETH_C=skv-c-$$
VETH_D=skv-d-$$
apps_setup skops-prog-$$ 60
listening() { in_b ss -Hltn "sport = :$1" | grep -q LISTEN; }

bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	--addr "$IP6_A/64" --sock "$SOCK" -v --attach "/$CG=$LOGGER:multi"
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"

# ---- 1: iperf3
# mbps FILE: the receiver's rate of an iperf3 -J result, in Mbit/s
mbps() { /usr/bin/python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
if "error" in j: sys.exit("iperf3: " + j["error"])
print("%.0f" % (j["end"]["sum_received"]["bits_per_second"] / 1e6))' "$1"; }
bg iperf "${APP[@]}" iperf3 -s -p 5201 --forceflush
wait_for 10 grep -q "listening" "$TMP/iperf.out" || fail "iperf3 -s: $(cat "$TMP/iperf.err")"
in_b timeout 30 iperf3 -c "$IP4_A" -p 5201 -t 3 -P 4 -J >"$TMP/up.json" ||
	fail "iperf3 -P 4 to the shim: $(head -c 600 "$TMP/up.json")"
up=$(mbps "$TMP/up.json") || fail "iperf3 -P 4 result"
in_b timeout 30 iperf3 -c "$IP4_A" -p 5201 -t 3 -P 4 -R -J --get-server-output >"$TMP/down.json" ||
	fail "iperf3 -P 4 -R from the shim: $(head -c 600 "$TMP/down.json")"
down=$(mbps "$TMP/down.json") || fail "iperf3 -R result"
# the server sent in -R: its per-stream Cwnd column is TCP_INFO's snd_cwnd x snd_mss
/usr/bin/python3 - "$TMP/down.json" <<'PY' || fail "iperf3 server: no TCP_INFO"
import json, re, sys
t = json.load(open(sys.argv[1]))["server_output_text"]
cw = re.findall(r"^\[\s*\d+\]\s+\S+\s+sec\s+.*?bits/sec\s+\d+\s+([\d.]+) ([KMG]?)Bytes", t, re.M)
print("  server's TCP_INFO cwnd per interval:", " ".join(a + b for a, b in cw[:8]), "...")
assert len(cw) >= 8 and all(float(a) > 0 for a, _ in cw), t[-800:]
PY
kill "$PID_iperf"
tuned 5201 10
# the kernel on both ends, a second veth pair
ip link add "$VETH_C" type veth peer name "$VETH_D" || fail "veth"
ip link set "$VETH_C" netns "$NS_A"
ip link set "$VETH_D" netns "$NS_B"
in_a ip addr add 198.19.0.2/24 dev "$VETH_C"
in_b ip addr add 198.19.0.1/24 dev "$VETH_D"
in_a ip link set "$VETH_C" up
in_b ip link set "$VETH_D" up
in_a ethtool -K "$VETH_C" tx off rx off tso off gso off gro off >/dev/null 2>&1
in_b ethtool -K "$VETH_D" tx off rx off tso off gso off gro off >/dev/null 2>&1
bg kiperf ip netns exec "$NS_A" timeout 60 iperf3 -s -p 5202 --forceflush
wait_for 10 grep -q "listening" "$TMP/kiperf.out" || fail "kernel iperf3 -s"
in_b timeout 30 iperf3 -c 198.19.0.2 -p 5202 -t 3 -P 4 -J >"$TMP/kup.json" || fail "kernel iperf3"
kup=$(mbps "$TMP/kup.json")
in_b timeout 30 iperf3 -c 198.19.0.2 -p 5202 -t 3 -P 4 -R -J >"$TMP/kdown.json" || fail "kernel iperf3 -R"
kdown=$(mbps "$TMP/kdown.json")
echo "iperf3 -P 4: to the shim $up Mbit/s, from it (-R) $down Mbit/s;" \
	"kernel to kernel (offloads off) $kup / $kdown Mbit/s"

# ---- 2: curl and socat as clients; SO_LINGER 0
head -c $((2 * 1024 * 1024 + 77)) /dev/urandom >"$TMP/file"
bg http ip netns exec "$NS_B" /usr/bin/python3 -m http.server --directory "$TMP" --bind "$IP4_B" 8080
wait_for 10 listening 8080 || fail "http.server: $(cat "$TMP/http.err")"
app curl -sS -o "$TMP/curl.out" "http://$IP4_B:8080/file" || fail "curl under the shim"
[ "$(sha256sum <"$TMP/file")" = "$(sha256sum <"$TMP/curl.out")" ] || fail "curl: sha256 differs"
# the kernel's echo is kecho.py: socat's own PIPE echo can block itself
# (kecho.py says how)
bg echo ip netns exec "$NS_B" /usr/bin/python3 "$(dirname "$0")/kecho.py" "$IP4_B" 7001
wait_for 10 listening 7001 || fail "kernel echo server: $(cat "$TMP/echo.err")"
# 256 KiB through the echo and back, both ways at once, then a half-close:
# four runs in a row, each well inside socat's -t10
head -c $((256 * 1024)) "$TMP/file" >"$TMP/file256"
for i in 1 2 3 4; do
	t0=$(date +%s%N)
	app socat -t10 - TCP4:$IP4_B:7001 <"$TMP/file256" >"$TMP/socat.out" || fail "socat client $i"
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$(sha256sum <"$TMP/file256")" = "$(sha256sum <"$TMP/socat.out")" ] ||
		fail "socat client $i: $(stat -c %s "$TMP/socat.out") of 262144 bytes echoed in $ms ms"
	[ "$ms" -lt 5000 ] || fail "socat client $i: 256 KiB echoed in $ms ms (a stall)"
done
echo "curl (2 MiB) and socat (4 x 256 KiB echoed) clients: sha256 ok"
tuned 8080 1
tuned 7001 4
bg rstsrv ip netns exec "$NS_B" timeout 20 /usr/bin/python3 -c 'import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("'$IP4_B'", 7500)); s.listen(); print("up", flush=True)
c, _ = s.accept(); c.settimeout(10)
try:
    d = c.recv(100); d2 = c.recv(100)
    print("eof" if not d2 else "data")
except ConnectionResetError:
    print("reset")'
wait_for 10 grep -q up "$TMP/rstsrv.out" || fail "kernel reset server"
app /usr/bin/python3 -c 'import socket, struct, time
s = socket.create_connection(("'$IP4_B'", 7500))
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.send(b"x"); time.sleep(0.3); s.close()' || fail "SO_LINGER 0 client"
wait_pid 10 "$PID_rstsrv"
grep -q reset "$TMP/rstsrv.out" || fail "SO_LINGER 0: the kernel peer saw $(cat "$TMP/rstsrv.out"), not a reset"
echo "SO_LINGER 0: close reset the connection"
# eof_srv NAME PORT [SEND]: a kernel server that sends SEND bytes to its one
# client, then counts what it gets until a FIN ("eof N") or a reset ("reset after N")
eof_srv() {
	bg "$1" ip netns exec "$NS_B" timeout 20 /usr/bin/python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(); print("up", flush=True)
c, _ = s.accept(); c.settimeout(10); n = 0
c.sendall(b"u" * int(sys.argv[3]))
try:
    while True:
        d = c.recv(65536)
        if not d:
            break
        n += len(d)
    print("eof", n)
except ConnectionResetError:
    print("reset after", n)' "$IP4_B" "$2" "${3:-0}"
	wait_for 10 grep -q up "$TMP/$1.out" || fail "kernel server $1: $(cat "$TMP/$1.err")"
}
# eof_got NAME WANT WHAT: the server's verdict
eof_got() {
	wait_pid 10 "$(eval echo \$PID_$1)"
	grep -q "^$2\$" "$TMP/$1.out" || fail "$3: the kernel peer saw '$(cat "$TMP/$1.out")', not '$2'"
	echo "$3: the kernel peer saw '$2'"
}
# the kernel closes an exiting process's fds however it ends: every byte
# written, then a FIN; a reset only when received data was left unread
# (Linux tcp_close). Exit without close: the socket object is closed, its
# dup, which nothing closes, is left to exit()
eof_srv eofsrv 7501
app /usr/bin/python3 -c 'import os, socket, sys
s = socket.create_connection(("'$IP4_B'", 7501))
s.sendall(open(sys.argv[1], "rb").read(200000))
os.dup(s.fileno()); s.close(); sys.exit(0)' "$TMP/file" || fail "exit-without-close client"
eof_got eofsrv "eof 200000" "exit without close"
# _exit and SIGKILL: no destructor runs, skopsd closes what the process held
# when its control socket hangs up (the bytes may still be in the tx ring)
eof_srv xsrv 7502
app /usr/bin/python3 -c 'import os, socket, sys
s = socket.create_connection(("'$IP4_B'", 7502))
s.sendall(open(sys.argv[1], "rb").read(200000)); os._exit(0)' "$TMP/file" || fail "_exit client"
eof_got xsrv "eof 200000" "_exit(0) after a send"
eof_srv ksrv 7503
app /usr/bin/python3 -c 'import os, socket, sys
s = socket.create_connection(("'$IP4_B'", 7503))
s.sendall(open(sys.argv[1], "rb").read(200000)); os.kill(os.getpid(), 9)' "$TMP/file"
rc=$?
[ "$rc" = 137 ] || fail "SIGKILL client: exit status $rc, not 137"
eof_got ksrv "eof 200000" "SIGKILL after a send"
eof_srv usrv 7504 1000
app /usr/bin/python3 -c 'import os, socket, time
s = socket.create_connection(("'$IP4_B'", 7504))
time.sleep(0.5); os._exit(0)' || fail "_exit client with unread data"
eof_got usrv "reset after 0" "_exit(0) with 1000 bytes unread"
# close() follows the same rule
eof_srv csrv 7505 1000
app /usr/bin/python3 -c 'import socket, time
s = socket.create_connection(("'$IP4_B'", 7505))
time.sleep(0.5); s.close()' || fail "close client with unread data"
eof_got csrv "reset after 0" "close() with 1000 bytes unread"
grep -q "socket(s) closed" "$LOG" || fail "skopsd did not log the dead processes' sockets closed"

# ---- 3: asyncio echo server
head -c 1000000 /dev/urandom >"$TMP/aio.in"
bg aio "${APP[@]}" /usr/bin/python3 "$(dirname "$0")/aio_echo.py" 0.0.0.0 7200
wait_for 10 grep -q listening "$TMP/aio.out" || fail "asyncio server: $(cat "$TMP/aio.err")"
for i in 1 2; do
	in_b timeout 20 socat -t3 TCP4:$IP4_A:7200 - <"$TMP/aio.in" >"$TMP/aio.echo" || fail "asyncio client"
	[ "$(sha256sum <"$TMP/aio.in")" = "$(sha256sum <"$TMP/aio.echo")" ] || fail "asyncio echo: sha256"
done
echo "asyncio echo server: 2 x 1 MB echoed"
tuned 7200 2

# ---- 4: epoll of pipes, a timerfd and a skops socket
app "$PROBE" epoll $IP4_B 7001 || fail "epoll mix"
# sleepers in epoll_wait woken by an echo: level, edge, one-shot
in_b "$PROBE" etwake $IP4_B 7001 >/dev/null || fail "epoll sleepers on a kernel socket"
app "$PROBE" etwake $IP4_B 7001 || fail "epoll sleepers woken under the shim"
# a full tx ring's EPOLLOUT edge (edge-triggered, non-blocking): the server
# reads only a second after it accepts; on a kernel socket, then the shim
slow_sink() { # PORT
	bg sink$1 ip netns exec "$NS_B" timeout 30 /usr/bin/python3 -c 'import socket, sys, time
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("'$IP4_B'", int(sys.argv[1]))); l.listen(4)
while True:
    c, _ = l.accept(); time.sleep(1)
    while c.recv(1 << 20): pass
    c.close()' "$1"
	wait_for 10 listening "$1" || fail "slow sink on $1"
}
slow_sink 7210
in_b timeout 20 "$PROBE" etout $IP4_B 7210 >/dev/null || fail "EPOLLOUT edge on a kernel socket"
app timeout 20 "$PROBE" etout $IP4_B 7210 || fail "EPOLLOUT edge after EAGAIN under the shim"
# recvmmsg's timeout: the same checks on a kernel socket, then under the shim
in_b "$PROBE" recvmmsg $IP4_B 7001 >/dev/null || fail "recvmmsg checks on a kernel socket"
app "$PROBE" recvmmsg $IP4_B 7001 || fail "recvmmsg under the shim"
# O_NONBLOCK is the open file's: shared with a forked child and dups
in_b "$PROBE" nbshare $IP4_B 7001 >/dev/null || fail "O_NONBLOCK after fork on kernel sockets"
app "$PROBE" nbshare $IP4_B 7001 || fail "O_NONBLOCK after fork under the shim"
# a client socket before and at its connect (the daemon learns of it only
# then): option errors, getsockname, fork, unconnected closes,
# non-blocking and refused connects, as on a kernel socket (7998: nobody)
in_b "$CPROBE" lazy $IP4_B 7001 7998 >/dev/null || fail "conn_probe on kernel sockets"
out=$(app "$CPROBE" lazy $IP4_B 7001 7998) || fail "conn_probe under the shim"
[ "$out" = "skops 6" ] || fail "conn_probe under the shim: '$out', not 6 skops sockets"
echo "socket() to connect() under the shim: as on the kernel ($out)"
# a reset after data, as Linux: recvmmsg reports the pending reset first
# (do_recvmmsg's sock_error), the bytes stay for recv, then EOF; the same
# checks on a kernel socket, then under the shim
rst_srv() { # NAME PORT
	bg "$1" ip netns exec "$NS_B" timeout 20 /usr/bin/python3 -c 'import socket, struct, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(); print("up", flush=True)
c, _ = s.accept(); c.sendall(b"ab"); time.sleep(0.05)
c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); c.close()' "$IP4_B" "$2"
	wait_for 10 grep -q up "$TMP/$1.out" || fail "kernel reset server: $(cat "$TMP/$1.err")"
}
rst_srv rstsrv2 7507
in_b "$PROBE" rstmmsg $IP4_B 7507 >/dev/null || fail "recvmmsg and a reset on a kernel socket"
rst_srv rstsrv3 7508
app "$PROBE" rstmmsg $IP4_B 7508 || fail "recvmmsg and a reset under the shim"

# ---- 5: fork after listen
bg fork "${APP[@]}" "$PROBE" fork 0.0.0.0 7400
wait_for 20 eval '[ "$(grep -c accepting "$TMP/fork.out")" = 2 ]' ||
	fail "fork: parent and child not both accepting: $(cat "$TMP/fork.out" "$TMP/fork.err")"
for i in 1 2 3 4 5 6; do
	in_b timeout 5 socat -u TCP4:$IP4_A:7400 - >>"$TMP/fork.pids" || fail "fork: client $i"
	sleep 0.05
done
npids=$(sort -u "$TMP/fork.pids" | wc -l)
[ "$(wc -l <"$TMP/fork.pids")" = 6 ] && [ "$npids" = 2 ] ||
	fail "fork: 6 answers from 2 processes wanted, got: $(tr '\n' ' ' <"$TMP/fork.pids")"
grep -q "shares pid" "$LOG" || fail "fork: skopsd saw no child sharing its parent's sockets"
echo "fork after listen: parent and child accepted ($(sort "$TMP/fork.pids" | uniq -c | tr -s ' \n' ' '))"
tuned 7400 6
bg forkc "${APP[@]}" "$PROBE" forkconn 0.0.0.0 7401
wait_for 10 grep -q listening "$TMP/forkc.out" || fail "forkconn: $(cat "$TMP/forkc.err")"
for i in 1 2 3; do
	got=$(echo "line $i" | in_b timeout 5 socat -t3 - TCP4:$IP4_A:7401)
	[[ "$got" =~ ^[0-9]+\ line\ $i$ ]] || fail "accept, fork, close: child $i answered '$got'"
done
echo "accept, fork, close in the parent: each child served its connection"

# ---- 6: exec
app "$PROBE" exec $IP4_B 7001 || fail "exec"
app "$PROBE" spawn $IP4_B 7001 >"$TMP/spawn.out" ||
	fail "system, popen, raw fork, _Fork, posix_spawn, vfork: $(cat "$TMP/spawn.out")"
cat "$TMP/spawn.out"
# the raw fork's child took the socket on a connection of its own
raw=$(sed -n 's/^raw fork child //p' "$TMP/spawn.out")
grep -q "skopsd: pid ${raw:-none} uid [0-9]* adopts" "$LOG" ||
	fail "raw fork: skopsd saw no ADOPT from the child (pid ${raw:-none})"

# ---- 7: signals
app "$PROBE" eintr $IP4_B 7001 || fail "EINTR"
app "$PROBE" restart $IP4_B 7001 || fail "SA_RESTART"

echo "PASS: iperf3 ($up/$down Mbit/s, kernel $kup/$kdown), curl, socat, SO_LINGER 0, asyncio," \
	"epoll, EPOLLOUT edge, recvmmsg, fork, exec, spawn, EINTR, SA_RESTART"
