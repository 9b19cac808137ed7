#!/usr/bin/python3
"""fair_steady: the split of two flows over the time both were past their
start, from their per-interval -J documents (iperf3's or skperf's), for
fairness.sh --steady.

    fair_steady.py SLOT_JSON SLOT_T0 KERNEL_JSON KERNEL_T0 SETTLE

T0 is each flow's start in wall-clock seconds as the script saw it (a
fraction of a second late or early: the documents' own start.timestamp is
whole seconds). The window runs from SETTLE seconds after the later start
to the earlier end; each interval counts by the part of it inside the
window. Prints one JSON object.
"""
import json
import sys


def load(path, t0):
    d = json.load(open(path))
    ivs = []
    for iv in d["intervals"]:
        s = iv["sum"]
        ivs.append((t0 + s["start"], t0 + s["end"], s["bytes"], s.get("retransmits", 0)))
    stamp = d["start"]["timestamp"]["timesecs"]
    return ivs, stamp


def in_window(ivs, lo, hi):
    got = retr = 0.0
    for a, b, n, r in ivs:
        if b <= a:
            continue
        part = (min(b, hi) - max(a, lo)) / (b - a)
        if part > 0:
            got += n * part
            retr += r * part
    return got, retr


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    slot, slot_stamp = load(sys.argv[1], float(sys.argv[2]))
    kern, kern_stamp = load(sys.argv[3], float(sys.argv[4]))
    settle = float(sys.argv[5])
    if not slot or not kern:
        sys.exit("fair_steady: a document without intervals")
    lo = max(slot[0][0], kern[0][0]) + settle
    hi = min(slot[-1][1], kern[-1][1])
    if hi - lo < 5:
        sys.exit("fair_steady: the flows overlap %.1f s past the settling time" % (hi - lo))
    sb, sr = in_window(slot, lo, hi)
    kb, kr = in_window(kern, lo, hi)
    # how far the script's starts lie from the documents' (whole seconds)
    skew = max(abs(int(slot[0][0]) - slot_stamp), abs(int(kern[0][0]) - kern_stamp))
    out = {
        "window_s": round(hi - lo, 1),
        "slot_start_after_kernel_s": round(slot[0][0] - kern[0][0], 2),
        "slot_mbit": round(sb * 8 / (hi - lo) / 1e6, 1),
        "kernel_mbit": round(kb * 8 / (hi - lo) / 1e6, 1),
        "slot_share_pct": round(100 * sb / (sb + kb), 1) if sb + kb else 0,
        "slot_retransmits": round(sr),
        "kernel_retransmits": round(kr),
        "start_stamp_skew_s": skew,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
