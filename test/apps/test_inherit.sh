#!/usr/bin/env bash
# Sockets reaching children past the shim's fork hook, and SO_REUSEPORT
# between users. skopsd on an af_packet veth in one netns, the Linux
# kernel peer in the other.
#  1. inherit_srv.py under the shim: a system()ed child gets the program's
#     own eventfd untouched and keeps no connection to skopsd; then it
#     accepts a connection, and system() and popen() shells (which libc
#     clones itself) write into the inherited socket (a Python one the
#     O_NONBLOCK the parent set on it), and a popen()ed helper that takes
#     it only after the parent closed its copy: the kernel peer gets their
#     lines and the parent's, then the FIN at the helper's exit; skopsd
#     logged the children adopting the socket by its fd;
#  2. SO_REUSEPORT: a listener of uid 0 under the shim; one of uid 65534
#     on the same port gets EADDRINUSE, a second one of uid 0 joins and
#     both accept (the kernel's answers, checked first on the kernel's own
#     loopback in the peer's netns); the same for UDP sockets, whose
#     datagrams the two uid 0 ones share.
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools socat setpriv /usr/bin/python3
B=${SKOPS_BUILD:?}
SKOPSD=$B/apps/skopsd/skopsd
RUN=$B/apps/skops-run
for f in "$SKOPSD" "$RUN" "$B/apps/preload/libskops_preload.so"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
D=$(cd "$(dirname "$0")" && pwd)
setup_netns
trap 'for n in "$NS_A" "$NS_B"; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9; done; cleanup' EXIT
chmod 755 "$TMP" # uid 65534 reaches skopsd's socket there
SOCK=$TMP/skopsd.sock
LOG=$TMP/skopsd.err
NOBODY=(setpriv --reuid 65534 --regid 65534 --clear-groups)
app() { ip netns exec "$NS_A" timeout 30 "$RUN" --sock "$SOCK" -- "$@"; }

# the control socket is 0660: uid 65534 reaches it through its group
bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	--group "$(getent group 65534 | cut -d: -f1)" \
	--sock "$SOCK" -v
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"

# ---- 1: system() and popen() children
bg inh app /usr/bin/python3 "$D/inherit_srv.py" 7600
wait_for 10 grep -q listening "$TMP/inh.out" || fail "inherit_srv: $(cat "$TMP/inh.err")"
# the kernel peer: every line, then how long the FIN took after the last one
in_b timeout 15 /usr/bin/python3 - "$IP4_A" 7600 >"$TMP/peer.out" <<'PY' ||
import socket, sys, time
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
data, last = b"", time.monotonic()
while True:
    b = c.recv(4096)
    if not b:
        break
    data, last = data + b, time.monotonic()
sys.stdout.write(data.decode() + "FIN after %d ms\n" % ((time.monotonic() - last) * 1000))
PY
	fail "system/popen: the kernel peer's connection"
got=$(head -n -1 "$TMP/peer.out")
ms=$(tail -1 "$TMP/peer.out" | cut -d' ' -f3)
want=$'from system\nfrom popen\nO_NONBLOCK 1\nfrom the parent\nfrom a late helper'
[ "$got" = "$want" ] || fail "system/popen: the kernel peer got '$got' (stderr: $(cat "$TMP/inh.err"))"
# the FIN comes with the helper's exit, not when popen's ticket lapses (5 s
# after the popen, 4.7 s after the helper's line)
[ "$ms" -lt 2000 ] || fail "system/popen: the FIN came $ms ms after the helper's line"
wait_pid 10 "$PID_inh" || fail "inherit_srv failed: $(cat "$TMP/inh.err")"
n=$(grep -c "adopts pid .* (inherited)" "$LOG")
[ "$n" -ge 4 ] || fail "system/popen: skopsd saw $n children adopt the socket, want 4"
echo "system() and popen() children wrote into the inherited socket ($n adoptions, FIN $ms ms after the last line)"

# ---- 2: SO_REUSEPORT across users
# reuse NAME UIDCMD... ADDR PORT: a reuse_srv.py, its first line awaited
reuse() {
	local name=$1
	shift
	bg "$name" "$@"
	wait_for 10 grep -qE "listening|EADDRINUSE" "$TMP/$name.out" ||
		fail "reuse_srv $name: $(cat "$TMP/$name.err")"
	head -1 "$TMP/$name.out" | cut -d' ' -f1
}
# owners PORT [udp]: the kernel's rule first, on its loopback (uid 0 binds,
# uid 65534 is refused), then the same under the shim with a second uid 0
# socket joining, then 16 clients (16 source ports) answered by both uid 0
# ones
owners() {
	local port=$1 proto=${2:-}
	local pre=${proto:+u} up=${proto:+UDP } what=listeners
	[ -z "$proto" ] || what=sockets
	k0=$(reuse "${pre}k0" ip netns exec "$NS_B" timeout 20 /usr/bin/python3 "$D/reuse_srv.py" \
		127.0.0.1 "$port" $proto)
	k1=$(reuse "${pre}k1" ip netns exec "$NS_B" timeout 20 "${NOBODY[@]}" /usr/bin/python3 \
		"$D/reuse_srv.py" 127.0.0.1 "$port" $proto)
	[ "$k0 $k1" = "listening EADDRINUSE" ] ||
		fail "the kernel's ${up}SO_REUSEPORT: uid 0 '$k0', uid 65534 '$k1' (want listening, EADDRINUSE)"
	r0=$(reuse "${pre}r0" app /usr/bin/python3 "$D/reuse_srv.py" 0.0.0.0 "$port" $proto)
	r1=$(reuse "${pre}r1" ip netns exec "$NS_A" timeout 30 "${NOBODY[@]}" "$RUN" --sock "$SOCK" -- \
		/usr/bin/python3 "$D/reuse_srv.py" 0.0.0.0 "$port" $proto)
	r2=$(reuse "${pre}r2" app /usr/bin/python3 "$D/reuse_srv.py" 0.0.0.0 "$port" $proto)
	[ "$r0 $r1 $r2" = "listening EADDRINUSE listening" ] ||
		fail "${up}SO_REUSEPORT under the shim: uid 0 '$r0', uid 65534 '$r1', uid 0 again '$r2'" \
			"(want listening, EADDRINUSE, listening; $(cat "$TMP/${pre}r1.err"))"
	local pids=$TMP/${pre}pids
	for i in $(seq 1 16); do
		if [ -n "$proto" ]; then
			echo x | in_b timeout 5 socat -T 2 - UDP4:$IP4_A:$port >>"$pids"
		else
			in_b timeout 5 socat -u TCP4:$IP4_A:$port - >>"$pids"
		fi || fail "${up}reuseport: client $i"
	done
	npids=$(sort -u "$pids" | wc -l)
	[ "$(wc -l <"$pids")" = 16 ] && [ "$npids" = 2 ] ||
		fail "${up}reuseport: 16 answers from the 2 uid 0 $what wanted, got: $(sort "$pids" | uniq -c | tr -s ' \n' ' ')"
	echo "${up}SO_REUSEPORT: uid 65534 refused as on the kernel; both uid 0 $what" \
		"answered ($(sort "$pids" | uniq -c | tr -s ' \n' ' '))"
}
owners 7700
grep -q "uid 65534" "$LOG" || fail "skopsd did not see the uid 65534 client"
# the same for UDP sockets: the group is one user's, its datagrams spread by
# their source
owners 7701 udp
echo "PASS: system/popen children, SO_REUSEPORT owners"
