# Shared by the test/apps scripts (sourced after ../interop/lib.sh): where
# cgroup v2 is, and the set-up of one program cgroup whose sock_ops program
# (cb_logger.o, attached by the caller's skopsd) marks its connections.

# the cgroup v2 hierarchy: /sys/fs/cgroup on a unified host, .../unified on a hybrid one
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -f "$CGROOT/cgroup.procs" ] || fail "no cgroup v2 hierarchy mounted (${CGROOT:-none in /proc/mounts})"

apps_cleanup() {
	# every process left in the namespaces (a kernel server's child holding a
	# connection skops never closed) goes too: it would hold the root lock
	for n in "$NS_A" "$NS_B"; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9; done
	cleanup
	for p in $(cat "$CGROOT/$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	sleep 0.2
	rmdir "$CGROOT/$CG" 2>/dev/null
}

# apps_setup CG SECONDS: cgroup CG, the netns pair, SOCK and LOG for skopsd,
# and APP: "app CMD..." runs CMD under the shim in CG, in the skops netns,
# for at most SECONDS; "bg NAME "${APP[@]}" CMD..." for a background one
# whose pid gets signals
apps_setup() {
	CG=$1
	mkdir "$CGROOT/$CG" || fail "mkdir cgroup"
	trap apps_cleanup EXIT
	setup_netns
	SOCK=$TMP/skopsd.sock
	LOG=$TMP/skopsd.err
	APP=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROOT/$CG" ip netns exec "$NS_A"
		timeout "$2" "$RUN" --sock "$SOCK" --)
}
app() { "${APP[@]}" "$@"; }

# conns PORT [ADDR]: skopsd's closed-connection lines of CG on [ADDR]:PORT
# (either end) with cb_logger's callbacks turned on
conns() {
	grep -E "skopsd: conn (closed|aborted|reset) " "$LOG" | grep -E "${2:-}:$1 " |
		grep "cgroup /$CG .*cb_flags 7 "
}
# tuned PORT MIN [ADDR]: at least MIN such connections
tuned() {
	local n i
	for ((i = 0; i < 50; i++)); do # closes are logged as skopsd finishes them
		n=$(conns "$1" "${3:-}" | wc -l)
		[ "$n" -ge "$2" ] && break
		sleep 0.1
	done
	[ "$n" -ge "$2" ] || fail "port $1: $n connection(s) tuned by the cgroup's sock_ops, want >= $2:
$(grep -E "skopsd: conn (closed|aborted|reset) " "$LOG" | grep -E "${3:-}:$1 " | head -5)"
	echo "  sock_ops ran for $n connection(s) on port $1 (cgroup /$CG, cb_flags 7)"
}
