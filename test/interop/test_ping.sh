#!/usr/bin/env bash
# Interop: the kernel pings skops (ARP + ICMP echo, NDP + ICMPv6 echo) and
# talks UDP to it (echo on port 7, port unreachable on a closed port), with
# the network layer alone (net_responder) on af_packet.
. "$(dirname "$0")/lib.sh"
need_root_and_tools ping socat
[ -x "${SKOPS_NET_RESPONDER:-}" ] || fail "SKOPS_NET_RESPONDER not set to the net_responder binary"
setup_netns

bg resp timeout 60 ip netns exec "$NS_A" "$SKOPS_NET_RESPONDER" --vdev "$AF_PACKET_VDEV" \
	--addr "$IP4_A/24" --addr "$IP6_A/64" --udp-echo 7 --seconds 40
wait_for 20 grep -q "net_responder: up" "$TMP/resp.err" || {
	cat "$TMP/resp.err"
	fail "net_responder did not come up"
}

timeout 20 ip netns exec "$NS_B" ping -c 5 -i 0.2 -W 2 "$IP4_A" || fail "IPv4 ping"
timeout 20 ip netns exec "$NS_B" ping -6 -c 5 -i 0.2 -W 2 "$IP6_A" || fail "IPv6 ping"
# a large echo: the reply carries the 1400 data bytes back intact
timeout 20 ip netns exec "$NS_B" ping -c 2 -s 1400 -i 0.2 -W 2 "$IP4_A" || fail "IPv4 ping 1400 bytes"
in_b ip neigh show "$IP4_A" | grep -q lladdr || fail "kernel has no ARP entry for skops"
in_b ip -6 neigh show "$IP6_A" | grep -q lladdr || fail "kernel has no ND entry for skops"

got=$(echo "hello-udp4" | timeout 5 ip netns exec "$NS_B" socat -T 2 - "UDP4:$IP4_A:7")
[ "$got" = "hello-udp4" ] || fail "UDP echo v4 returned '$got'"
got=$(echo "hello-udp6" | timeout 5 ip netns exec "$NS_B" socat -T 2 - "UDP6:[$IP6_A]:7")
[ "$got" = "hello-udp6" ] || fail "UDP echo v6 returned '$got'"
# 1800 bytes: the kernel fragments it, the af_packet PMD's fanout has the
# kernel of skops's netns reassemble it (PACKET_FANOUT_FLAG_DEFRAG), the echo
# goes back as IPv4 fragments from skops (RFC 791 §3.2). 4000 bytes: the
# reassembled frame is cut to the ring's 2048-byte frame (ip4_bad_len).
in_b timeout 10 /usr/bin/python3 -c '
import socket, sys
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.settimeout(2)
d = bytes((k * 7) & 255 for k in range(1800))
c.sendto(d, (sys.argv[1], 7))
r = c.recvfrom(65536)[0]
assert r == d, "%d bytes back" % len(r)
c.sendto(bytes(4000), (sys.argv[1], 7))' "$IP4_A" || fail "UDP echo of a fragmented 1800-byte datagram"
# closed port: the kernel sees ICMP port unreachable as ECONNREFUSED
out=$(echo x | timeout 5 ip netns exec "$NS_B" socat -T 2 - "UDP4:$IP4_A:9" 2>&1; echo x | timeout 5 ip netns exec "$NS_B" socat -T 2 - "UDP4:$IP4_A:9" 2>&1)
echo "$out" | grep -qi "refused" || fail "no port unreachable seen by the kernel: $out"

kill -INT "$PID_resp"
wait_pid 10 "$PID_resp"
stats=$(cat "$TMP/resp.out")
echo "net_responder: $stats"
echo "$stats" | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["icmp_echo_replies"] >= 7, s
assert s["icmp6_echo_replies"] >= 5, s
assert s["ndp_na_out"] >= 1 and s["arp_replies_out"] >= 1, s
assert s["udp_echoed"] == 3, s
assert s["ip4_frag_out"] >= 2 and s["ip4_bad_len"] == 1, s
assert s["icmp_errors_out"] >= 1, s
assert s["l4_bad_csum"] == 0 and s["ip4_bad_csum"] == 0, s
' || fail "counters"
echo "PASS: ping/udp v4+v6"
