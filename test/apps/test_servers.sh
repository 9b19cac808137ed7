#!/usr/bin/env bash
# Unmodified servers under skops-run, in the cgroup skops-srv-$$ whose
# sock_ops program (cb_logger.o) turns on the RTO/retransmit/state callbacks
# of each connection (skopsd -v logs each closed connection with its cgroup,
# pid and cb_flags); clients are the Linux kernel's, in another netns.
#  1. nginx, master and 2 workers (the listener is the master's, shared by
#     fork): a 10 MiB file and small files by curl (sha256), wrk for a bounded
#     time with no errors, both workers accepting;
#  2. redis-server: redis-benchmark for a bounded count, and a SET/GET round
#     trip of a random 1 MB value.
. "$(dirname "$0")/../interop/lib.sh"
need_root_and_tools curl nginx wrk redis-server redis-cli redis-benchmark sha256sum base64
B=${SKOPS_BUILD:?}
SKOPSD=$B/apps/skopsd/skopsd
RUN=$B/apps/skops-run
LOGGER=$B/hooks/progs/cb_logger.o
for f in "$SKOPSD" "$RUN" "$B/apps/preload/libskops_preload.so" "$LOGGER"; do
	[ -e "$f" ] || fail "missing $f (build first)"
done
. "$(dirname "$0")/apps_lib.sh"
apps_setup skops-srv-$$ 120

bg skopsd ip netns exec "$NS_A" "$SKOPSD" --vdev "$AF_PACKET_VDEV" --addr "$IP4_A/24" \
	--sock "$SOCK" -v --attach "/$CG=$LOGGER:multi"
wait_for 20 grep -q "serving on" "$LOG" || fail "skopsd did not start: $(cat "$LOG")"

# ---- 1: nginx
NG=$TMP/ngx
mkdir -p "$NG/www" "$NG/tmp"
head -c $((10 * 1024 * 1024)) /dev/urandom >"$NG/www/big"
for i in 1 2 3 4 5; do head -c $((i * 700)) /dev/urandom >"$NG/www/s$i"; done
nginx_conf "$NG" 2 512 "sendfile on; keepalive_timeout 10;"
bg nginx "${APP[@]}" nginx -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log"
# ss in the skops netns sees nothing: the listener is skopsd's; ask over TCP
up() { in_b curl -s -o /dev/null "http://$IP4_A:8081/s1"; }
wait_for 20 up || fail "nginx did not answer: $(cat "$NG/error.log" "$TMP/nginx.err" | tail -5)"
nw=$(grep -c "start worker process [0-9]" "$NG/error.log")
[ "$nw" = 2 ] || fail "nginx: $nw worker(s) started"
in_b timeout 60 curl -sS -o "$TMP/big.out" "http://$IP4_A:8081/big" || fail "curl 10 MiB"
[ "$(sha256sum <"$NG/www/big")" = "$(sha256sum <"$TMP/big.out")" ] || fail "nginx 10 MiB: sha256 differs"
urls=()
for i in 1 2 3 4 5; do urls+=("http://$IP4_A:8081/s$i" -o "$TMP/s$i.out"); done
in_b timeout 30 curl -sS "${urls[@]}" || fail "curl small files (one keep-alive connection)"
for i in 1 2 3 4 5; do
	cmp -s "$NG/www/s$i" "$TMP/s$i.out" || fail "nginx small file s$i differs"
done
echo "nginx: 10 MiB and 5 small files, sha256/cmp ok"
in_b timeout 30 wrk -t2 -c16 -d3s "http://$IP4_A:8081/s3" >"$TMP/wrk.out" 2>&1 || fail "wrk: $(cat "$TMP/wrk.out")"
cat "$TMP/wrk.out"
grep -q "Socket errors\|Non-2xx" "$TMP/wrk.out" && fail "wrk saw errors"
reqs=$(awk '/requests in/ {print $1}' "$TMP/wrk.out")
[ "${reqs:-0}" -gt 100 ] || fail "wrk: only ${reqs:-0} requests"
rps=$(awk '/Requests\/sec/ {print $2}' "$TMP/wrk.out")
kill -QUIT "$PID_nginx" # graceful: the workers close their connections
wait_pid 15 "$PID_nginx" || fail "nginx did not stop on SIGQUIT: $(tail -3 "$NG/error.log")"
grep -E "\[(alert|crit|emerg)\]" "$NG/error.log" && fail "nginx logged alerts"
tuned 8081 20 "$IP4_A"
npid=$(conns 8081 "$IP4_A" | grep -o "pid [0-9]*" | sort -u | wc -l)
[ "$npid" = 2 ] || fail "nginx: connections accepted by $npid worker(s), want 2"
echo "nginx: wrk $reqs requests ($rps/s), no errors; both workers accepted"

# ---- 2: redis
bg redis "${APP[@]}" redis-server --port 6379 --bind 0.0.0.0 --save "" --appendonly no \
	--protected-mode no --dir "$TMP"
rping() { in_b redis-cli -h "$IP4_A" -p 6379 ping | grep -q PONG; }
wait_for 20 rping || fail "redis-server did not answer: $(tail -5 "$TMP/redis.out" "$TMP/redis.err")"
in_b timeout 60 redis-benchmark -h "$IP4_A" -p 6379 -n 20000 -c 20 -t set,get,incr,lpush -q \
	>"$TMP/bench.out" 2>&1 || fail "redis-benchmark: $(tail -3 "$TMP/bench.out")"
tr '\r' '\n' <"$TMP/bench.out" | grep "requests per second" | tee "$TMP/bench.sum"
[ "$(wc -l <"$TMP/bench.sum")" = 4 ] || fail "redis-benchmark: not all 4 tests finished"
head -c 750000 /dev/urandom | base64 -w0 >"$TMP/val"
in_b redis-cli -h "$IP4_A" -p 6379 -x set rkey <"$TMP/val" | grep -q OK || fail "redis SET"
in_b redis-cli -h "$IP4_A" -p 6379 --raw get rkey | head -c "$(stat -c %s "$TMP/val")" >"$TMP/val.out"
[ "$(sha256sum <"$TMP/val")" = "$(sha256sum <"$TMP/val.out")" ] || fail "redis GET: value differs"
echo "redis: SET/GET of a 1 MB random value round-tripped"
kill "$PID_redis"
wait_pid 10 "$PID_redis"
tuned 6379 20 "$IP4_A"
echo "PASS: nginx (2 workers, 10 MiB, small files, wrk $rps req/s), redis ($(head -1 "$TMP/bench.sum"))"
