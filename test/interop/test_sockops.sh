#!/usr/bin/env bash
# Interop: the effects of an attached sock_ops program on the wire, seen in
# the kernel's capture (IPv6, port 55601, peers "nearby" as hooks/progs'
# policy wants): RWND_INIT (rwnd_init.o: 40 segments) sets the SYN-ACK
# window, TIMEOUT_INIT (syn_rto.o: 10 ms) spaces the SYN retransmissions
# while nftables drops the first two SYNs, NEEDS_ECN (cong_ecn.o) puts
# ECE+CWR in the SYN.
. "$(dirname "$0")/lib.sh"
need_root_and_tools socat tcpdump nft /usr/bin/python3
SKCAT=${SKOPS_BUILD:?}/apps/skcat
PROGS=$SKOPS_BUILD/hooks/progs
for p in rwnd_init syn_rto cong_ecn; do
	[ -f "$PROGS/$p.o" ] || fail "missing program $PROGS/$p.o"
done
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
PORT=55601
setup_netns
CHECK=$(dirname "$0")/pcap_check.py
args=(--vdev "$AF_PACKET_VDEV" --addr "$IP6_A/64" --info --timeout 60)

capture() { # name
	BG_IN= bg "dump_$1" timeout 90 ip netns exec "$NS_B" tcpdump --immediate-mode -U -s 128 -i "$VETH_B" \
		-w "$TMP/$1.pcap" "ip6 and ip6[6] = 6 and ip6[53] & 2 != 0"
	wait_for 10 test -s "$TMP/$1.pcap"
	sleep 1
}
stop_capture() { # name
	sleep 0.5
	eval "kill \$PID_dump_$1"
	sleep 0.5
}

# RWND_INIT: skcat listens, the kernel connects from a "distant" address
# (rwnd_init.o answers only when the upper 44 bits differ)
FAR_B=fd00:2::1
ip netns exec "$NS_B" ip -6 addr add "$FAR_B/16" dev "$VETH_B" nodad
capture rwnd
echo "from skcat" >"$TMP/s_in"
BG_IN=$TMP/s_in bg sksrv timeout 60 ip netns exec "$NS_A" env SKCAT_VERBOSE=1 "$SKCAT" \
	--vdev "$AF_PACKET_VDEV" --addr "$IP6_A/16" --info --timeout 60 --sockops "$PROGS/rwnd_init.o" -l $PORT
wait_for 20 grep -q "port 0:" "$TMP/sksrv.err" || fail "skcat server did not start: $(cat "$TMP/sksrv.err")"
sleep 0.5
echo "from kernel" | timeout 20 ip netns exec "$NS_B" socat -t 5 - "TCP6:[$IP6_A]:$PORT,connect-timeout=10,bind=[$FAR_B]" \
	>"$TMP/k_out" || fail "kernel client"
wait_pid 20 "$PID_sksrv" || fail "skcat server: $(cat "$TMP/sksrv.err")"
stop_capture rwnd
grep -q "from kernel" "$TMP/sksrv.out" || fail "rwnd: data"
/usr/bin/python3 "$CHECK" "$TMP/rwnd.pcap" "$IP6_A" $PORT synack_window=$((40 * 1428)),$((40 * 1440)) ||
	fail "RWND_INIT not on the wire"

# TIMEOUT_INIT: the kernel drops the first two SYNs
ip netns exec "$NS_B" nft -f - <<NFT || fail "nft"
table inet skops_drop {
	chain in {
		type filter hook input priority 0;
		ip6 nexthdr tcp tcp dport $PORT tcp flags & (syn | ack) == syn numgen inc mod 1000 < 2 counter drop
	}
}
NFT
capture rto
# the kernel side answers from a file: SYSTEM:echo races its own child (a
# write of the client's data into the exited child aborts socat)
echo from-kernel >"$TMP/k_in"
BG_IN=$TMP/k_in bg ksrv timeout 60 ip netns exec "$NS_B" socat -t 5 "TCP6-LISTEN:$PORT,reuseaddr" -
wait_for 10 ip netns exec "$NS_B" ss -ltn "sport = :$PORT" | grep -q LISTEN
echo "hi" | timeout 60 ip netns exec "$NS_A" "$SKCAT" "${args[@]}" --sockops "$PROGS/syn_rto.o" \
	"$IP6_B" $PORT >"$TMP/rto_out" 2>"$TMP/rto_err" || fail "skcat client (syn_rto): $(cat "$TMP/rto_err")"
stop_capture rto
drops=$(ip netns exec "$NS_B" nft list table inet skops_drop)
grep -q "packets 2" <<<"$drops" || fail "nft did not drop 2 SYNs: $drops; skcat: $(cat "$TMP/rto_err")"
ip netns exec "$NS_B" nft delete table inet skops_drop
grep -q from-kernel "$TMP/rto_out" || fail "syn_rto: no data from the kernel; skcat: $(cat "$TMP/rto_err")"
tail -1 "$TMP/rto_err"
/usr/bin/python3 "$CHECK" "$TMP/rto.pcap" "$IP6_A" $PORT min_syns=3 syn_gap_ms=5:80 ||
	fail "TIMEOUT_INIT not on the wire (default would be 1000 ms)"

# NEEDS_ECN: ECE+CWR in the SYN
capture ecn
BG_IN=$TMP/k_in bg ksrv2 timeout 60 ip netns exec "$NS_B" socat -t 5 "TCP6-LISTEN:$PORT,reuseaddr" -
wait_for 10 ip netns exec "$NS_B" ss -ltn "sport = :$PORT" | grep -q LISTEN
echo "hi" | timeout 60 ip netns exec "$NS_A" "$SKCAT" "${args[@]}" --sockops "$PROGS/cong_ecn.o" \
	"$IP6_B" $PORT >"$TMP/ecn_out" 2>"$TMP/ecn_err" || fail "skcat client (cong_ecn): $(cat "$TMP/ecn_err")"
stop_capture ecn
/usr/bin/python3 "$CHECK" "$TMP/ecn.pcap" "$IP6_A" $PORT ecn_syn=1 || fail "NEEDS_ECN not on the wire"
echo "PASS: RWND_INIT, TIMEOUT_INIT and NEEDS_ECN on the wire"
