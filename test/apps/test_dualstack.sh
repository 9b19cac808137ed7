#!/usr/bin/env bash
# Dual-stack AF_INET6 sockets through the shim, TCP and UDP, against the
# kernel's own answers. dual_probe.py runs twice in the a namespace: first on
# the kernel (the veth given kernel addresses for the run), then under the
# shim on skopsd (af_packet on the same veth, the addresses taken back); the
# kernel in the b namespace is its peer both times. Each run prints the API's
# answers (IPV6_V6ONLY rules, bind conflicts between 0.0.0.0:P and [::]:P),
# a v4-mapped connect/sendto to the peer's echo servers, and what a server on
# [::]:P (dual) and [::]:P+1 (IPV6_V6ONLY) sees of IPv4 and IPv6 clients:
# names v4-mapped, IPv4 refused by the IPv6-only one; and whose datagrams a
# UDP socket connected to ::ffff:B4:P takes (the peer's only; after
# connect(AF_UNSPEC) any IPv4 source's, no IPv6 one's). The two outputs must
# be equal, and hold the lines this test is about. Then socat UDP6-RECVFROM
# and an asyncio server on every address, under the shim, reached by
# kernel clients of both families.
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools socat /usr/bin/python3
shim_bins
D=$(dirname "$0")
PROBE=$D/dual_probe.py
NS_A=skds-a-$$ NS_B=skds-b-$$ VETH_A=skds-va-$$ VETH_B=skds-vb-$$
AF_PACKET_VDEV="net_af_packet0,iface=$VETH_A"
setup_netns
SOCK=$TMP/skopsd.sock
LOG=$TMP/skopsd.err
KPORT=7300

bg kudp ip netns exec "$NS_B" /usr/bin/python3 "$D/kudp_echo.py" "$IP4_B" $KPORT
bg ktcp ip netns exec "$NS_B" /usr/bin/python3 "$D/kecho.py" "$IP4_B" $KPORT
wait_for 10 grep -q up "$TMP/kudp.out" || fail "kernel UDP echo: $(cat "$TMP/kudp.err")"
wait_for 10 grep -q listening "$TMP/ktcp.out" || fail "kernel TCP echo: $(cat "$TMP/ktcp.err")"

# run NAME PORT [PREFIX...]: the probe's server in the a namespace (under
# PREFIX), its kernel clients in b; both outputs into $TMP/NAME
run() {
	local name=$1 port=$2
	shift 2
	bg "$name" ip netns exec "$NS_A" timeout 60 "$@" /usr/bin/python3 "$PROBE" server $port \
		"$IP4_A" "$IP6_A" "$IP4_B" "$IP6_B" $KPORT
	wait_for 20 grep -q "^up" "$TMP/$name.out" || fail "$name: server: $(cat "$TMP/$name.out" "$TMP/$name.err")"
	in_b timeout 60 /usr/bin/python3 "$PROBE" client "$IP4_A" "$IP6_A" "$IP4_B" "$IP6_B" $port \
		>"$TMP/$name.client" 2>&1 || fail "$name: clients: $(cat "$TMP/$name.client")"
	eval "wait_pid 20 \$PID_$name" || fail "$name: server exit $?: $(cat "$TMP/$name.err")"
	cat "$TMP/$name.out" "$TMP/$name.client" >"$TMP/$name"
}

# ---- the kernel's answers: the a side's veth with kernel addresses
in_a sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.$VETH_A.disable_ipv6=0
in_a ip addr add "$IP4_A/24" dev "$VETH_A"
in_a ip -6 addr add "$IP6_A/64" dev "$VETH_A" nodad
run kernel 7400
in_a ip addr flush dev "$VETH_A"
in_a sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.$VETH_A.disable_ipv6=1
in_b ip neigh flush dev "$VETH_B"

# ---- skops's, through the shim
bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	--addr "$IP6_A/64" --sock "$SOCK" -v
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"
run skops 7400 "$RUN" --sock "$SOCK" --

