#!/usr/bin/env bash
# Interop (issue 30): attacks from the peer namespace, with no access to the
# skops host, against a skcat echo server on af_packet while a legitimate
# SKOPS_ATTACK_MIB (default 16) MiB echo from the kernel runs beside them:
#   - blind ICMP "fragmentation needed", MTU 68, 2000 a second: half quote
#     the legitimate connection with a sequence number not in flight, half
#     random ports and sequence numbers; nothing may change (RFC 5927 §4.1):
#     no path MTU update, pmtu_refused and out_of_window_icmps count them;
#   - a SYN flood from 200 spoofed on-link sources, SKOPS_SYN_PPS a second
#     (default 20000, the rate of issue 30's report; 0: the attacker's full
#     speed, which on a loaded 2-core machine takes a core from skcat and the
#     legitimate transfer alike): the SYN-ACKs wait for neighbours that never
#     answer (neigh_queue_drop, neigh_failed), no entry is refused
#     (neigh_table_full), the peer's resolved entry stays, SYN cookies engage
#     (syncookies_sent).
# Each asserts the transfer intact at >= 0.5x its unattacked rate and
# skcat's RSS growth under 64 MiB. Rates are the best of two runs, attacked
# and unattacked alike: on a shared 2-core machine one run may be slowed
# several times by other work, an attack's effect is not (before the fixes:
# no byte in 60 s under the ICMP attack, 0.16x under the SYN flood). The attackers
# are test/interop/attacker.py (raw frames; scapy is far too slow to flood).
# More attacks, by name in SKOPS_ATTACKS (default "icmp synflood"); those on
# IPv6 give skcat an IPv6 address too, and their transfers and unattacked
# rate are IPv6 (each 3 s of attack, 2000 a second unless said):
#   - ptb6: blind ICMPv6 Packet Too Big: MTU below 1280 quoting the flow's
#     latest sequence number, MTU 1280 with one not in flight, random
#     quotes and MTUs: no path MTU update (pmtu_refused);
#   - arp, ndp: spoofed ARP requests and unsolicited replies from random
#     on-link senders, requests for other targets; the same as NS and NA:
#     the peer's entry stays (the transfer keeps its rate), requests for
#     others are ignored (neigh_ignored); NS senders past the table's size
#     take no one's place (neigh_table_full), and a neighbour skcat never
#     saw (a new address of the peer) still gets an entry;
#   - frag6: 2000 a second first fragments of IPv6 UDP datagrams that are
#     never completed, from random sources (the slots and reassembly
#     memory fill): the oldest are evicted (reasm_evicted), the TCP
#     transfer keeps its rate, and legitimate fragmented datagrams are
#     still reassembled: of 10 ICMPv6 echo requests of 3000 bytes (skcat
#     serves no UDP) at least 8 are answered, in fragments. IPv4 fragments
#     are not tried here: af_packet's PACKET_FANOUT_FLAG_DEFRAG makes the
#     kernel reassemble them before skops sees them (test_udp6_frag.sh);
#   - synnocookie: the SYN flood with skcat's --tcp-syncookies 0: the
#     listener's SYN queue (backlog 8) fills with requests no one completes
#     and further SYNs are dropped; a legitimate connect tried for 4 s must
#     fail (skcat is then stopped: the case runs alone, and its counters
#     are not read, as skcat prints --info once every connection came) (it did for 60 s: the requests live as long
#     as their SYN-ACK retries, as Linux's, which drops SYNs then too). Not
#     held to the 0.5x rate: it shows what the cookies of synflood are for.
. "$(dirname "$0")/lib.sh"
need_root_and_tools /usr/bin/python3 pgrep
SKCAT=${SKOPS_BUILD:?}/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
HERE=$(dirname "$0")
MIB=${SKOPS_ATTACK_MIB:-16}
ATTACKS=${SKOPS_ATTACKS:-icmp synflood}
SYN_PPS=${SKOPS_SYN_PPS:-20000}
has() { [[ " $ATTACKS " == *" $1 "* ]]; }
conns=2
v6=0
for a in $ATTACKS; do
	case $a in
	icmp | synflood | arp) conns=$((conns + 2)) ;;
	synnocookie) conns=$((conns + 1)) ;;
	ptb6 | frag6) conns=$((conns + 2)) v6=1 ;;
	ndp) conns=$((conns + 3)) v6=1 ;;
	*) fail "unknown attack $a" ;;
	esac
