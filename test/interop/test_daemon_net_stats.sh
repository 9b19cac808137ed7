#!/usr/bin/env bash
# Interop (issue 30): skopsd keeps the network layer's drop counters and
# `skopsctl net stats` reads them from its control socket (SKP_NET_STATS).
# After a second of spoofed ARP (a third of it requests for other hosts)
# and of IPv6 first fragments that never complete, from the peer namespace
# (test/interop/attacker.py), the counters that name those drops must show
# them: neigh_ignored and reasm_evicted, in the text and the JSON (-j).
. "$(dirname "$0")/lib.sh"
need_root_and_tools /usr/bin/python3 ping
shim_bins
CTL=$SKOPS_BUILD/apps/skopsctl
[ -x "$CTL" ] || fail "no skopsctl at $CTL"
HERE=$(dirname "$0")
SOCK=$TMP/skopsd.sock
setup_netns

bg skopsd timeout 60 ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	--addr "$IP6_A/64" --sock "$SOCK"
wait_for 20 grep -q "serving on" "$TMP/skopsd.err" || {
	cat "$TMP/skopsd.err"
	fail "skopsd did not start"
}
"$CTL" net stats "$SOCK" >"$TMP/before.txt" || fail "skopsctl net stats: $(cat "$TMP/before.txt")"
grep -q '^neigh_ignored 0$' "$TMP/before.txt" || fail "before the attack: $(cat "$TMP/before.txt")"

# the peer learns skopsd's MACs (the attacker writes frames to them)
in_b ping -c 1 -W 2 "$IP4_A" >/dev/null || fail "no ping reply from $IP4_A"
in_b ping -6 -c 1 -W 2 "$IP6_A" >/dev/null || fail "no ping reply from $IP6_A"
mac() { in_b ip neigh show "$1" | awk '{for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1)}'; }
m4=$(mac "$IP4_A") m6=$(mac "$IP6_A")
[ -n "$m4" ] && [ -n "$m6" ] || fail "no neighbour entries for skopsd in the peer"
in_b /usr/bin/python3 "$HERE/attacker.py" arp "$VETH_B" "$m4" "$IP4_A" 1 1500 >"$TMP/arp.json" ||
	fail "arp attacker"
in_b /usr/bin/python3 "$HERE/attacker.py" frag6 "$VETH_B" "$m6" "$IP6_A" 1 1500 >"$TMP/frag6.json" ||
	fail "frag6 attacker"
sleep 0.3

"$CTL" net stats "$SOCK" >"$TMP/after.txt" || fail "skopsctl net stats: $(cat "$TMP/after.txt")"
"$CTL" net stats "$SOCK" -j >"$TMP/after.json" || fail "skopsctl net stats -j"
echo "skopsctl net stats after the attacks:"
grep -v ' 0$' "$TMP/after.txt"
/usr/bin/python3 - "$TMP/after.txt" "$TMP/after.json" "$TMP/arp.json" "$TMP/frag6.json" <<'PY' ||
import json, sys
text = dict(l.split() for l in open(sys.argv[1]))
j = json.load(open(sys.argv[2]))
arp, frag6 = (json.load(open(f))["sent"] for f in sys.argv[3:5])
assert {k: str(v) for k, v in j.items()} == text, (j, text)
# every counter of net_drop_names, in order
assert len(j) >= 27 and list(j)[:2] == ["neigh_table_full", "neigh_evicted"], list(j)
assert j["neigh_ignored"] >= arp // 4, (j["neigh_ignored"], arp)
# 64 slots: all but those still in progress were evicted
assert j["reasm_evicted"] >= frag6 - 64, (j["reasm_evicted"], frag6)
assert j["pmtu_updates"] == 0, j
print("arp %d sent: neigh_ignored %d; frag6 %d sent: reasm_evicted %d" % (
    arp, j["neigh_ignored"], frag6, j["reasm_evicted"]))
PY
	fail "counters"
"$CTL" net stats "$TMP/none.sock" >/dev/null 2>"$TMP/none.err" &&
	fail "skopsctl net stats without a daemon succeeded"
grep -q "skopsctl: net stats: skopsd at $TMP/none.sock: No such file" "$TMP/none.err" ||
	fail "no daemon: $(cat "$TMP/none.err")"
echo "PASS: skopsctl net stats reads skopsd's network-layer counters after an attack"
