#!/usr/bin/env bash
# Interop: one skcat listener on a stack with an IPv4 and an IPv6 address
# takes a kernel IPv4 and a kernel IPv6 connection at once (skcat --echo
# --conns 2): SKOPS_DUAL_MIB (default 4) MiB each way on each, echoed back
# intact, and skcat -v names each peer and local address as Linux's own
# getpeername/getsockname do for the same listener shape (dual_client.py
# reference builds it on the kernel). Mode dual: skcat's default, one IPv6
# socket with IPV6_V6ONLY off (IPv4 peers are v4-mapped); mode v6only:
# skcat --v6only, an IPv4 and an IPV6_V6ONLY IPv6 socket on one port.
. "$(dirname "$0")/lib.sh"
need_root_and_tools /usr/bin/python3
SKCAT=${SKOPS_BUILD:?}/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
CLIENT=$(dirname "$0")/dual_client.py
MIB=${SKOPS_DUAL_MIB:-4}
# names of this test's own
NS_A=skdl-a-$$ NS_B=skdl-b-$$ VETH_A=skdl-va-$$ VETH_B=skdl-vb-$$
AF_PACKET_VDEV="net_af_packet0,iface=$VETH_A"
setup_netns

# expected: the kernel's form of a peer, with the kernel's address swapped
# for the one skcat sees
expect() { # mode fam addr
	local ref
	ref=$(grep "^$2 " "$TMP/ref_$1" | cut -d' ' -f2)
	[ -n "$ref" ] || fail "$1: no kernel reference for $2"
	if [ "$2" = v4 ]; then echo "${ref/$IP4_B/$3}"; else echo "${ref/$IP6_B/$3}"; fi
}

port=5100
for mode in dual v6only; do
	in_b /usr/bin/python3 "$CLIENT" reference $mode "$IP4_B" "$IP6_B" >"$TMP/ref_$mode" ||
		fail "$mode: kernel reference listener"
	port=$((port + 1))
	extra=()
	[ $mode = v6only ] && extra=(--v6only)
	BG_IN= bg "sk_$mode" timeout 150 ip netns exec "$NS_A" env SKCAT_VERBOSE=1 "$SKCAT" \
		--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --addr "$IP6_A/64" --timeout 140 \
		--echo --conns 2 -v "${extra[@]}" -l $port
	wait_for 20 grep -q "port 0:" "$TMP/sk_$mode.err" ||
		fail "$mode: skcat did not start: $(cat "$TMP/sk_$mode.err")"
	sleep 0.5
	in_b timeout 150 /usr/bin/python3 "$CLIENT" clients "$IP4_A" "$IP6_A" $port $((MIB << 20)) \
		>"$TMP/cl_$mode" 2>"$TMP/cl_$mode.err" || {
		cat "$TMP/sk_$mode.err" >&2
		fail "$mode: kernel clients: $(cat "$TMP/cl_$mode.err")"
	}
	eval "pid=\$PID_sk_$mode"
	wait_pid 60 "$pid" || fail "$mode: skcat exit $?: $(cat "$TMP/sk_$mode.err")"
	for fam in v4 v6; do
		read -r _ caddr cport < <(grep "^$fam " "$TMP/cl_$mode")
		if [ $fam = v4 ]; then mine=$IP4_A; else mine=$IP6_A; fi
		want="skcat: accepted $(expect $mode $fam "$caddr"):$cport on $(expect $mode $fam "$mine"):$port"
		grep -qxF "$want" "$TMP/sk_$mode.err" ||
			fail "$mode $fam: skcat -v does not say '$want':$(echo; grep accepted "$TMP/sk_$mode.err")"
		echo "ok: $mode $fam: $want"
	done
	echo "ok: $mode: IPv4 and IPv6 at once, $MIB MiB each way on each"
done
echo "PASS: dual-family listener"
