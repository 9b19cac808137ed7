# linkem_net.sh: sourced. Three network namespaces joined by two veth pairs
# with linkem relaying between them:
#   $LEM_NS_A [$LEM_IF_A] -- [a1] $LEM_NS_L (linkem) [b1] -- [$LEM_IF_B] $LEM_NS_B
# Every offload is off on every end (linkem relays frames as a wire would:
# no GSO super-frames, no partial checksums). The A and B ends get no
# address: the caller gives them one (kernel) or drives them (skops).
# Needs: LINKEM (the binary). Names carry $$; lem_cleanup removes them.
LEM_NS_A=lem-a-$$
LEM_NS_L=lem-l-$$
LEM_NS_B=lem-b-$$
LEM_IF_A=lem-a0-$$
LEM_IF_B=lem-b0-$$
LEM_PID=

lem_offloads_off() { # NS IF
	ip netns exec "$1" ethtool -K "$2" tx off rx off tso off gso off gro off >/dev/null 2>&1
	ip netns exec "$1" ethtool -K "$2" tx-udp-segmentation off >/dev/null 2>&1
	return 0
}

lem_setup() {
	ip netns add "$LEM_NS_A" && ip netns add "$LEM_NS_L" && ip netns add "$LEM_NS_B" ||
		return 1
	ip link add "$LEM_IF_A" type veth peer name lem-a1-$$ || return 1
	ip link add "$LEM_IF_B" type veth peer name lem-b1-$$ || return 1
	ip link set "$LEM_IF_A" netns "$LEM_NS_A"
	ip link set "$LEM_IF_B" netns "$LEM_NS_B"
	ip link set lem-a1-$$ netns "$LEM_NS_L" name a1
	ip link set lem-b1-$$ netns "$LEM_NS_L" name b1
	ip netns exec "$LEM_NS_L" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$LEM_NS_L" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	for n in "$LEM_NS_A:$LEM_IF_A" "$LEM_NS_L:a1" "$LEM_NS_L:b1" "$LEM_NS_B:$LEM_IF_B"; do
		lem_offloads_off "${n%%:*}" "${n#*:}"
		ip netns exec "${n%%:*}" ip link set "${n#*:}" up || return 1
		ip netns exec "${n%%:*}" ip link set lo up
	done
}

# lem_start STATS_FILE LINKEM_OPTION...: relays until lem_stop.
lem_start() {
	local stats=$1
	shift
	ip netns exec "$LEM_NS_L" "$LINKEM" a1 b1 --stats "$stats" "$@" 2>>"$stats.log" &
	LEM_PID=$!
	sleep 0.2
	kill -0 "$LEM_PID" 2>/dev/null
}

lem_stop() {
	[ -n "$LEM_PID" ] || return 0
	kill -TERM "$LEM_PID" 2>/dev/null
	wait "$LEM_PID" 2>/dev/null
	LEM_PID=
}

lem_cleanup() {
	lem_stop
	ip netns del "$LEM_NS_A" 2>/dev/null
	ip netns del "$LEM_NS_L" 2>/dev/null
	ip netns del "$LEM_NS_B" 2>/dev/null
	return 0
}
