#!/usr/bin/python3
"""pcap_check.py CAPTURE SKOPS_IP PORT [key=value...]: asserts on the kernel-side
tcpdump capture of the TCP connection(s) to/from skops on PORT.
Checks always: skops's SYN or SYN-ACK carries MSS (1460 for IPv4, 1440 for
IPv6, unless mss=N),
window scale (wscale=N if given), SACK-permitted and timestamps.
Optional: synack_window=N[,N...] (the SYN-ACK's raw window field, one of), ecn_syn=1 (SYN has
ECE+CWR), ecn_synack=1 (SYN-ACK has ECE, no CWR), min_syns=N and
syn_gap_ms=LO:HI (spacing of skops's SYN retransmissions)."""
import sys
from scapy.all import rdpcap, TCP, IP, IPv6

path, ip, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = dict(a.split("=", 1) for a in sys.argv[4:])
pk = rdpcap(path)

def src(p):
    return p[IP].src if IP in p else p[IPv6].src if IPv6 in p else None

syns = [p for p in pk if TCP in p and src(p) == ip and p[TCP].flags & 0x02
        and (p[TCP].sport == port or p[TCP].dport == port)]
if not syns:
    sys.exit("pcap_check: no SYN/SYN-ACK from %s on port %d in %s (%d packets)" % (ip, port, path, len(pk)))
s = syns[0]
opts = dict((o[0], o[1]) for o in s[TCP].options if isinstance(o, tuple))
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
flags = int(s[TCP].flags)
synack = bool(flags & 0x10)
if "synack_window" in want:
    if not synack:
        errs.append("first SYN from skops is not a SYN-ACK")
    elif s[TCP].window not in [int(x) for x in want["synack_window"].split(",")]:
        errs.append("SYN-ACK window %d, want %s" % (s[TCP].window, want["synack_window"]))
if want.get("ecn_syn") == "1" and (flags & 0xc0) != 0xc0:
    errs.append("SYN without ECE+CWR (flags 0x%x)" % flags)
if want.get("ecn_synack") == "1" and (flags & 0xc0) != 0x40:
    errs.append("SYN-ACK without ECE alone (flags 0x%x)" % flags)
if "min_syns" in want:
    n = len([p for p in syns if not p[TCP].flags & 0x10])
    if n < int(want["min_syns"]):
        errs.append("%d SYNs, want >= %s" % (n, want["min_syns"]))
if "syn_gap_ms" in want:
    lo, hi = (float(x) for x in want["syn_gap_ms"].split(":"))
    t = [float(p.time) for p in syns if not p[TCP].flags & 0x10]
    gaps = [(b - a) * 1000 for a, b in zip(t, t[1:])]
    if not gaps or not all(lo <= g <= hi for g in gaps[:2]):
        errs.append("SYN gaps %s ms, want the first ones in [%g, %g]" % (["%.1f" % g for g in gaps], lo, hi))
print("pcap_check: %s flags=0x%x window=%d options=%s" % ("SYN-ACK" if synack else "SYN", flags, s[TCP].window, opts))
if errs:
    sys.exit("pcap_check: " + "; ".join(errs))
