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
# SKOPS_ATTACKS (default "icmp synflood") picks the attacks.
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
for a in $ATTACKS; do
	case $a in icmp | synflood) conns=$((conns + 2)) ;; *) fail "unknown attack $a" ;; esac
done
PORT=7000
setup_netns

BG_IN=/dev/null bg sk timeout 120 ip netns exec "$NS_A" env SKCAT_VERBOSE=1 "$SKCAT" \
	--vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" --info --echo --conns $conns -l $PORT --timeout 110
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

# transfer NAME: the legitimate echo; prints its seconds
transfer() {
	in_b /usr/bin/python3 "$HERE/echo_client.py" "$IP4_A" $PORT "$MIB" 60 >"$TMP/$1.json" ||
		fail "$1: the legitimate transfer failed: $(cat "$TMP/$1.json")"
	/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$TMP/$1.json"
}

b1=$(transfer base1) || exit 1
b2=$(transfer base2) || exit 1
base=$(awk -v a="$b1" -v b="$b2" 'BEGIN{print (a < b ? a : b)}')
sleep 0.3
rss0=$(rss)
echo "unattacked: $MIB MiB echoed in ${b1} s and ${b2} s (RSS $rss0 kB)"

# ratio NAME SECONDS SECONDS: fails below half the unattacked rate
ratio() {
	local r t
	t=$(awk -v a="$2" -v b="$3" 'BEGIN{print (a < b ? a : b)}')
	r=$(awk -v b="$base" -v t="$t" 'BEGIN{printf "%.2f", b / t}')
	echo "$1: $MIB MiB in $2 s and $3 s: ${r}x the unattacked rate"
	awk -v r="$r" 'BEGIN{exit !(r >= 0.5)}' || fail "$1: the transfer kept ${r}x of its rate (< 0.5x)"
}

icmp_sent=0
if has icmp; then
	# blind ICMP frag-needed: the attacker learns the flow's ports and sequence
	# number from its first segment, so it starts first
	bg icmp in_b /usr/bin/python3 "$HERE/attacker.py" icmp "$VETH_B" "$IP4_A" $PORT 6 2000
	sleep 0.5
	t=$(transfer icmp) || exit 1
	t2=$(transfer icmp2) || exit 1
	wait_pid 10 "$PID_icmp" || fail "icmp attacker: $(cat "$TMP/icmp.err")"
	icmp_sent=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"])' "$TMP/icmp.out")
	echo "blind ICMP: $icmp_sent frag-needed (MTU 68) sent"
	ratio "blind ICMP" "$t" "$t2"
fi

if has synflood; then
	# spoofed SYN flood from on-link sources
	mac=$(in_b ip neigh show "$IP4_A" | awk '{for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1)}')
	[ -n "$mac" ] || fail "no neighbour entry for $IP4_A in the peer"
	bg syn in_b /usr/bin/python3 "$HERE/attacker.py" synflood "$VETH_B" "$mac" "$IP4_A" $PORT 6 200 "$SYN_PPS"
	sleep 1
	t=$(transfer synflood) || exit 1
	t2=$(transfer synflood2) || exit 1
	wait_pid 10 "$PID_syn" || fail "syn attacker: $(cat "$TMP/syn.err")"
	echo "SYN flood: $(cat "$TMP/syn.out")"
	ratio "SYN flood" "$t" "$t2"
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
/usr/bin/python3 - "$TMP/info.json" "$icmp_sent" "$ATTACKS" <<'PY' || fail "counters"
import json, sys
i = json.load(open(sys.argv[1]))
n = i["net"]
sent = int(sys.argv[2])
attacks = sys.argv[3].split()
print("counters:", {k: n[k] for k in ("pmtu_updates", "pmtu_refused", "pmtu_floored",
      "neigh_evicted", "neigh_table_full", "neigh_failed", "neigh_queue_drop")},
      {k: i[k] for k in ("out_of_window_icmps", "syncookies_sent", "listen_drops")})
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
PY
echo "PASS: $ATTACKS: the legitimate transfer intact"
