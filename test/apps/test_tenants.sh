#!/usr/bin/env bash
# skopsd as a service for every local user (issue 26). skopsd on an
# af_packet veth in one netns, the Linux kernel peer in the other.
#  1. the control socket is 0660 (uid 65534 reaches it through --group);
#     one in a directory others can write to (/tmp) is refused;
#  2. a victim: a root echo server under the shim, pinged from the kernel
#     every 20 ms while uid 65534 runs tenant_attack against the daemon
#     with the raw protocol (sealed memfds, a blocking eventfd, a kick read
#     away, a drained blocking loopback listener, SO_RCVBUF 1 GiB, buffers
#     past the uid's share of --buf-mem,
#     privileged ports, SO_MARK/SO_PRIORITY, garbage ring indices, an ADOPT
#     flood, every quota at once); while its quotas are held a new root app
#     is still served by skops; the victim's echoes never stall past 1 s and
#     skopsd's RSS comes back after the attacker let go;
#  3. skopsd stopped: a new app's first request times out (the fallback
#     said on stderr); a client whose process exited before skopsd accepted
#     it is refused (skopsd stopped around the child's connect and exit);
#     a root app that setuid()s to 65534 after connecting cannot join root's
#     SO_REUSEPORT listener (EADDRINUSE) and gets EMFILE past uid 65534's
#     512 sockets (the request's SCM_CREDENTIALS, not the connect's uid);
#  4. skopsd killed while apps wait in poll, epoll_wait, select and a
#     blocking recv: each wakes within 3 s, the read ECONNRESET, the send
#     EPIPE; an app that lives on gets its next connection from a
#     restarted skopsd.
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools setpriv getent stat /usr/bin/python3
shim_bins
ATTACK=${SKOPS_TENANT_ATTACK:?}
DEATH=${SKOPS_DEATH_PROBE:?}
for f in "$ATTACK" "$DEATH"; do [ -x "$f" ] || fail "missing $f (build first)"; done
D=$(cd "$(dirname "$0")" && pwd)
setup_netns
trap 'exec 7>&- 8>&-; for n in "$NS_A" "$NS_B"; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9; done; cleanup' EXIT
chmod 755 "$TMP"
SOCK=$TMP/skopsd.sock
LOG=$TMP/skopsd.err
NOBODY=(setpriv --reuid 65534 --regid 65534 --clear-groups)
rss() { awk '/^VmRSS/ {print $2}' "/proc/$DPID/status"; }

bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --sock "$SOCK" \
	--group "$(getent group 65534 | cut -d: -f1)" --loopback-listen yes --buf-mem 64 -v
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"
DPID=$PID_skopsd # ip netns exec execs: the daemon's own pid

