#!/usr/bin/env bash
# Interop: skcat on af_packet against the Linux kernel (socat): one
# connection moving SKOPS_INTEROP_MIB (default 16) MiB each way at once,
# sha256 equal, IPv4 and IPv6, kernel as server and as client; the kernel's
# tcpdump capture shows skops's SYN / SYN-ACK options.
. "$(dirname "$0")/lib.sh"
need_root_and_tools socat tcpdump sha256sum /usr/bin/python3
SKCAT=${SKOPS_BUILD:?}/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
MIB=${SKOPS_INTEROP_MIB:-16}
setup_netns
head -c $((MIB << 20)) /dev/urandom >"$TMP/a_in"
head -c $((MIB << 20)) /dev/urandom >"$TMP/b_in"
bg dump timeout 300 ip netns exec "$NS_B" tcpdump --immediate-mode -U -s 128 -i "$VETH_B" -w "$TMP/k.pcap" \
	'(ip and tcp[tcpflags] & tcp-syn != 0) or (ip6 and ip6[6] = 6 and ip6[53] & 2 != 0)'
wait_for 10 test -s "$TMP/k.pcap" || sleep 1

check() { # name
	local a b
	a=$(sha256sum <"$TMP/a_in" | cut -d' ' -f1)
	b=$(sha256sum <"$TMP/b_out" | cut -d' ' -f1)
	[ "$a" = "$b" ] || fail "$1: skops->kernel sha256 differs ($(stat -c %s "$TMP/b_out") bytes arrived)"
	a=$(sha256sum <"$TMP/b_in" | cut -d' ' -f1)
	b=$(sha256sum <"$TMP/a_out" | cut -d' ' -f1)
	[ "$a" = "$b" ] || fail "$1: kernel->skops sha256 differs ($(stat -c %s "$TMP/a_out") bytes arrived)"
	echo "ok: $1 ($MIB MiB each way) $(date +%T)"
}

port=5000
for fam in 4 6; do
	if [ $fam = 4 ]; then ska=$IP4_A sa=$IP4_A sopt=TCP4 kaddr=$IP4_B; else ska="[$IP6_A]" sa=$IP6_A sopt=TCP6 kaddr=$IP6_B; fi
	# one family per run: the listener of the other family would share the port
	if [ $fam = 4 ]; then mine="$IP4_A/24"; else mine="$IP6_A/64"; fi
	args=(--vdev "$AF_PACKET_VDEV" --addr "$mine" --info --timeout 240)

	# kernel server, skcat client
	port=$((port + 1))
	rm -f "$TMP/b_out" "$TMP/a_out"
	bg ksrv timeout 250 ip netns exec "$NS_B" socat -t 60 -T 120 \
		"$sopt-LISTEN:$port,reuseaddr" "GOPEN:$TMP/b_in!!CREATE:$TMP/b_out"
	wait_for 10 ip netns exec "$NS_B" ss -ltn "sport = :$port" | grep -q LISTEN
	sleep 0.3
	t0=$(date +%s.%N)
	timeout 250 ip netns exec "$NS_A" "$SKCAT" "${args[@]}" "$kaddr" $port \
		<"$TMP/a_in" >"$TMP/a_out" 2>"$TMP/skcat.err" || {
		cat "$TMP/skcat.err"
		fail "v$fam kernel-server: skcat exit $?"
	}
	t1=$(date +%s.%N)
	wait_pid 60 "$PID_ksrv" || fail "v$fam kernel-server: socat did not finish"
	check "v$fam kernel server, skcat client"
	echo "  $(awk -v a="$t0" -v b="$t1" -v m="$MIB" 'BEGIN{printf "%.1f Mbit/s each way", m*8*1.048576/(b-a)}')"
	tail -1 "$TMP/skcat.err"

	# skcat server, kernel client
	port=$((port + 1))
	rm -f "$TMP/b_out" "$TMP/a_out"
	BG_IN=$TMP/a_in bg sksrv timeout 250 ip netns exec "$NS_A" env SKCAT_VERBOSE=1 "$SKCAT" "${args[@]}" -l $port
	wait_for 20 grep -q "port 0:" "$TMP/sksrv.err" || fail "v$fam skcat server did not start"
	sleep 0.5
	timeout 250 ip netns exec "$NS_B" socat -t 60 -T 120 "GOPEN:$TMP/b_in!!CREATE:$TMP/b_out" \
		"$sopt:$ska:$port,connect-timeout=20" || fail "v$fam skcat-server: socat failed"
	wait_pid 60 "$PID_sksrv" >/dev/null || {
		cat "$TMP/sksrv.err"
		fail "v$fam skcat-server: skcat failed"
	}
	mv "$TMP/sksrv.out" "$TMP/a_out"
	check "v$fam skcat server, kernel client"
	tail -1 "$TMP/sksrv.err"
	sleep 1
	/usr/bin/python3 "$(dirname "$0")/pcap_check.py" "$TMP/k.pcap" "$sa" $((port - 1)) ||
		fail "v$fam SYN options (skops as client)"
	/usr/bin/python3 "$(dirname "$0")/pcap_check.py" "$TMP/k.pcap" "$sa" $port ||
		fail "v$fam SYN-ACK options (skops as server)"
done
echo "PASS: bulk v4+v6, kernel client and server"