done
has synflood && has synnocookie && fail "synflood and synnocookie need separate runs (cookies on, off)"
extra=()
[ $v6 = 1 ] && extra+=(--addr "$IP6_A/64") && conns=$((conns + 2))
has synnocookie && extra+=(--tcp-syncookies 0)
PORT=7000
setup_netns

BG_IN=/dev/null bg sk timeout 120 ip netns exec "$NS_A" env SKCAT_VERBOSE=1 "$SKCAT" \
	--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" "${extra[@]}" --info --echo --conns $conns \
	-l $PORT --timeout 110
wait_for 20 grep -q "port 0:" "$TMP/sk.err" || {
	cat "$TMP/sk.err"
	fail "skcat did not start"
}
sleep 0.5
SKPID=$(pgrep -f -n "^$SKCAT --vdev") || fail "no skcat process"
# skcat's peak RSS (VmHWM), sampled until it exits
(while [ -e "/proc/$SKPID/status" ]; do
	# a zombie's status has no VmHWM: keep the last value read
	awk '/^VmHWM/ {print $2}' "/proc/$SKPID/status" >"$TMP/hwm.tmp" 2>/dev/null &&
		[ -s "$TMP/hwm.tmp" ] && mv "$TMP/hwm.tmp" "$TMP/hwm"
	sleep 0.2
done) &
PIDS+=($!)
rss() { cat "$TMP/hwm"; }

# transfer NAME [HOST [SOURCE]]: the legitimate echo; prints its seconds
transfer() {
	in_b /usr/bin/python3 "$HERE/echo_client.py" "${2:-$IP4_A}" $PORT "$MIB" 60 ${3:+"$3"} \
		>"$TMP/$1.json" ||
		fail "$1: the legitimate transfer failed: $(cat "$TMP/$1.json")"
	/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$TMP/$1.json"
}

b1=$(transfer base1) || exit 1
b2=$(transfer base2) || exit 1
base=$(awk -v a="$b1" -v b="$b2" 'BEGIN{print (a < b ? a : b)}')
sleep 0.3
rss0=$(rss)
echo "unattacked: $MIB MiB echoed in ${b1} s and ${b2} s (RSS $rss0 kB)"
base4=$base
if [ $v6 = 1 ]; then
	b1=$(transfer base6 "$IP6_A") || exit 1
	b2=$(transfer base6b "$IP6_A") || exit 1
	base6=$(awk -v a="$b1" -v b="$b2" 'BEGIN{print (a < b ? a : b)}')
	echo "unattacked over IPv6: $MIB MiB echoed in ${b1} s and ${b2} s"
fi

# ratio NAME SECONDS SECONDS [norate]: fails below half the unattacked rate
# (of the family in $base)
ratio() {
	local r t
	t=$(awk -v a="$2" -v b="$3" 'BEGIN{print (a < b ? a : b)}')
	r=$(awk -v b="$base" -v t="$t" 'BEGIN{printf "%.2f", b / t}')
	echo "$1: $MIB MiB in $2 s and $3 s: ${r}x the unattacked rate"
	[ "${4:-}" = norate ] && return 0
	awk -v r="$r" 'BEGIN{exit !(r >= 0.5)}' || fail "$1: the transfer kept ${r}x of its rate (< 0.5x)"
}

sent() { # how many packets attacker $1 sent (its JSON summary)
	/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"])' "$TMP/$1.out"
}

peer_mac() { # the MAC of skcat's address $1 as the peer learnt it
	in_b ip neigh show "$1" | awk '{for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1)}'
}
ptb6_sent=0 arp_sent=0 ndp_sent=0 frag6_sent=0 frag6_ok=0

icmp_sent=0
if has icmp; then
	# blind ICMP frag-needed: the attacker learns the flow's ports and sequence
	# number from its first segment, so it starts first
	bg icmp in_b /usr/bin/python3 "$HERE/attacker.py" icmp "$VETH_B" "$IP4_A" $PORT 6 2000
	sleep 0.5
	t=$(transfer icmp) || exit 1
	t2=$(transfer icmp2) || exit 1
	wait_pid 10 "$PID_icmp" || fail "icmp attacker: $(cat "$TMP/icmp.err")"
	icmp_sent=$(sent icmp)
	echo "blind ICMP: $icmp_sent frag-needed (MTU 68) sent"
	ratio "blind ICMP" "$t" "$t2"
fi

