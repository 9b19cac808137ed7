#!/usr/bin/python3
"""pcap_check.py CAPTURE SKOPS_IP PORT [key=value...]: asserts on the kernel-side
tcpdump capture of the TCP connection(s) to/from skops on PORT.
Checks always: skops's SYN or SYN-ACK carries MSS (1460 for IPv4, 1440 for
IPv6, unless mss=N),
window scale (wscale=N if given), SACK-permitted and timestamps.
Optional: synack_window=N[,N...] (the SYN-ACK's raw window field, one of), ecn_syn=1 (SYN has
ECE+CWR), ecn_synack=1 (SYN-ACK has ECE, no CWR), min_syns=N and
syn_gap_ms=LO:HI (spacing of skops's SYN retransmissions)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pcaptcp  # noqa: E402 (test/pcaptcp.py)

path, ip, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = dict(a.split("=", 1) for a in sys.argv[4:])
pk = pcaptcp.segments(path)
syns = [p for p in pk if p.src == ip and p.flags & 0x02 and (p.sport == port or p.dport == port)]
if not syns:
    sys.exit("pcap_check: no SYN/SYN-ACK from %s on port %d in %s (%d packets)" % (ip, port, path, len(pk)))
s = syns[0]
opts = dict(s.options())
errs = []
if opts.get("MSS") != int(want.get("mss", 1440 if ":" in ip else 1460)):
    errs.append("MSS %r" % opts.get("MSS"))
if "WScale" not in opts:
    errs.append("no window scale")
elif "wscale" in want and opts["WScale"] != int(want["wscale"]):
    errs.append("WScale %r" % opts["WScale"])
if "SAckOK" not in opts:
    errs.append("no SACK-permitted")
if "Timestamp" not in opts:
    errs.append("no timestamps")
flags = s.flags
synack = bool(flags & 0x10)
if "synack_window" in want:
    if not synack:
        errs.append("first SYN from skops is not a SYN-ACK")
    elif s.window not in [int(x) for x in want["synack_window"].split(",")]:
        errs.append("SYN-ACK window %d, want %s" % (s.window, want["synack_window"]))
if want.get("ecn_syn") == "1" and (flags & 0xc0) != 0xc0:
    errs.append("SYN without ECE+CWR (flags 0x%x)" % flags)
if want.get("ecn_synack") == "1" and (flags & 0xc0) != 0x40:
    errs.append("SYN-ACK without ECE alone (flags 0x%x)" % flags)
if "min_syns" in want:
    n = len([p for p in syns if not p.flags & 0x10])
    if n < int(want["min_syns"]):
        errs.append("%d SYNs, want >= %s" % (n, want["min_syns"]))
if "syn_gap_ms" in want:
    lo, hi = (float(x) for x in want["syn_gap_ms"].split(":"))
    t = [p.time for p in syns if not p.flags & 0x10]
    gaps = [(b - a) * 1000 for a, b in zip(t, t[1:])]
    if not gaps or not all(lo <= g <= hi for g in gaps[:2]):
        errs.append("SYN gaps %s ms, want the first ones in [%g, %g]" % (["%.1f" % g for g in gaps], lo, hi))
print("pcap_check: %s flags=0x%x window=%d options=%s" % ("SYN-ACK" if synack else "SYN", flags, s.window, opts))
if errs:
    sys.exit("pcap_check: " + "; ".join(errs))