# ---- 1: the control socket
# a socket directory others can write to is refused before the port is touched
out=$("$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --sock "/tmp/skopsd-h26-$$.sock" 2>&1) &&
	fail "skopsd started with its socket in /tmp"
grep -q "writable by others" <<<"$out" || fail "socket in /tmp: $out"
mode=$(stat -c %a "$SOCK")
[ "$mode" = 660 ] || fail "control socket mode $mode, want 660"
echo "control socket: mode $mode, group $(stat -c %G "$SOCK")"

# ---- 2: the victim and the attacker
bg kecho in_b /usr/bin/python3 "$D/kecho.py" "$IP4_B" 7801
bg kecho2 in_b /usr/bin/python3 "$D/kecho.py" "$IP4_B" 7802
bg victim in_a timeout 120 "$RUN" --sock "$SOCK" -- /usr/bin/python3 "$D/kecho.py" 0.0.0.0 7800
wait_for 10 grep -q listening "$TMP/kecho.out" || fail "kernel echo: $(cat "$TMP/kecho.err")"
wait_for 10 grep -q listening "$TMP/kecho2.out" || fail "kernel echo: $(cat "$TMP/kecho2.err")"
wait_for 10 grep -q listening "$TMP/victim.out" || fail "victim: $(cat "$TMP/victim.err")"
cat >"$TMP/pinger.py" <<'PY'
import os, socket, sys, time
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
rounds, worst, msg = 0, 0.0, b"x" * 64
while not os.path.exists(sys.argv[3]):
    t = time.monotonic()
    c.sendall(msg)
    got = b""
    while len(got) < len(msg):
        got += c.recv(len(msg) - len(got))
    assert got == msg, got
    worst = max(worst, time.monotonic() - t)
    rounds += 1
    print("rounds %d max_ms %d" % (rounds, worst * 1000), flush=True)
    time.sleep(0.02)
PY
bg pinger in_b timeout 120 /usr/bin/python3 "$TMP/pinger.py" "$IP4_A" 7800 "$TMP/stop"
wait_for 10 grep -q rounds "$TMP/pinger.out" || fail "victim's echo: $(cat "$TMP/pinger.err")"
rss0=$(rss)

mkfifo "$TMP/go"
in_a "${NOBODY[@]}" "$ATTACK" attack "$SOCK" "$IP4_B" 7801 <"$TMP/go" >"$TMP/attack.out" 2>&1 &
APID=$!
PIDS+=("$APID")
exec 7>"$TMP/go"
wait_for 90 grep -q exhausted "$TMP/attack.out" || fail "attacker: $(cat "$TMP/attack.out")"
rss1=$(rss)
# uid 65534 holds all it may: a new root app is still served by skops
got=$(echo "root served" | in_a timeout 10 "$RUN" --sock "$SOCK" -- socat -t2 - TCP4:$IP4_B:7802)
[ "$got" = "root served" ] || fail "root app while uid 65534 holds its quotas: got '$got'"
wait_for 5 grep -q "198.18.0.1:7802 " "$LOG" ||
	fail "root app while uid 65534 holds its quotas went to the kernel: $(tail -3 "$LOG")"
echo "root app served by skops while uid 65534 holds its quotas"
echo go >&7
exec 7>&-
wait "$APID"
arc=$?
cat "$TMP/attack.out"
[ "$arc" = 0 ] || fail "an attack was not held"
touch "$TMP/stop"
wait_pid 10 "$PID_pinger" || fail "victim's echo: $(tail -2 "$TMP/pinger.err")"
last=$(tail -1 "$TMP/pinger.out")
rounds=$(cut -d' ' -f2 <<<"$last")
worst=$(cut -d' ' -f4 <<<"$last")
[ "$rounds" -ge 20 ] && [ "$worst" -lt 1000 ] || fail "victim's echo: $last"
echo "victim: $rounds echoes during the attacks, slowest $worst ms"
sleep 2 # closes finish, the heap is trimmed
rss2=$(rss)
echo "skopsd RSS: ${rss0} kB before, ${rss1} kB with the quotas held, ${rss2} kB after"
[ "$rss2" -lt $((rss0 + 65536)) ] || fail "skopsd RSS did not come back: $rss2 kB (from $rss0 kB)"

# ---- 3: a client whose process is gone is refused
kill -STOP "$DPID"
# a stuck daemon: a new app's first request times out, the fallback is said
t0=$(date +%s%N)
in_a timeout 10 env SKOPS_RPC_TIMEOUT_MS=500 "$RUN" --sock "$SOCK" -- \
	socat -T1 - TCP4:$IP4_B:7802 </dev/null >/dev/null 2>"$TMP/stuck.err"
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q "skopsd not reachable.*timed out" "$TMP/stuck.err" || fail "app of a stuck skopsd: $(cat "$TMP/stuck.err")"
[ "$ms" -lt 5000 ] || fail "app of a stuck skopsd took $ms ms"
echo "stuck skopsd: a new app gave up its first request after $ms ms ($(head -1 "$TMP/stuck.err"))"
mkfifo "$TMP/go2"
in_a "${NOBODY[@]}" "$ATTACK" orphan "$SOCK" <"$TMP/go2" >"$TMP/orphan.out" 2>&1 &
OPID=$!
PIDS+=("$OPID")
exec 8>"$TMP/go2"
wait_for 10 grep -q connected "$TMP/orphan.out"
kill -CONT "$DPID"
echo go >&8
exec 8>&-
wait "$OPID" || fail "orphan: $(cat "$TMP/orphan.out")"
grep -q "refused: the process is gone" "$LOG" || fail "orphan: skopsd logged no refusal"
tail -1 "$TMP/orphan.out"

# the attacker's fork tickets, and the sockets they hold for a child that
# never comes, lapse 5 s after it exited (skopsd's stats, SIGUSR1)
for ((n = 1; n <= 60; n++)); do
	kill -USR1 "$DPID"
	wait_for 2 grep -q "stats $n:" "$LOG" || fail "skopsd gave no stats"
	grep "stats $n:" "$LOG" | grep -q " tickets 0 uids 1 " && break # root's victim alone
	sleep 0.2
done
[ "$n" -le 60 ] || fail "uid 65534's tickets and sockets held 12 s after it exited: $(grep "stats $((n - 1)):" "$LOG")"
# ---- 3b: a root app that setuid()s after it connected owns its new sockets
# as its new self: no joining root's SO_REUSEPORT group (the kernel's sk_uid)
bg rootreuse in_a timeout 30 "$RUN" --sock "$SOCK" -- /usr/bin/python3 -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("0.0.0.0", 7900))
s.listen()
print("listening", flush=True)
time.sleep(30)'
wait_for 10 grep -q listening "$TMP/rootreuse.out" || fail "root SO_REUSEPORT listener: $(cat "$TMP/rootreuse.err")"
# and its new sockets count in uid 65534's quota (512 sockets), not root's:
# s and 511 more are served, the bind that would make the 513th skops's is EMFILE
got=$(in_a timeout 30 "$RUN" --sock "$SOCK" -- /usr/bin/python3 -c '
import errno, os, resource, socket
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
first = socket.socket()  # connects this process to skopsd, as root
os.setuid(65534)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind(("0.0.0.0", 7900))
    print("joined")
except OSError as e:
    print(errno.errorcode[e.errno])
held = [s]
try:
    while len(held) < 1100:
        x = socket.socket()  # a skops socket from its bind on
        held.append(x)
        x.bind(("0.0.0.0", 0))
    print("no limit")
except OSError as e:
    print(errno.errorcode[e.errno], len(held))' 2>&1)
[ "$got" = "EADDRINUSE
EMFILE 513" ] || fail "setuid(65534) after connecting: SO_REUSEPORT bind beside root, then sockets: $got"
echo "setuid(65534) after connecting: SO_REUSEPORT bind beside root's listener is EADDRINUSE, EMFILE after uid 65534's 512 sockets"

# ---- 4: skopsd dies under waiting apps
for m in poll epoll select recv; do
	bg "d_$m" in_a timeout 30 "$RUN" --sock "$SOCK" -- "$DEATH" "$m" "$IP4_B" 7801
done
# one that lives on: its next socket after the death goes to a restarted skopsd
bg survivor in_a timeout 60 "$RUN" --sock "$SOCK" -- /usr/bin/python3 -c '
import errno, os, socket, sys, time
c = socket.create_connection((sys.argv[1], 7801))
print("waiting", flush=True)
try:
    c.recv(1)
    print("recv returned")
except OSError as e:
    print("recv", errno.errorcode[e.errno], flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.1)
n = socket.create_connection((sys.argv[1], 7802), timeout=10)
n.sendall(b"again")
print("served again:", n.recv(16).decode(), flush=True)' "$IP4_B" "$TMP/restarted"
wait_for 10 grep -q waiting "$TMP/survivor.out" || fail "survivor: $(cat "$TMP/survivor.err")"
for m in poll epoll select recv; do
	wait_for 10 grep -q waiting "$TMP/d_$m.out" || fail "death_probe $m: $(cat "$TMP/d_$m.err")"
done
sleep 0.5 # in their waits
kill -9 "$DPID"
for m in poll epoll select recv; do
	eval "p=\$PID_d_$m"
	wait_pid 3 "$p" || fail "death_probe $m after skopsd's death: $(cat "$TMP/d_$m.out" "$TMP/d_$m.err")"
	tail -1 "$TMP/d_$m.out"
done
wait_for 5 grep -q "recv ECONNRESET" "$TMP/survivor.out" || fail "survivor: $(cat "$TMP/survivor.out")"
LOG2=$TMP/skopsd2.err
bg skopsd2 ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --sock "$SOCK" -v
wait_for 20 grep -q "serving on" "$LOG2" || fail "skopsd restarted: $(cat "$LOG2")"
touch "$TMP/restarted"
wait_pid 15 "$PID_survivor" || fail "survivor: $(cat "$TMP/survivor.out" "$TMP/survivor.err")"
grep -q "served again: again" "$TMP/survivor.out" || fail "survivor: $(cat "$TMP/survivor.out")"
wait_for 5 grep -q "198.18.0.1:7802 " "$LOG2" || fail "survivor's new socket did not go to the new skopsd"
echo "an app that outlived skopsd: recv ECONNRESET, its next connection served by the restarted skopsd"
echo "PASS: control socket, attacks held with the victim's echo going, root served past the quotas, gone client refused, daemon death wakes poll/epoll/select/recv"
