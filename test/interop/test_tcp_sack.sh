#!/usr/bin/env bash
# Interop: SACK loss recovery against the Linux kernel. skcat sends
# SKOPS_INTEROP_MIB (default 16) MiB to a kernel receiver (socat) while
# nftables in the kernel's namespace drops 1 %, then 5 %, of skops's data
# segments at random; sha256 equal, and the kernel-side capture shows skops
# resending only holes (sack_check.py: nothing the kernel had SACKed, about
# one retransmission per drop). Prints goodput and retransmitted bytes.
. "$(dirname "$0")/lib.sh"
need_root_and_tools socat tcpdump nft sha256sum /usr/bin/python3
SKCAT=${SKOPS_BUILD:?}/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
MIB=${SKOPS_INTEROP_MIB:-16}
setup_netns
head -c $((MIB << 20)) /dev/urandom >"$TMP/a_in"
want=$(sha256sum <"$TMP/a_in" | cut -d' ' -f1)

port=5100
for permille in 10 50; do
	port=$((port + 1))
	in_b nft -f - <<NFT || fail "nft: loss rule"
table inet skops_loss {
	chain in {
		type filter hook input priority 0;
		ip saddr $IP4_A tcp dport $port meta length > 100 numgen random mod 1000 < $permille counter drop
	}
}
NFT
	rm -f "$TMP/b_out" "$TMP/k.pcap"
	bg dump timeout 300 ip netns exec "$NS_B" tcpdump --immediate-mode -U -s 128 -B 16384 \
		-i "$VETH_B" -w "$TMP/k.pcap" "tcp port $port"
	wait_for 10 test -s "$TMP/k.pcap" || sleep 1
	bg ksrv timeout 250 ip netns exec "$NS_B" socat -u -T 120 "TCP4-LISTEN:$port,reuseaddr" \
		"CREATE:$TMP/b_out"
	wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :$port' | grep -q LISTEN" ||
		fail "socat did not listen"
	t0=$(date +%s.%N)
	timeout 250 ip netns exec "$NS_A" "$SKCAT" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
		--info --timeout 240 "$IP4_B" $port <"$TMP/a_in" >/dev/null 2>"$TMP/skcat.err" || {
		cat "$TMP/skcat.err"
		fail "loss $permille/1000: skcat exit $?"
	}
	wait_pid 60 "$PID_ksrv" || fail "loss $permille/1000: socat did not finish"
	t1=$(date +%s.%N)
	got=$(sha256sum <"$TMP/b_out" | cut -d' ' -f1)
	[ "$want" = "$got" ] || fail "loss $permille/1000: sha256 differs ($(stat -c %s "$TMP/b_out") bytes)"
	sleep 0.5
	kill "$PID_dump" 2>/dev/null
	wait_pid 10 "$PID_dump" >/dev/null
	drops=$(in_b nft list table inet skops_loss | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
	in_b nft delete table inet skops_loss
	[ -n "$drops" ] && [ "$drops" -gt 0 ] || fail "loss $permille/1000: nft dropped nothing"
	info=$(grep bytes_retrans "$TMP/skcat.err" | tail -1)
	rb=$(sed -n 's/.*"bytes_retrans":\([0-9]*\).*/\1/p' <<<"$info")
	echo "ok: loss $permille/1000, $MIB MiB: $(awk -v a="$t0" -v b="$t1" -v m="$MIB" \
		'BEGIN{printf "%.1f Mbit/s", m*8*1.048576/(b-a)}'), $drops segments dropped, skops resent $rb bytes"
	/usr/bin/python3 "$(dirname "$0")/sack_check.py" "$TMP/k.pcap" "$IP4_A" $port "$drops" ||
		fail "loss $permille/1000: retransmissions"
done
echo "PASS: SACK recovery against the kernel at 1% and 5% loss"
