#!/usr/bin/env bash
# Interop: UDP datagrams over IPv6 larger than the 1500-byte veth MTU, up to
# the largest (65527 bytes), between the kernel and skops (the network layer
# alone, net_responder, on af_packet), checked byte for byte both ways:
#  - skops originates (--udp-burst): it fragments (RFC 8200 §4.5), the kernel
#    reassembles;
#  - the kernel originates: it fragments, skops reassembles and echoes the
#    datagram back as its own fragments.
# The counters show that IPv6 fragments reach af_packet as fragments: the
# PMD's PACKET_FANOUT_FLAG_DEFRAG makes the kernel reassemble IPv4 only.
. "$(dirname "$0")/lib.sh"
need_root_and_tools
[ -x "${SKOPS_NET_RESPONDER:-}" ] || fail "SKOPS_NET_RESPONDER not set to the net_responder binary"
setup_netns

SIZES=1453,1800,4000,9000,30000,65527
bg resp timeout 60 ip netns exec "$NS_A" "$SKOPS_NET_RESPONDER" --vdev "$AF_PACKET_VDEV" \
	--addr "$IP6_A/64" --udp-echo 7 --udp-burst "$SIZES" --seconds 40
wait_for 20 grep -q "net_responder: up" "$TMP/resp.err" || {
	cat "$TMP/resp.err"
	fail "net_responder did not come up"
}

in_b timeout 60 /usr/bin/python3 - "$IP6_A" "$SIZES" <<'PY' || fail "large IPv6 datagrams"
import socket, sys
addr, sizes = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
c = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
# SO_RCVBUFFORCE: room for the whole burst (a 65527-byte datagram's
# fragments cost far more than its bytes in a receive buffer)
c.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)
c.settimeout(5)

def pattern(n, a, b):
    return bytes((k * a + b) & 255 for k in range(n))

# skops sends one datagram of each size; the kernel reassembles them
c.sendto(b"go", (addr, 7))
got = {}
for _ in sizes:
    d, src = c.recvfrom(70000)
    got[len(d)] = d
for n in sizes:
    assert n in got, "skops's %d-byte datagram did not arrive (got %s)" % (n, sorted(got))
    assert got[n] == pattern(n, 7, n), "skops's %d-byte datagram differs" % n
# the kernel sends, skops reassembles and echoes
for n in sizes:
    d = pattern(n, 13, n + 1)
    c.sendto(d, (addr, 7))
    r = c.recvfrom(70000)[0]
    assert r == d, "echo of %d bytes: %d bytes back, %s" % (
        n, len(r), "same length, other bytes" if len(r) == n else "")
print("large IPv6 datagrams: %s bytes, both ways, byte for byte" % sys.argv[2])
PY

kill -INT "$PID_resp"
wait_pid 10 "$PID_resp"
stats=$(cat "$TMP/resp.out")
echo "net_responder: $stats"
echo "$stats" | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
sizes = [int(x) for x in sys.argv[1].split(",")]
# fragments of one datagram: 1448 bytes each (1500 - 40 - 8, a multiple of 8)
frags = sum((n + 8 + 1447) // 1448 for n in sizes)
assert s["udp_burst_sent"] == len(sizes), s
assert s["ip6_reasm_ok"] == len(sizes), s
assert s["ip6_frag_in"] >= frags, s
assert s["ip6_frag_out"] == 2 * frags, s
assert s["ip6_reasm_drop"] == 0 and s["ip6_reasm_timeout"] == 0, s
assert s["udp_bad_csum"] == 0 and s["l4_bad_csum"] == 0, s
' "$SIZES" || fail "counters"
echo "PASS: IPv6 UDP fragmentation and reassembly against the kernel"