if has synflood; then
	# spoofed SYN flood from on-link sources
	mac=$(peer_mac "$IP4_A")
	[ -n "$mac" ] || fail "no neighbour entry for $IP4_A in the peer"
	bg syn in_b /usr/bin/python3 "$HERE/attacker.py" synflood "$VETH_B" "$mac" "$IP4_A" $PORT 6 200 "$SYN_PPS"
	sleep 1
	t=$(transfer synflood) || exit 1
	t2=$(transfer synflood2) || exit 1
	wait_pid 10 "$PID_syn" || fail "syn attacker: $(cat "$TMP/syn.err")"
	echo "SYN flood: $(cat "$TMP/syn.out")"
	ratio "SYN flood" "$t" "$t2"
fi

if has synnocookie; then
	# the same flood, cookies off: the SYN queue stays full of requests
	# whose SYN-ACKs go unanswered, so the legitimate connect, tried for 4 s,
	# must fail; it is the SYN flood above that shows the cookies' worth
	mac=$(peer_mac "$IP4_A")
	[ -n "$mac" ] || fail "no neighbour entry for $IP4_A in the peer"
	bg syn in_b /usr/bin/python3 "$HERE/attacker.py" synflood "$VETH_B" "$mac" "$IP4_A" $PORT 6 200 "$SYN_PPS"
	sleep 1
	in_b /usr/bin/python3 "$HERE/echo_client.py" "$IP4_A" $PORT "$MIB" 4 >"$TMP/synnocookie.json" 2>&1 &&
		fail "synnocookie: a connection got through a full SYN queue without cookies"
	wait_pid 10 "$PID_syn" || fail "syn attacker: $(cat "$TMP/syn.err")"
	echo "SYN flood, cookies off: $(cat "$TMP/syn.out"): the legitimate connect failed: $(tail -1 "$TMP/synnocookie.json")"
	# skcat waits for a connection that never came (and prints its --info
	# only once all came): stopped here, with no counters to read
	[ "$ATTACKS" = synnocookie ] || fail "synnocookie runs alone (it ends skcat)"
	kill "$PID_sk"
	echo "PASS: synnocookie: without cookies a full SYN queue keeps the legitimate client out"
	exit 0
fi

if has arp; then
	mac=$(peer_mac "$IP4_A")
	[ -n "$mac" ] || fail "no neighbour entry for $IP4_A in the peer"
	bg arp in_b /usr/bin/python3 "$HERE/attacker.py" arp "$VETH_B" "$mac" "$IP4_A" 3 2000
	sleep 0.5
	t=$(transfer arp) || exit 1
	t2=$(transfer arp2) || exit 1
	wait_pid 10 "$PID_arp" || fail "arp attacker: $(cat "$TMP/arp.err")"
	arp_sent=$(sent arp)
	echo "spoofed ARP: $arp_sent requests and replies sent"
	ratio "spoofed ARP" "$t" "$t2"
fi

base=${base6:-$base}
if has ptb6; then
	bg ptb6 in_b /usr/bin/python3 "$HERE/attacker.py" ptb6 "$VETH_B" "$IP6_A" $PORT 3 2000
	sleep 0.5
	t=$(transfer ptb6 "$IP6_A") || exit 1
	t2=$(transfer ptb6b "$IP6_A") || exit 1
	wait_pid 10 "$PID_ptb6" || fail "ptb6 attacker: $(cat "$TMP/ptb6.err")"
	ptb6_sent=$(sent ptb6)
	echo "blind ICMPv6: $ptb6_sent Packet Too Big sent"
	ratio "blind ICMPv6 PTB" "$t" "$t2"
fi

if has ndp; then
	mac=$(peer_mac "$IP6_A")
	[ -n "$mac" ] || fail "no neighbour entry for $IP6_A in the peer"
	bg ndp in_b /usr/bin/python3 "$HERE/attacker.py" ndp "$VETH_B" "$mac" "$IP6_A" 3 2000
	sleep 0.5
	t=$(transfer ndp "$IP6_A") || exit 1
	t2=$(transfer ndp2 "$IP6_A") || exit 1
	wait_pid 10 "$PID_ndp" || fail "ndp attacker: $(cat "$TMP/ndp.err")"
	ndp_sent=$(sent ndp)
	echo "spoofed NDP: $ndp_sent NS and NA sent"
	ratio "spoofed NDP" "$t" "$t2"
	# the table now holds entries learnt from the spoofed requests: a
	# neighbour skcat never saw must still get one (it replaces an
	# unconfirmed entry)
	in_b ip -6 addr add fd00:1::3/64 dev "$VETH_B" nodad || fail "ip -6 addr add"
	t=$(transfer ndp-new "$IP6_A" fd00:1::3) || exit 1
	ratio "a new neighbour after the NDP flood" "$t" "$t"
fi

