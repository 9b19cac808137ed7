#!/usr/bin/python3
"""sack_check.py CAPTURE SENDER_IP PORT DROPS: reads the kernel-side capture
of one bulk transfer from SENDER_IP (skops) to PORT (the kernel, which SACKs)
and asserts that the sender resent only holes: no retransmitted range was
already covered by the kernel's SACK blocks (or cumulative ACK) at least
GRACE seconds before it left (the ACK must have reached the sender; 50 ms is
hundreds of veth round trips, and far below the 200 ms minimum RTO after
which a go-back-N sender resends SACKed data). Also: the retransmitted
segments stay within DROPS (data segments the path dropped, from the nft
counter) plus SLACK_PER_DROP of them as spurious ones. A sender that sent
nothing for STALL seconds with data outstanding was frozen (a loaded
machine): its RTO then fires correctly but spuriously, and what it resends in
the AFTER_STALL seconds that follow is reported apart and not held to that
bound (resending SACKed data still is). Prints the counts."""
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pcaptcp  # noqa: E402 (test/pcaptcp.py)

GRACE = 0.05
SLACK_PER_DROP = 0.5
STALL = 0.3  # above the 200 ms minimum RTO and its jitter, below one backoff
AFTER_STALL = 0.1

path, ip, port, drops = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])


def merge(iv, l, r):
    """Adds [l, r) to the sorted disjoint list iv."""
    out, placed = [], False
    for a, b in iv:
        if b < l or a > r:
            if a > r and not placed:
                out.append((l, r))
                placed = True
            out.append((a, b))
        else:
            l, r = min(l, a), max(r, b)
    if not placed:
        out.append((l, r))
    return sorted(out)


def covered(iv, l, r):
    return any(a <= l and r <= b for a, b in iv)


isn = None
high = 0  # highest data end sent (relative)
pending = []  # (time, l, r) SACK or cumulative ACK information not yet GRACE old
known = []  # SACKed or acked ranges, GRACE old
data = rtx = rtx_bytes = bad = 0
stalls, after_stall, last_tx, stall_end, acked = [], 0, None, None, 0
bad_example = None
for tcp in pcaptcp.segments(path):
    if tcp.v6:
        continue
    t = tcp.time
    while pending and pending[0][0] <= t - GRACE:
        _, l, r = pending.pop(0)
        known = merge(known, l, r)
    if tcp.src == ip and tcp.dport == port:
        if tcp.flags & 0x02:
            isn = tcp.seq
            continue
        if isn is None:
            continue
        # the capture is cut short (-s 128): the length is the IP header's
        n = tcp.plen
        if not n:
            continue
        s = (tcp.seq - isn - 1) % 2**32
        data += 1
        if last_tx is not None and t - last_tx > STALL and high > acked:
            stalls.append(t - last_tx)
            stall_end = t
        last_tx = t
        if s < high:
            rtx_bytes += n
            if stall_end is not None and t - stall_end <= AFTER_STALL:
                after_stall += 1
            else:
                rtx += 1
            if covered(known, s, s + n):
                bad += 1
                bad_example = bad_example or "[%d, %d) at %.6f" % (s, s + n, t)
        high = max(high, s + n)
    elif tcp.dst == ip and tcp.sport == port and isn is not None and tcp.flags & 0x10:
        ack = (tcp.ack - isn - 1) % 2**32
        if ack > 2**31:
            continue
        acked = max(acked, ack)
        pending.append((t, 0, ack))
        for o in tcp.options():
            if o[0] != "SAck" or not isinstance(o[1], tuple):
                continue
            v = o[1]
            for i in range(0, len(v) - 1, 2):
                l, r = (v[i] - isn - 1) % 2**32, (v[i + 1] - isn - 1) % 2**32
                if ack < l < r:  # not a D-SACK
                    pending.append((t, l, r))

print("sack_check: %d data segments, %d retransmitted (%d bytes), %d dropped by the path, "
      "%d resent although SACKed" % (data, rtx + after_stall, rtx_bytes, drops, bad))
if stalls:
    print("sack_check: the sender stood still %d times (longest %.0f ms); %d retransmissions "
          "in the %.0f ms after one are not held to the bound" %
          (len(stalls), 1000 * max(stalls), after_stall, 1000 * AFTER_STALL))
errs = []
if isn is None or data == 0:
    errs.append("no data from %s to port %d in %s" % (ip, port, path))
if bad:
    errs.append("%d retransmissions of SACKed data, e.g. %s" % (bad, bad_example))
if rtx > drops * (1 + SLACK_PER_DROP) + 10:
    errs.append("%d retransmissions for %d drops" % (rtx, drops))
if errs:
    sys.exit("sack_check: " + "; ".join(errs))