diff -u "$TMP/kernel" "$TMP/skops" || fail "the shim's answers differ from the kernel's (- kernel, + skops)"
# what the kernel answers, so a run where both go wrong cannot pass
for want in "tcp bind 0.0.0.0 then dual \[::\] EADDRINUSE" "udp bind dual \[::\] then 0.0.0.0 EADDRINUSE" \
	"udp v6only set after bind EINVAL" "tcp 7400 accepted ::ffff:B4 peer ::ffff:B4 local ::ffff:A4" \
	"udp 7400 from ::ffff:B4 len 4 data d" "client udp A4 0 reply d from A4 True" \
	"client tcp A4 1 ECONNREFUSED" "client udp A4 1 ECONNREFUSED" "client udp A6 1 reply d from A6 True" \
	"udp mapped sendto reply u from ::ffff:B4 True" "udp mapped connected reply v" "udp v6only sendto mapped ENETUNREACH" \
	"client udp connected peer reply p" "client udp connected other A4 ECONNREFUSED" \
	"client udp connected other A6 ECONNREFUSED" "client udp connected other A4 after reply a" \
	"client udp connected other A6 after ECONNREFUSED"; do
	grep -q "^$want" "$TMP/skops" || fail "no '$want' in the output"
done
sed 's/^/  /' "$TMP/skops"

# ---- unmodified programs: socat UDP6-RECVFROM (one dual-stack socket) and
# an asyncio server on every address (0.0.0.0 and an IPV6_V6ONLY [::] on one
# port), each reached over IPv4 and IPv6 by the kernel
for fam in 4 6; do
	bg socat$fam ip netns exec "$NS_A" timeout 20 "$RUN" --sock "$SOCK" -- \
		socat -T 10 UDP6-RECVFROM:750$fam SYSTEM:'echo pong from $SOCAT_PEERADDR'
done
sleep 1
got4=$(echo ping | in_b timeout 10 socat -T 3 - UDP4:$IP4_A:7504)
got6=$(echo ping | in_b timeout 10 socat -T 3 - "UDP6:[$IP6_A]:7506")
# socat names an IPv6 peer in full: ::ffff:198.18.0.1 is [0000:...:ffff:c612:0001]
full() { /usr/bin/python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$1"; }
[ "$got4" = "pong from [$(full "::ffff:$IP4_B")]" ] && [ "$got6" = "pong from [$(full "$IP6_B")]" ] ||
	fail "socat UDP6-RECVFROM under the shim: got '$got4' and '$got6'"
echo "socat UDP6-RECVFROM under the shim: $got4; $got6"
bg aio ip netns exec "$NS_A" timeout 20 "$RUN" --sock "$SOCK" -- /usr/bin/python3 -c '
import asyncio
async def hello(r, w):
    w.write(("hello %s\n" % w.get_extra_info("peername")[0]).encode())
    await w.drain()
    w.close()
async def main():
    srv = await asyncio.start_server(hello, None, 7510)
    print("up", sorted(s.family.name for s in srv.sockets), flush=True)
    await asyncio.sleep(15)
asyncio.run(main())'
wait_for 10 grep -q up "$TMP/aio.out" || fail "asyncio server under the shim: $(cat "$TMP/aio.err")"
got4=$(in_b timeout 10 socat -T 3 - TCP4:$IP4_A:7510 </dev/null)
got6=$(in_b timeout 10 socat -T 3 - "TCP6:[$IP6_A]:7510" </dev/null)
[ "$got4" = "hello $IP4_B" ] && [ "$got6" = "hello $IP6_B" ] ||
	fail "asyncio start_server under the shim ($(cat "$TMP/aio.out")): got '$got4' and '$got6'"
echo "asyncio start_server on every address under the shim ($(cat "$TMP/aio.out")): $got4; $got6"
kill "$PID_skopsd"
wait_pid 10 "$PID_skopsd" || fail "skopsd: exit status $? after SIGTERM: $(tail -3 "$LOG")"
echo "PASS: dual-stack AF_INET6 sockets (TCP, UDP) answer as the kernel's"
