#!/usr/bin/env bash
# shim_prof: where the time of an unmodified program under the shim goes
# (docs/bench.md "The shim path, profiled"). Not a test; root. skopsd on an
# af_packet veth in one netns on core 0, the program under skops-run and the
# kernel's echo server (test/bench/krr -s) in the other on core 1, as
# test/bench/shim.sh places them.
#   test/bench/shim_prof.sh [BUILD_DIR] [SECS]
# Prints, one JSON object a line:
#   syscall: the cost of one system call here (perf bench syscall basic);
#   rr: 64-byte request/response under the shim: per transaction the
#     program's and skopsd's system calls, context switches and CPU time,
#     and skopsd's system calls by name (perf stat);
#   crr: a connection per request, phase by phase (test/bench/crr_phase),
#     under the shim and on the kernel's own socket on the same core;
#   crr_ctl: per connection, the control requests the program sent skopsd
#     and the replies it read (a round trip each; CLOSE has none), and all
#     the program's system calls and context switches.
# SKOPSD_ARGS and SKOPS_POLL_USEC are passed on.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
SECS=${2:-3}
export SKOPS_BUILD=$BUILD
. "$ROOT/test/interop/lib.sh"
need_root_and_tools perf taskset
shim_bins
KRR=$BUILD/test/bench/krr
PHASE=$BUILD/test/bench/crr_phase
for f in "$KRR" "$PHASE"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
setup_netns
SOCK=$TMP/skopsd.sock

perf bench syscall basic 2>/dev/null | awk '/usecs\/op/ {printf "{\"syscall\":{\"us\":%s}}\n", $1}'

# external commands, never shell functions, in bg: the pid it records is
# the one cleanup's kill reaches
bg kr ip netns exec "$NS_B" taskset -c 1 "$KRR" -s 7001
wait_for 10 sh -c "ip netns exec $NS_B ss -ltn 'sport = :7001' | grep -q LISTEN" || fail "krr -s"
# the kernel's own connection per request first, on the program's core
in_a ip addr add "$IP4_A/24" dev "$VETH_A"
kphase=$(in_a taskset -c 1 "$PHASE" "$IP4_B" 7001 3000) || fail "crr_phase on the kernel"
in_a ip addr del "$IP4_A/24" dev "$VETH_A"

# shellcheck disable=SC2086 # SKOPSD_ARGS are words
bg sd ip netns exec "$NS_A" "$SKOPSD" --eal "-l 0" --sock "$SOCK" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	${SKOPSD_ARGS:-}
wait_for 20 grep -q "serving on" "$TMP/sd.err" || fail "skopsd: $(cat "$TMP/sd.err")"
SDPID=$(pgrep -f "^$SKOPSD --eal -l 0 --sock $SOCK") || fail "skopsd's pid"
EV=context-switches,task-clock,raw_syscalls:sys_enter
perf stat -x, -e "$EV" -p "$SDPID" -o "$TMP/sd.stat" -- sleep "$((SECS + 1))" &
ps1=$!
perf stat -x, -e 'syscalls:sys_enter_*' -p "$SDPID" -o "$TMP/sd.calls" -- sleep "$((SECS + 1))" &
ps2=$!
in_a "$RUN" --sock "$SOCK" -- perf stat -x, -e "$EV" -o "$TMP/app.stat" \
	taskset -c 1 "$KRR" -c "$IP4_B" 7001 rr 64 "$SECS" >"$TMP/rr.json" || fail "krr under the shim"
wait "$ps1" "$ps2"
sphase=$(in_a "$RUN" --sock "$SOCK" -- taskset -c 1 "$PHASE" "$IP4_B" 7001 3000) ||
	fail "crr_phase under the shim"
# skopsd's control messages per connection, apart from the timed run: the
# program's sendmsg (requests) and recvmsg (replies) are on its skopsd
# connection only, its data goes through the rings
in_a "$RUN" --sock "$SOCK" -- perf stat -x, -o "$TMP/ctl.stat" \
	-e syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvmsg,raw_syscalls:sys_enter,context-switches \
	taskset -c 1 "$PHASE" "$IP4_B" 7001 1000 >/dev/null || fail "crr_phase, counted"
/usr/bin/python3 - "$TMP" "$kphase" "$sphase" <<'PY'
import json, sys
tmp, kphase, sphase = sys.argv[1:4]
rr = json.load(open(f"{tmp}/rr.json"))
n = rr["count"]
def stat(f):
    d = {}
    for line in open(f):
        p = line.strip().split(",")
        if len(p) > 2 and p[0] and p[0][0].isdigit():
            d[p[2]] = float(p[0])
    return d
out = {"transactions": n, "per_s": rr["per_s"], "p50_us": rr["rtt_us"]["p50"],
       "p99_us": rr["rtt_us"]["p99"]}
for who, f in (("app", "app.stat"), ("skopsd", "sd.stat")):
    s = stat(f"{tmp}/{f}")
    out[who] = {"syscalls": round(s.get("raw_syscalls:sys_enter", 0) / n, 2),
                "switches": round(s.get("context-switches", 0) / n, 2),
                "cpu_us": round(s.get("task-clock", 0) * 1000 / n, 1)}
calls = stat(f"{tmp}/sd.calls")
out["skopsd"]["by_name"] = {k.split("sys_enter_")[1]: round(v / n, 2)
                            for k, v in sorted(calls.items(), key=lambda kv: -kv[1])
                            if v / n >= 0.01}
print(json.dumps({"rr": out}))
print(json.dumps({"crr": {"kernel": json.loads(kphase), "shim": json.loads(sphase)}}))
ctl = stat(f"{tmp}/ctl.stat")
print(json.dumps({"crr_ctl": {
    "requests": round(ctl.get("syscalls:sys_enter_sendmsg", 0) / 1000, 2),
    "replies": round(ctl.get("syscalls:sys_enter_recvmsg", 0) / 1000, 2),
    "app_syscalls": round(ctl.get("raw_syscalls:sys_enter", 0) / 1000, 2),
    "app_switches": round(ctl.get("context-switches", 0) / 1000, 2)}}))
PY
