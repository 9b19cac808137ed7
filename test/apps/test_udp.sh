#!/usr/bin/env bash
# UDP through the shim on skopsd (af_packet in one netns, the Linux kernel
# in the other):
#  1. udp_probe against the kernel's echo, first on a kernel socket (in the
#     kernel's netns), then under the shim, IPv4 and IPv6: each errno and
#     result compared with the kernel's own socket (udp_probe.c lists them);
#  2. unmodified UDP servers under the shim (Python, bound to the wildcard,
#     IPv4 and IPv6, and an asyncio datagram endpoint) answering 1000
#     datagrams of varied sizes from a kernel client, content and source
#     address checked;
#  3. socat as a connected UDP client under the shim;
#  4. loopback stays on the kernel: a bind to 127.0.0.1 and a first sendto
#     to 127.0.0.1 under the shim are kernel sockets.
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools socat /usr/bin/python3
B=${SKOPS_BUILD:?}
SKOPSD=$B/apps/skopsd/skopsd
RUN=$B/apps/skops-run
PROBE=${SKOPS_UDP_PROBE:?}
for f in "$SKOPSD" "$RUN" "$B/apps/preload/libskops_preload.so" "$PROBE"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
D=$(dirname "$0")
setup_netns
SOCK=$TMP/skopsd.sock
LOG=$TMP/skopsd.err
app() { ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- "$@"; }

bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	--addr "$IP6_A/64" --sock "$SOCK" -v
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"
LOG=$TMP/skopsd.err

# ---- 1: the probe, kernel then shim
bg kecho4 ip netns exec "$NS_B" /usr/bin/python3 "$D/kudp_echo.py" "$IP4_B" 7100
bg kecho6 ip netns exec "$NS_B" /usr/bin/python3 "$D/kudp_echo.py" "$IP6_B" 7106
wait_for 10 grep -q up "$TMP/kecho4.out" || fail "kernel echo: $(cat "$TMP/kecho4.err")"
wait_for 10 grep -q up "$TMP/kecho6.out" || fail "kernel echo6: $(cat "$TMP/kecho6.err")"
for h in "$IP4_B 7100" "$IP6_B 7106"; do
	in_b timeout 60 "$PROBE" $h >"$TMP/kprobe.out" 2>&1 ||
		fail "udp_probe on a kernel socket ($h): $(cat "$TMP/kprobe.out")"
	app "$PROBE" $h skops >"$TMP/sprobe.out" 2>&1 ||
		fail "udp_probe under the shim ($h): $(cat "$TMP/sprobe.out")"
	# what the probe prints (buffer sizes, FIONREAD, ports) is the kernel's
	diff <(grep -v "^1000" "$TMP/kprobe.out") <(grep -v "^1000" "$TMP/sprobe.out") ||
		fail "udp_probe ($h): the shim's answers differ from the kernel's"
	echo "udp_probe $h: kernel and shim agree"
	sed 's/^/  /' "$TMP/sprobe.out"
done

# ---- 2: a UDP server under the shim, the kernel as client
userver() { # NAME ADDR PORT
	bg "$1" ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- /usr/bin/python3 -c '
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
print("up", s.getsockname()[1], flush=True)
while True:
    d, a = s.recvfrom(65536)
    s.sendto(d, a)' "$2" "$3"
	wait_for 10 grep -q up "$TMP/$1.out" || fail "UDP server under the shim: $(cat "$TMP/$1.err")"
}
kclient() { # SERVER PORT [MIN]: datagrams of MIN (default 0) to 1472 bytes
	in_b timeout 60 /usr/bin/python3 -c '
import socket, sys
host, port, low = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
c = socket.socket(fam, socket.SOCK_DGRAM); c.settimeout(2)
for i in range(1000):
    n = 1472 - (20 if fam == socket.AF_INET6 else 0) if i == 1 else max(low, (i * 613) % 1400)
    d = bytes((i * 31 + k * 5) & 255 for k in range(n))
    c.sendto(d, (host, port))
    r, a = c.recvfrom(65536)
    assert r == d, "datagram %d: %d bytes back, %d sent" % (i, len(r), n)
    assert a[0] == host and a[1] == port, "datagram %d from %r" % (i, a)
print("ok")' "$1" "$2" "${3:-0}" || fail "kernel client of the UDP server under the shim ($1 $2)"
}
userver userv4 0.0.0.0 7200
kclient "$IP4_A" 7200
userver userv6 :: 7206
kclient "$IP6_A" 7206
# asyncio's datagram endpoint: non-blocking sockets and epoll
bg uaio ip netns exec "$NS_A" timeout 60 "$RUN" --sock "$SOCK" -- /usr/bin/python3 -c '
import asyncio
class Echo(asyncio.DatagramProtocol):
    def connection_made(self, t):
        self.t = t
    def datagram_received(self, d, a):
        self.t.sendto(d, a)
async def main():
    await asyncio.get_running_loop().create_datagram_endpoint(Echo, local_addr=("0.0.0.0", 7210))
    print("up", flush=True)
    await asyncio.sleep(3600)
asyncio.run(main())'
wait_for 10 grep -q up "$TMP/uaio.out" || fail "asyncio UDP server under the shim: $(cat "$TMP/uaio.err")"
kclient "$IP4_A" 7210 1 # asyncio's transport sends no empty datagram
echo "UDP servers under the shim (IPv4, IPv6, asyncio): 1000 datagrams each from a kernel client"

# ---- 3: socat, a connected client
got=$(echo "hello over udp" | app socat -t1 - UDP4:$IP4_B:7100) || fail "socat UDP client"
[ "$got" = "hello over udp" ] || fail "socat UDP client: got '$got'"
echo "socat UDP client under the shim: echoed"

# ---- 4: loopback stays on the kernel
app /usr/bin/python3 -c '
import os, socket
def kind(s):
    return os.readlink("/proc/self/fd/%d" % s.fileno())
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(("127.0.0.1", 0))
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); b.sendto(b"x", a.getsockname())
assert a.recv(10) == b"x"
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.bind(("0.0.0.0", 0))
for s, want in ((a, "socket:"), (b, "socket:"), (c, "anon_inode:[eventfd]")):
    assert kind(s).startswith(want), (kind(s), want)
print("ok")' || fail "loopback UDP under the shim"
echo "loopback UDP stays on the kernel, a wildcard bind goes to skops"
kill "$PID_skopsd"
wait_pid 10 "$PID_skopsd" || fail "skopsd: exit status $? after SIGTERM: $(tail -3 "$LOG")"
echo "PASS: UDP probe (IPv4, IPv6), servers (plain, asyncio), socat, loopback"
