#!/usr/bin/env bash
# Interop: the differential TCP scenarios of scenarios.py. Scapy in the peer
# netns sends the same crafted segments to a Linux listener (netns skscn-k,
# 198.18.1.2) and to a skcat listener (netns skscn-a, 198.18.0.2, DPDK
# net_af_packet on a veth) and compares the normalised answers; deliberate
# differences are allow-listed in scenarios.py (docs/tcp-scenarios.md).
# Prints "scenarios: N run, N same, N allowed, N differ"; fails on a differ.
# SC_ONLY=a,b runs only those scenarios; SC_JSON=FILE keeps the answers.
. "$(dirname "$0")/lib.sh"
need_root_and_tools /usr/bin/python3 nft
SKCAT=${SKOPS_BUILD:?}/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
SCEN=$(cd "$(dirname "$0")" && pwd)/scenarios.py
/usr/bin/python3 -c "import scapy.all" 2>/dev/null || fail "scapy missing (python3-scapy, scripts/install-deps.sh)"
NS_A=skscn-a-$$ NS_B=skscn-b-$$ NS_K=skscn-k-$$
VETH_A=skscn-a$$ VETH_B=skscn-b$$ VETH_K=skscn-k$$ VETH_BK=skscn-bk$$
AF_PACKET_VDEV="net_af_packet0,iface=$VETH_A"
cleanup_k() {
	ip netns del "$NS_K" 2>/dev/null
	cleanup
}
trap cleanup_k EXIT
setup_netns
ip netns add "$NS_K" || fail "ip netns add"
ip link add "$VETH_K" type veth peer name "$VETH_BK" || fail "veth"
ip link set "$VETH_K" netns "$NS_K"
ip link set "$VETH_BK" netns "$NS_B"
ip netns exec "$NS_K" ip link set lo up
ip netns exec "$NS_K" ip addr add 198.18.1.2/24 dev "$VETH_K"
ip netns exec "$NS_K" ip link set "$VETH_K" up
in_b ip addr add 198.18.1.1/24 dev "$VETH_BK"
in_b ip link set "$VETH_BK" up
ip netns exec "$NS_K" ethtool -K "$VETH_K" tx off rx off tso off gso off gro off >/dev/null 2>&1
in_b ethtool -K "$VETH_BK" tx off rx off tso off gso off gro off >/dev/null 2>&1
# the peer's own kernel must not reset the crafted connections (scapy's
# AF_PACKET frames do not pass this hook)
in_b nft -f - <<'EOF' || fail "nft: drop the peer kernel's RSTs"
table inet scn {
	chain out {
		type filter hook output priority 0;
		tcp flags & rst == rst drop
	}
}
EOF

BG_IN= bg ksrv timeout 300 ip netns exec "$NS_K" /usr/bin/python3 "$SCEN" server
wait_for 10 grep -q listening "$TMP/ksrv.out" || fail "kernel listener: $(cat "$TMP/ksrv.err")"
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }
export SC_IF_K=$VETH_BK SC_SRC_K=198.18.1.1 SC_DST_K=198.18.1.2 SC_MAC_K=$(mac "$NS_K" "$VETH_K")
export SC_IF_S=$VETH_B SC_SRC_S=$IP4_B SC_DST_S=$IP4_A SC_MAC_S=$(mac "$NS_A" "$VETH_A")
# skcat's command line, \x1f-separated: scenarios.py adds the mode and port
sep=$'\x1f'
SC_SKCAT="timeout${sep}200${sep}ip${sep}netns${sep}exec${sep}$NS_A${sep}env${sep}SKCAT_VERBOSE=1"
SC_SKCAT+="$sep$SKCAT$sep--vdev$sep$AF_PACKET_VDEV$sep--addr$sep$IP4_A/24$sep--timeout${sep}180"
export SC_SKCAT
in_b timeout 280 /usr/bin/python3 "$SCEN" run
rc=$?
[ $rc = 0 ] || fail "scenarios: exit $rc (a difference, or a scenario could not run)"
echo "PASS: TCP scenarios against the kernel"
