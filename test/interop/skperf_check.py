#!/usr/bin/python3
"""skperf_check: checks the -J documents of an skperf test.
  bulk CLIENT.json SERVER.json BYTES   both ends agree on what moved
  rr FILE [hooks|nojit] | crr FILE [hooks|nojit]   percentiles from real
                                     timings (nojit: programs interpreted)
                                       (hooks: sock_ops runs were counted)
Prints one summary line; exits 1 with the reason otherwise."""
import json
import sys


def fail(msg):
    print("skperf_check: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: not JSON: {e}")


def sums(doc, path):
    for k in ("start", "intervals", "end"):
        if k not in doc:
            fail(f"{path}: no '{k}' (iperf3's top-level layout)")
    end = doc["end"]
    if "error" in doc:
        fail(f"{path}: error: {doc['error']}")
    try:
        return end["sum_sent"], end["sum_received"]
    except KeyError:
        fail(f"{path}: no end.sum_sent / end.sum_received")


def bulk(cpath, spath, nbytes):
    c, s = load(cpath), load(spath)
    csent, crcvd = sums(c, cpath)
    ssent, srcvd = sums(s, spath)
    counts = {"client sum_sent": csent["bytes"], "client sum_received": crcvd["bytes"],
              "server sum_sent": ssent["bytes"], "server sum_received": srcvd["bytes"]}
    # iperf3 3.12 -s writes its summary before the result exchange: of the
    # peer's count it shows 0, only its own is there to compare
    if "skops" not in s["end"]:
        counts = {k: v for k, v in counts.items() if not k.startswith("server") or v}
        if len(counts) != 3:
            fail(f"the iperf3 server shows no count of its own: {counts}")
    if len(set(counts.values())) != 1:
        fail(f"byte counts differ: {counts}")
    if nbytes and csent["bytes"] != nbytes:
        # iperf3 as the sender may send the block that was on its way when
        # the count was reached (seen with the kernel's iperf3 -s under -R:
        # 16 MiB + one 128 KiB block, equal on both ends); skperf stops at -n
        ts = c["start"].get("test_start", {})
        sender = s if ts.get("reverse") else c
        over = csent["bytes"] - nbytes
        if "skops" in sender["end"] or not 0 < over <= ts.get("blksize", 131072):
            fail(f"{csent['bytes']} bytes moved, -n asked {nbytes}")
    if csent["bytes"] <= 0:
        fail("no bytes moved")
    # start.timestamp is when the test began on either tool (iperf3's
    # meaning): two ends of one test agree within a second
    tc, tsv = (d["start"].get("timestamp", {}).get("timesecs") for d in (c, s))
    if tc is not None and tsv is not None and abs(tc - tsv) > 1:
        fail(f"start timestamps {tc} and {tsv} are {abs(tc - tsv)} s apart")
    if not c["intervals"] or not s["intervals"]:
        fail("no interval reports")
    for d, name in ((csent, "client sum_sent"), (crcvd, "client sum_received")):
        if not d["bits_per_second"] > 0 or not d["seconds"] > 0:
            fail(f"{name}: bits_per_second {d['bits_per_second']} seconds {d['seconds']}")
    for doc, path in ((c, cpath), (s, spath)):
        sk = doc["end"].get("skops")
        if sk is None:
            continue
        if not sk.get("streams"):
            fail(f"{path}: end.skops has no streams")
        # the stack's counters cover every connection, the test's streams
        # among them: never fewer retransmissions than the streams made
        cnt = sk.get("counters", {})
        if cnt.get("retrans_segs", -1) < sk["retransmits"]:
            fail(f"{path}: end.skops.counters {cnt} against {sk['retransmits']} retransmits")
    print(f"{counts['client sum_sent']} bytes on both ends; "
          f"sender {csent['bits_per_second'] / 1e6:.0f} Mbit/s, "
          f"receiver {crcvd['bits_per_second'] / 1e6:.0f} Mbit/s")


def latency(path, key, hooks=False):
    d = load(path)
    if key not in d.get("end", {}):
        fail(f"{path}: no end.{key}")
    r = d["end"][key]
    p = r["rtt_us"]
    order = [p[k] for k in ("min", "p50", "p90", "p99", "p999", "max")]
    if r["count"] < 10:
        fail(f"{path}: only {r['count']} transactions")
    if not order[0] > 0 or order != sorted(order):
        fail(f"{path}: percentiles not ordered or zero: {p}")
    if sum(b["count"] for b in r["histogram"]) != min(r["count"], 16 << 20):
        fail(f"{path}: histogram does not add up to the count")
    if key == "crr" and not r["per_s"] > 0:
        fail(f"{path}: per_s {r['per_s']}")
    c = r.get("cdf", {})
    if len(c.get("p", [])) < 100 or len(c["p"]) != len(c.get("us", [])) or \
            c["us"] != sorted(c["us"]) or c["us"][c["p"].index(50)] != p["p50"]:
        fail(f"{path}: cdf missing, not monotonic or not at p50 {p['p50']}: {c}")
    if hooks == "nojit" and any(g["jited"] for g in
                                d["end"].get("skops", {}).get("hooks", {}).get("programs", [])):
        fail(f"{path}: --no-jit but a program ran JIT-compiled")
    if hooks:
        h = d["end"].get("skops", {}).get("hooks", {})
        if not h.get("runs", 0) > 0 or not h.get("programs"):
            fail(f"{path}: --sockops attached but end.skops.hooks shows no runs: {h}")
    print(f"{key}: {r['count']} in {r['seconds']:.2f} s ({r['per_s']:.0f}/s); us: " +
          " ".join(f"{k} {p[k]:.1f}" for k in ("min", "p50", "p90", "p99", "p999", "max")))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "bulk":
        bulk(a[1], a[2], int(a[3]))
    elif len(a) in (2, 3) and a[0] in ("rr", "crr") and a[2:] in ([], ["hooks"], ["nojit"]):
        latency(a[1], a[0], a[2] if a[2:] else False)
    else:
        fail("usage: skperf_check.py bulk CLIENT SERVER BYTES | rr|crr FILE [hooks|nojit]")
