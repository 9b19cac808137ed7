#!/usr/bin/env bash
# Interop: jumbo frames over memif. Two skcat processes (one lcore each) move
# a random file at --mtu 9000 and at 65000 (near the largest frame a uint16
# mbuf data room holds): the bytes arrive intact, the port reports the MTU
# (memif has none of its own: both ends take the configured one, mbufs and
# memif buffers sized to hold a frame), and the segments were that large
# (skcat's tcp_info MSS). Then the limits: a memif bsize smaller than a frame
# is refused (DPDK 22.11's memif corrupts chained frames), and an af_packet
# port asked for 9000 keeps its veth's 1500 (the MTU cap holds where the
# buffers are smaller).
. "$(dirname "$0")/lib.sh"
need_root_and_tools sha256sum
SKCAT=$SKOPS_BUILD/apps/skcat
[ -x "$SKCAT" ] || fail "no skcat at $SKCAT"
MIB=${MIB:-16}
head -c $((MIB << 20)) /dev/urandom >"$TMP/in"
want=$(sha256sum <"$TMP/in" | cut -d' ' -f1)
C1=0
C2=$(($(nproc) > 1 ? 1 : 0))

# pair MTU PORT: server -l writes what it receives; the client sends the file
pair() {
	local mtu=$1 port=$2 sock=$TMP/memif-$2.sock
	local dv="id=0,socket=$sock,socket-abstract=no"
	BG_IN=/dev/null bg "s$port" timeout 120 env SKCAT_VERBOSE=1 "$SKCAT" \
		--vdev "net_memif0,role=server,$dv" --mtu "$mtu" --addr 198.18.4.2/24 \
		--eal "-l $C1" --timeout 100 -l "$port"
	wait_for 30 grep -q "listening on port" "$TMP/s$port.err" ||
		fail "mtu $mtu: server did not start: $(cat "$TMP/s$port.err")"
	SKCAT_VERBOSE=1 timeout 120 "$SKCAT" --vdev "net_memif0,role=client,$dv" --mtu "$mtu" \
		--addr 198.18.4.1/24 --eal "-l $C2" --timeout 100 --info 198.18.4.2 "$port" \
		<"$TMP/in" >/dev/null 2>"$TMP/c$port.err" || fail "mtu $mtu: client: $(cat "$TMP/c$port.err")"
	local i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$(eval echo "\$PID_s$port")" 2>/dev/null || break
		sleep 0.1
	done
	got=$(sha256sum <"$TMP/s$port.out" | cut -d' ' -f1)
	[ "$got" = "$want" ] || fail "mtu $mtu: $(stat -c %s "$TMP/s$port.out") bytes arrived, not the $((MIB << 20)) sent intact"
	for e in "$TMP/s$port.err" "$TMP/c$port.err"; do
		grep -q "mtu $mtu," "$e" || fail "mtu $mtu: the port did not take it: $(cat "$e")"
	done
	# the segments filled the MTU: 40 bytes of headers, 12 of timestamps
	/usr/bin/python3 - "$TMP/c$port.err" "$mtu" <<-'PY' || fail "mtu $mtu: segments: $(cat "$TMP/c$port.err")"
		import json, sys
		i = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"state"')][-1]
		mss = int(sys.argv[2]) - 52
		assert i["mss"] == mss and i["data_segs_out"] * mss >= i["bytes_acked"] - 1, i
	PY
	echo "mtu $mtu: $MIB MiB intact in $mtu-byte packets"
}
pair 9000 7001
pair 65000 7002

# a memif buffer smaller than a frame: refused, with the reason
out=$(timeout 30 "$SKCAT" --vdev "net_memif0,role=server,id=0,socket=$TMP/x.sock,socket-abstract=no,bsize=2048" \
	--mtu 9000 --addr 198.18.4.2/24 --eal "-l $C1" --timeout 1 -l 7003 2>&1) &&
	fail "bsize 2048 at mtu 9000 accepted"
grep -q "bsize=2048 holds no frame of 9014 bytes" <<<"$out" || fail "bsize refusal: $out"

# af_packet on a 1500-byte veth: asked for 9000, the port keeps 1500
setup_netns
SKCAT_VERBOSE=1 timeout 30 ip netns exec "$NS_A" "$SKCAT" --vdev "$AF_PACKET_VDEV" \
	--addr "$IP4_A/24" --mtu 9000 --timeout 2 -l 7004 >/dev/null 2>"$TMP/afp.err" </dev/null
grep -q "mtu 1500," "$TMP/afp.err" || fail "af_packet at --mtu 9000: $(cat "$TMP/afp.err")"
echo "PASS: memif jumbo frames (9000, 65000) carry data intact; the MTU cap holds elsewhere"