if has frag6; then
	mac=$(peer_mac "$IP6_A")
	[ -n "$mac" ] || fail "no neighbour entry for $IP6_A in the peer"
	bg frag6 in_b /usr/bin/python3 "$HERE/attacker.py" frag6 "$VETH_B" "$mac" "$IP6_A" 3 "${SKOPS_FRAG6_PPS:-2000}"
	sleep 0.5
	t=$(transfer frag6 "$IP6_A") || exit 1
	# legitimate fragmented datagrams: 10 ICMPv6 echo requests of 3000
	# bytes, each reassembled by skops and answered in fragments
	frag6_ok=$(in_b ping -6 -n -q -c 10 -i 0.1 -W 1 -s 3000 "$IP6_A" |
		awk '/received/ {for (i = 1; i < NF; i++) if ($(i + 1) ~ /^received/) print $i}')
	[ -n "$frag6_ok" ] || fail "frag6: no ping statistics"
	t2=$(transfer frag6b "$IP6_A") || exit 1
	wait_pid 10 "$PID_frag6" || fail "frag6 attacker: $(cat "$TMP/frag6.err")"
	frag6_sent=$(sent frag6)
	echo "IPv6 fragment flood: $frag6_sent first fragments sent; $frag6_ok of 10 fragmented echo requests (3000 bytes) answered"
	ratio "IPv6 fragment flood" "$t" "$t2"
	[ "$frag6_ok" -ge 8 ] || fail "frag6: only $frag6_ok of 10 fragmented echo requests answered"
fi
wait_pid 20 "$PID_sk" || {
	tail -5 "$TMP/sk.err"
	fail "skcat failed"
}
sleep 0.3
rss1=$(rss)
[ -n "$rss0" ] && [ -n "$rss1" ] || fail "no RSS of skcat read"
echo "skcat peak RSS: $rss0 kB before the attacks, $rss1 kB after"
[ $((rss1 - rss0)) -lt 65536 ] || fail "skcat RSS grew by $((rss1 - rss0)) kB"
# the counters that name each drop (skcat --info, the last connection's)
grep '^{"state"' "$TMP/sk.err" | tail -1 >"$TMP/info.json"
/usr/bin/python3 - "$TMP/info.json" "$icmp_sent" "$ATTACKS" "$ptb6_sent" "$arp_sent" "$ndp_sent" \
	"$frag6_sent" "$frag6_ok" "$TMP" <<'PY' || fail "counters"
import json, sys
i = json.load(open(sys.argv[1]))
n = i["net"]
sent = int(sys.argv[2])
attacks = sys.argv[3].split()
print("counters:", {k: n[k] for k in ("pmtu_updates", "pmtu_refused", "pmtu_floored",
      "neigh_evicted", "neigh_table_full", "neigh_failed", "neigh_queue_drop", "neigh_ignored",
      "reasm_evicted", "ip6_reasm_drop")},
      {k: i[k] for k in ("out_of_window_icmps", "syncookies_sent", "listen_overflows",
      "listen_drops")})
assert n["pmtu_updates"] == 0, "a blind ICMP message lowered the path MTU"
if "icmp" in attacks:
    assert n["pmtu_refused"] >= sent // 2, (n["pmtu_refused"], sent)
    assert i["out_of_window_icmps"] >= 1, i["out_of_window_icmps"]
if "synflood" in attacks:
    # SYN-ACKs to sources that never answer ARP: dropped from the queue of
    # their unresolved entry, or with it when it fails
    assert n["neigh_queue_drop"] + n["neigh_failed"] >= 1, n
    assert n["neigh_table_full"] == 0, n
    assert i["syncookies_sent"] >= 1, i["syncookies_sent"]
ptb6, arp, ndp, frag6, frag6_ok = (int(x) for x in sys.argv[4:9])
# skcat writes its --info lines at exit: the counters are the totals of
# every attack of the run
if "ptb6" in attacks:
    assert n["pmtu_refused"] >= sent // 2 + ptb6 // 2, (n["pmtu_refused"], sent, ptb6)
if "arp" in attacks or "ndp" in attacks:
    # a third ask for other hosts: ignored; senders learnt from requests
    # past the table's size take no one's place (neigh_table_full)
    assert n["neigh_ignored"] >= (arp + ndp) // 4, (n["neigh_ignored"], arp, ndp)
if "frag6" in attacks:
    assert n["reasm_evicted"] >= 1, n
if "synnocookie" in attacks:
    assert i["syncookies_sent"] == 0, i["syncookies_sent"]
    assert i["listen_overflows"] >= 1, i
PY
echo "PASS: $ATTACKS: the legitimate transfer intact"
