#!/usr/bin/env bash
# test_linkem: the link emulator against the kernel's own TCP on both sides:
# the delay ping sees, the rate iperf3 gets through a 100 Mbit/s bottleneck,
# a drop of the 200th data segment exactly, and the rate it relays with no
# impairment and no loss of its own (reported; the floor is modest because
# this machine's two cores are shared).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LINKEM=${SKOPS_BUILD:-$HERE/../../build}/test/linkem/linkem
TMP=$(mktemp -d /tmp/skops-linkem-XXXXXX)
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || fail "test_linkem needs root (network namespaces, AF_PACKET)"
for t in ip ethtool iperf3 ping python3 timeout; do
	command -v "$t" >/dev/null || fail "missing tool '$t' (scripts/install-deps.sh)"
done
[ -x "$LINKEM" ] || fail "no linkem binary at $LINKEM (build first)"
# shellcheck source=linkem_net.sh
. "$HERE/linkem_net.sh"
cleanup() {
	lem_cleanup
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
lem_setup || fail "netns/veth set-up"
ip netns exec "$LEM_NS_A" ip addr add 198.18.5.1/24 dev "$LEM_IF_A"
ip netns exec "$LEM_NS_B" ip addr add 198.18.5.2/24 dev "$LEM_IF_B"
AEXEC=(ip netns exec "$LEM_NS_A")
BEXEC=(ip netns exec "$LEM_NS_B")

json() { # FILE EXPR: a value of linkem's or iperf3's JSON
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
iperf() { # NAME SECONDS [iperf3 options]: kernel CUBIC A -> B, JSON in $TMP/NAME.json
	local name=$1 secs=$2
	shift 2
	"${BEXEC[@]}" timeout 30 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	"${AEXEC[@]}" timeout 30 iperf3 -c 198.18.5.2 -p 5201 -t "$secs" -C cubic -J "$@" \
		>"$TMP/$name.json" || fail "iperf3 $name: $(tail -3 "$TMP/$name.json")"
	wait "$srv"
}

# 1. delay: 5 ms each way
lem_start "$TMP/lem-delay.json" --delay 5 || fail "linkem did not start: $(cat "$TMP/lem-delay.json.log")"
# the first ping also waits for ARP across the link: warm it up first
"${AEXEC[@]}" ping -c 1 -W 2 -q 198.18.5.2 >/dev/null
out=$("${AEXEC[@]}" ping -c 10 -i 0.1 -q 198.18.5.2) || fail "ping through linkem: $out"
rtt=$(echo "$out" | sed -n 's/.* = \([0-9.]*\)\/\([0-9.]*\)\/.*/\1 \2/p')
lem_stop
echo "delay 5 ms each way: ping min/avg ${rtt/ //} ms"
python3 -c "import sys; a,b=map(float,sys.argv[1:]); sys.exit(0 if 10 <= a <= 11 and b <= 13 else 1)" $rtt ||
	fail "ping rtt min/avg $rtt ms through a 2 x 5 ms link"

# 2. rate: 100 Mbit/s, 10 ms RTT, a 150 KiB drop-tail queue
lem_start "$TMP/lem-rate.json" --delay 5 --rate 100 --queue 150k || fail "linkem"
iperf rate 5
lem_stop
mbit=$(json "$TMP/rate.json" "round(d['end']['sum_received']['bits_per_second']/1e6,1)")
qdrop=$(json "$TMP/lem-rate.json" "d['a2b']['drop_queue']")
echo "rate 100 Mbit/s: kernel CUBIC got $mbit Mbit/s, $qdrop queue drops"
python3 -c "import sys; sys.exit(0 if 80 <= float(sys.argv[1]) <= 100 else 1)" "$mbit" ||
	fail "$mbit Mbit/s through a 100 Mbit/s bottleneck"

# 3. the 200th data segment A -> B, and only it, is lost
lem_start "$TMP/lem-nth.json" --a2b --drop 200 --delay 1 --b2a --delay 1 || fail "linkem"
iperf nth 2 -b 50M
lem_stop
nth=$(json "$TMP/lem-nth.json" "d['a2b']['drop_nth']")
rtx=$(json "$TMP/nth.json" "d['end']['sum_sent']['retransmits']")
other=$(json "$TMP/lem-nth.json" "sum(v for k,v in d['a2b'].items() if k.startswith('drop_') and k!='drop_nth')")
echo "drop 200: linkem dropped $nth (others $other), the kernel retransmitted $rtx"
[ "$nth" = 1 ] && [ "$other" = 0 ] || fail "drop 200 dropped $nth segments, $other others"
[ "$rtx" -ge 1 ] || fail "the kernel retransmitted nothing after a drop"

# 4. no impairment: at 300 Mbit/s it loses nothing itself; then as fast as
# the kernel sends (its own losses reported, not judged: the cores are shared)
own_losses() {
	json "$1" "sum(d[k]['tx_err']+d[k]['oversize']+d[k]['sock_drops'] for k in ('a2b','b2a'))"
}
lem_start "$TMP/lem-300.json" || fail "linkem"
iperf 300 3 -b 300M
lem_stop
mbit=$(json "$TMP/300.json" "round(d['end']['sum_received']['bits_per_second']/1e6,1)")
rtx=$(json "$TMP/300.json" "d['end']['sum_sent']['retransmits']")
own=$(own_losses "$TMP/lem-300.json")
echo "300 Mbit/s offered: $mbit Mbit/s through, $rtx retransmits, $own frames lost by linkem"
[ "$own" = 0 ] || fail "linkem lost $own frames itself at 300 Mbit/s"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 270 else 1)" "$mbit" ||
	fail "linkem relayed only $mbit Mbit/s of 300 offered"
lem_start "$TMP/lem-free.json" || fail "linkem"
iperf free 3
lem_stop
mbit=$(json "$TMP/free.json" "round(d['end']['sum_received']['bits_per_second']/1e6,1)")
rtx=$(json "$TMP/free.json" "d['end']['sum_sent']['retransmits']")
echo "unlimited: $mbit Mbit/s, $rtx retransmits, $(own_losses "$TMP/lem-free.json") frames lost by linkem"
echo "PASS"
